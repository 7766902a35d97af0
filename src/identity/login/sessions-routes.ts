/** Refresh, session list and revocation. */

import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { getCookie } from "hono/cookie";
import { problemResponses } from "../../lib/app";
import { parseUlid } from "../../lib/ids";
import { booleanQuery } from "../../lib/query-params";
import { batch } from "../../lib/sql";
import { bearerAuth } from "../core/auth";
import type { AppEnv, Services } from "../core/context";
import {
  jsonResponse,
  parseHandReadBody,
  readOptionalJsonBody,
  SessionResponseSchema,
} from "../core/schemas";
import type { Env } from "../core/worker-env";
import { fail, problem } from "../errors";
import { eventOrigin, recordEvent, userAgentFamily } from "../events/events";
import { requireStepUp } from "../factors/step-up";
import { isForeignBrowserRequest } from "./cookie-csrf";
import { rotateRefreshToken } from "./refresh";
import { clearSessionCookies, REFRESH_COOKIE, sessionResponse } from "./session-response";
import { listLiveSessions, revokeAllSessionsStatement, revokeSession } from "./sessions-store";

const RefreshBody = z
  .strictObject({ refresh_token: z.string().max(512).optional() })
  .openapi("RefreshRequest");

/** The optional body's token; a body that is not `{"refresh_token"?: string}` is 400 (the session is kept). */
function refreshTokenFromBody(raw: unknown): string | undefined {
  if (raw === undefined) return undefined;
  return parseHandReadBody(RefreshBody, raw, "refresh_token must be a string.").refresh_token;
}

const FOREIGN_COOKIE_REFRESH = () =>
  problem("FORBIDDEN", "A refresh with the session cookie must come from this origin's own pages.");

const REFRESH_FAILED = () => problem("REFRESH_FAILED", "The session cannot be refreshed; sign in again.");

const SessionItem = z
  .object({
    id: z.string(),
    created_at: z.string(),
    expires_at: z.string(),
    ip: z.string().nullable(),
    user_agent: z.string().nullable(),
    /** The user agent as "Browser on OS" (what the account page shows), null without one. */
    device: z.string().nullable(),
    auth_method: z.string(),
    trusted_device: z.boolean(),
    current: z.boolean(),
  })
  .openapi("Session");

/** The caller's "sessions revoked" event; `detail`: one, others (all but the caller's) or all. */
function revokedEvent(
  db: D1Database,
  services: Services,
  userId: string,
  detail: "one" | "others" | "all",
  options?: { ifChanged: boolean },
) {
  const event = { userId, type: "sessions_revoked" as const, detail };
  return recordEvent(db, eventOrigin(services.request), event, options);
}

/** The account's live sessions as the list shows them, the caller's marked `current`. */
async function liveSessionItems(db: D1Database, userId: string, currentId: string) {
  const { results } = await listLiveSessions(db, userId);
  return results.map((s) => ({
    id: s.id,
    created_at: s.created_at,
    expires_at: s.expires_at,
    ip: s.ip,
    user_agent: s.user_agent,
    device: userAgentFamily(s.user_agent),
    auth_method: s.auth_method,
    trusted_device: s.trusted_device === 1,
    current: s.id === currentId,
  }));
}

/** Signs out of every session (step-up first), or of all but the caller's with `keepCurrent`. */
async function revokeAllSessions(
  env: Env,
  services: Services,
  auth: { userId: string; sessionId: string },
  keepCurrent: boolean,
  stepUpCode: string | undefined,
) {
  const { userId, sessionId } = auth;
  await requireStepUp(env, services, userId, "sessions.revoke_all", stepUpCode);
  const event = revokedEvent(env.DB, services, userId, keepCurrent ? "others" : "all");
  const keep = keepCurrent ? sessionId : undefined;
  await batch(env.DB, [revokeAllSessionsStatement(env.DB, userId, "user_revoked_all", keep), event]);
}

const refreshRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/refresh",
  tags: ["Login and sessions"],
  summary: "Rotate the refresh token (body or cookie svc_refresh); reuse revokes every session",
  // The optional JSON body `{"refresh_token"}` is parsed in the handler: an absent or empty body is
  // tolerated (cookie callers), which the declarative validator would refuse.
  description: 'Optional body: `{"refresh_token": "..."}`; without it the `svc_refresh` cookie is used.',
  responses: {
    200: jsonResponse("New tokens", SessionResponseSchema),
    ...problemResponses({
      400: "BAD_REQUEST (malformed body; the session is not lost)",
      401: "REFRESH_FAILED (the only answer meaning: sign in again)",
      403: "FORBIDDEN (the svc_refresh cookie sent by a page of another origin)",
      423: "ACCOUNT_LOCKED",
      503: "REFRESH_UNAVAILABLE (retry; never log the user out)",
    }),
  },
});

