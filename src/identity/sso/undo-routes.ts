/**
 * The one-click undo of an SSO change (the credential rule; `undo.ts`): the API operation
 * `POST /api/v1/auth/orgs/{org_id}/sso/undo` and the page the mailed link opens (`/auth/sso/undo`): a
 * button, so that a mail scanner fetching the link changes nothing; the page's plain form (no script, no
 * input: the link's org and token ride in its action) posts back to the page, which calls the same undo.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import { ApiError } from "../../lib/problem";
import type { AppContext, AppEnv } from "../core/context";
import { jsonBody, jsonResponse, parseOrgId } from "../core/schemas";
import { html, renderPage } from "../pages/layout";
import { tellOwners } from "./notices";
import { undoSsoChange } from "./undo";

const UndoRequest = z.strictObject({ token: z.string().min(1).max(128) }).openapi("SsoUndoRequest");
const UndoResult = z
  .object({
    undone: z.enum(["restored", "removed"]).openapi({
      description:
        "restored: the configuration before the change is back; removed: there was none, SSO is off",
    }),
  })
  .openapi("SsoUndoResult");

async function undo(c: AppContext, rawOrgId: string, token: string) {
  const orgId = parseOrgId(rawOrgId);
  const undone = await undoSsoChange(c.env, orgId, token);
  await tellOwners(c.env, c.get("services"), orgId, "undone");
  return undone;
}

/** The page of the mailed link: one button; the link's org and token ride in the form's own action. */
function undoPage(c: AppContext, query: { org?: string; token?: string }) {
  const action = `/auth/sso/undo?${new URLSearchParams({ org: query.org ?? "", token: query.token ?? "" })}`;
  return renderPage(c, {
    title: "Undo a change to your organization's single sign-on",
    body: html`<p>The single sign-on of your organization was set up or changed. If it was not one of its owners, undo it: the earlier configuration comes back (or single sign-on is removed if there was none) and every SSO session of the organization ends.</p>
<form method="post" action="${action}">
<button type="submit">Undo the change</button>
</form>`,
  });
}

async function undoFromPage(c: AppContext) {
  const org = (c.req.query("org") ?? "").slice(0, 64);
  const token = (c.req.query("token") ?? "").slice(0, 128);
  try {
    const undone = await undo(c, org, token);
    const what = undone === "restored" ? "The earlier configuration is back." : "Single sign-on is removed.";
    return renderPage(c, { title: "Change undone", body: html`<p>${what} Every SSO session ended.</p>` });
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    c.status(404);
    const text = "This link does not work: it was used, it expired, or a later change replaced it.";
    return renderPage(c, { title: "Nothing to undo", body: html`<p>${text}</p>` });
  }
}

const undoSsoRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/orgs/{org_id}/sso/undo",
  tags: ["Single sign-on"],
  summary: "Undo a change to the organization's single sign-on with the link mailed to its owners",
  description:
    "No authentication: the token mailed to every owner with the notice of a set or changed configuration is the proof. Puts back the configuration as it was before that change (or removes single sign-on when there was none) and ends every SSO session of the organization, the logins in flight and the links made since. Works once, for 7 days, and only while the configuration is still the one that change wrote. An unknown, used, expired, superseded or another organization's token is the same 404.",
  request: { params: z.object({ org_id: z.string().max(64) }), ...jsonBody(UndoRequest) },
  responses: {
    200: jsonResponse("Undone", UndoResult),
    ...problemResponses({ 400: "BAD_ORG, BAD_REQUEST", 404: "NOT_FOUND" }),
  },
});

export function registerSsoUndoRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(undoSsoRoute, async (c) => {
    const undone = await undo(c, c.req.valid("param").org_id, c.req.valid("json").token);
    return c.json({ undone }, 200);
  });
  app.get("/auth/sso/undo", (c) => undoPage(c, { org: c.req.query("org"), token: c.req.query("token") }));
  app.post("/auth/sso/undo", (c) => undoFromPage(c));
}