const listSessionsRoute = createRoute({
  method: "get",
  path: "/api/v1/auth/sessions",
  tags: ["Login and sessions"],
  summary: "The caller's live sessions",
  ...bearerAuth,
  responses: {
    200: jsonResponse("Sessions", z.object({ items: z.array(SessionItem), next_cursor: z.null() })),
    ...problemResponses({ 401: "UNAUTHENTICATED, TOKEN_EXPIRED" }),
  },
});

const revokeSessionRoute = createRoute({
  method: "delete",
  path: "/api/v1/auth/sessions/{id}",
  tags: ["Login and sessions"],
  summary: "Revoke one of the caller's sessions (no step-up: accepted residual risk)",
  ...bearerAuth,
  request: { params: z.object({ id: z.string().max(64) }) },
  responses: {
    204: { description: "Revoked" },
    ...problemResponses({
      401: "UNAUTHENTICATED, TOKEN_EXPIRED",
      404: "NOT_FOUND (also another account's session)",
    }),
  },
});

const revokeAllSessionsRoute = createRoute({
  method: "delete",
  path: "/api/v1/auth/sessions",
  tags: ["Login and sessions"],
  summary: "Sign out of all sessions (step-up); keep_current keeps the caller's",
  ...bearerAuth,
  request: {
    query: z.object({
      keep_current: booleanQuery(
        "Keep the caller's session (true or 1; false or 0, the default, ends it too)",
      ),
    }),
    headers: z.object({ "x-step-up-code": z.string().max(64).optional() }),
  },
  responses: {
    204: { description: "Revoked (cookies cleared when the current session fell)" },
    ...problemResponses({
      401: "UNAUTHENTICATED, TOKEN_EXPIRED, CODE_INVALID",
      428: "STEP_UP_REQUIRED",
      429: "RATE_LIMITED (step-up code sends and checks)",
      503: "STEP_UP_UNAVAILABLE (nothing revoked)",
    }),
  },
});

export function registerSessionRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(refreshRoute, async (c) => {
    const fromBody = refreshTokenFromBody(await readOptionalJsonBody(c));
    if (fromBody === undefined && isForeignBrowserRequest(c.req.raw)) throw FOREIGN_COOKIE_REFRESH();
    const token = fromBody ?? getCookie(c, REFRESH_COOKIE);
    const { request, log } = c.get("services");
    const client = { ip: request.ip, userAgent: request.userAgent, requestId: log.requestId };
    const session = await rotateRefreshToken(c.env, token, client);
    if (!session) {
      clearSessionCookies(c);
      throw REFRESH_FAILED();
    }
    return c.json(await sessionResponse(c, session), 200);
  });

  app.openapi(listSessionsRoute, async (c) => {
    const { userId, sessionId } = c.get("auth");
    return c.json({ items: await liveSessionItems(c.env.DB, userId, sessionId), next_cursor: null }, 200);
  });

  app.openapi(revokeSessionRoute, async (c) => {
    const { userId, sessionId } = c.get("auth");
    const id = parseUlid(c.req.valid("param").id);
    // Scoped to the owner in the UPDATE itself: another account's id is not found, exactly like a missing one.
    const event = id
      ? revokedEvent(c.env.DB, c.get("services"), userId, "one", { ifChanged: true })
      : undefined;
    if (!id || !(await revokeSession(c.env.DB, userId, id, "user_revoked", event))) {
      fail("NOT_FOUND", "No such session.");
    }
    if (id === sessionId) clearSessionCookies(c);
    return c.body(null, 204);
  });

  app.openapi(revokeAllSessionsRoute, async (c) => {
    const keepCurrent = c.req.valid("query").keep_current ?? false;
    await revokeAllSessions(
      c.env,
      c.get("services"),
      c.get("auth"),
      keepCurrent,
      c.req.header("x-step-up-code"),
    );
    if (!keepCurrent) clearSessionCookies(c);
    return c.body(null, 204);
  });
}
