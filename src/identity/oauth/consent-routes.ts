/**
 * The consent page's API (issue 37, docs/decisions/oauth-agents.md "Consent"): open a consent for an
 * authorization request, approve it or deny it (Bearer: the signed-in person on `/auth/authorize`), and
 * the notice's one-click undo of a grant (no authentication: the mailed token is the proof).
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import { SCOPES } from "../../lib/key-scopes";
import { bearerAuth } from "../core/auth";
import type { AppEnv } from "../core/context";
import { jsonBody, jsonResponse, StepUpHeader } from "../core/schemas";
import { approveConsent, denyConsent, openConsent } from "./consent";
import { undoGrant } from "./notice";

const TAGS = ["OAuth (MCP agents)"];
const param = (max: number) => z.string().max(max).optional();

/**
 * Strict, as every body of this API: the page (the RFC 6749 authorization endpoint, which ignores
 * parameters it does not know, §3.1) sends only these names, so an unknown field here is a client's mistake.
 */
const ConsentRequest = z
  .strictObject({
    response_type: param(64),
    client_id: param(2048),
    redirect_uri: param(2048),
    code_challenge: param(256),
    code_challenge_method: param(64),
    state: param(4096),
    scope: param(4096),
    resource: param(2048),
  })
  .openapi("OAuthConsentRequest");

const Scope = z.enum(SCOPES);

const ConsentView = z
  .object({
    consent_id: z.string(),
    csrf_token: z
      .string()
      .openapi({ description: "Sent back with approve or deny; only its hash is stored" }),
    expires_at: z.string(),
    client: z.object({
      id: z.string(),
      name: z.string().openapi({ description: "The client's own claim, unverified" }),
      origin: z.string().nullable().openapi({
        description: "The client_id URL's origin (metadata document), its client_uri otherwise",
      }),
      kind: z.enum(["metadata_document", "registered"]),
      verified: z.literal(false).openapi({ description: "No client is verified yet" }),
      logo_uri: z.string().nullable(),
    }),
    redirect_uri: z.string(),
    requested_scopes: z.array(Scope),
    sites: z.array(
      z.object({ site_id: z.string(), name: z.string(), host: z.string(), allowed_scopes: z.array(Scope) }),
    ),
    warnings: z.array(z.object({ code: z.literal("loopback_redirect"), message: z.string() })),
  })
  .openapi("OAuthConsent");

const Redirect = z
  .object({
    redirect: z.string().openapi({
      description:
        "The client's redirect URI with the authorization response (`code` or `error`, `state`, `iss`): where the page sends the browser",
    }),
  })
  .openapi("OAuthRedirect");

const ConsentOpened = z.union([ConsentView, Redirect]).openapi("OAuthConsentOpened");

const ApproveRequest = z
  .strictObject({
    csrf_token: z.string().min(1).max(128),
    site_id: z.string().min(1).max(64),
    scopes: z.array(z.string().max(64)).max(SCOPES.length * 2),
  })
  .openapi("OAuthConsentApproval");

const DenyRequest = z.strictObject({ csrf_token: z.string().min(1).max(128) }).openapi("OAuthConsentDenial");

const UndoRequest = z.strictObject({ token: z.string().min(1).max(200) }).openapi("OAuthGrantUndoRequest");

const openConsentRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/oauth/consents",
  tags: TAGS,
  summary: "Open a consent for an MCP agent's authorization request (the consent page's first call)",
  description:
    "The authorization request's parameters as the page read them from `/auth/authorize`. A client or redirect URI that cannot be trusted (unknown client, invalid client document, a redirect URI not registered exactly) is a problem shown on the page, never sent to the redirect URI (RFC 6749 §4.1.2.1). Any other error of the request (response_type not `code`, PKCE missing or not S256, a resource other than the issuer's `/v1/mcp`, an unknown scope, a state over 500 characters) is answered 200 `{redirect}` carrying `error`, `error_description`, `state` and `iss`. Otherwise the consent (10 minutes, single use), its CSRF token, the client as it claims to be (unverified), the requested scopes (all but `leads:read` when the request names none) and the sites the person may act on with the scopes the role allows there.",
  ...bearerAuth,
  request: jsonBody(ConsentRequest),
  responses: {
    200: jsonResponse("The consent to show, or the error redirect", ConsentOpened),
    ...problemResponses({
      400: "OAUTH_CLIENT_INVALID, OAUTH_REDIRECT_URI_INVALID, BAD_REQUEST",
      401: "UNAUTHENTICATED, TOKEN_EXPIRED",
      429: "RATE_LIMITED (20 consents open at once)",
      500: "LOOKUP_FAILED (the site registry did not answer)",
      502: "OAUTH_CLIENT_UNAVAILABLE (the client document could not be fetched)",
    }),
  },
});

const approveRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/oauth/consents/{id}/approve",
  tags: TAGS,
  summary: "Approve the caller's consent for one site and some of the requested scopes",
  description:
    "The consent must be the caller's (another person's is the same 404 as a missing one), undecided and unexpired, and the CSRF token its own. The site must be one the person may act on now and every scope both requested and allowed by the role there now. A grant with any scope beyond the plain reads (writes, `site:code`, `leads:read`, `export`, `import`, `analytics:read`) asks for a session signed in within the last 10 minutes, or the step-up code: without it a code goes to the primary address and the answer is 428 `STEP_UP_REQUIRED`; repeat with header `X-Step-Up-Code`. The grant, its first code (60 s) and the consent's single use are one batch: of concurrent approvals one wins. The person is mailed a notice with a one-click undo.",
  ...bearerAuth,
  request: {
    params: z.object({ id: z.string().max(64) }),
    headers: StepUpHeader,
    ...jsonBody(ApproveRequest),
  },
  responses: {
    200: jsonResponse("Where to send the browser: the redirect URI with code, state and iss", Redirect),
    ...problemResponses({
      400: "BAD_REQUEST (no scope, an unknown scope)",
      401: "UNAUTHENTICATED, TOKEN_EXPIRED, CODE_INVALID",
      403: "CONSENT_CSRF_INVALID, FORBIDDEN (not a site the person may act on), SCOPE_NOT_ALLOWED",
      404: "NOT_FOUND",
      409: "CONSENT_DECIDED, CONSENT_EXPIRED",
      428: "STEP_UP_REQUIRED",
      429: "RATE_LIMITED",
      503: "STEP_UP_UNAVAILABLE",
    }),
  },
});

const denyRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/oauth/consents/{id}/deny",
  tags: TAGS,
  summary: "Deny the caller's consent: the client hears access_denied",
  ...bearerAuth,
  request: { params: z.object({ id: z.string().max(64) }), ...jsonBody(DenyRequest) },
  responses: {
    200: jsonResponse("Where to send the browser: the redirect URI with error=access_denied", Redirect),
    ...problemResponses({
      401: "UNAUTHENTICATED, TOKEN_EXPIRED",
      403: "CONSENT_CSRF_INVALID",
      404: "NOT_FOUND",
      409: "CONSENT_DECIDED, CONSENT_EXPIRED",
    }),
  },
});

const undoRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/oauth/undo",
  tags: TAGS,
  summary: "Revoke an agent's grant with the link mailed when it was approved, and sign out everywhere",
  description:
    "No authentication: the token of the notice, signed by identity for one grant of one account and valid 7 days, is the proof. Revokes the grant and ends every session of the account in one batch (the session that approved it is presumed stolen). A grant already ended answers `already_ended` and changes nothing.",
  request: jsonBody(UndoRequest),
  responses: {
    200: jsonResponse(
      "The grant's end",
      z
        .object({ grant_id: z.string(), outcome: z.enum(["revoked", "already_ended"]) })
        .openapi("OAuthGrantUndone"),
    ),
    ...problemResponses({ 400: "BAD_REQUEST", 401: "CODE_INVALID", 429: "RATE_LIMITED" }),
  },
});

export function registerConsentRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(openConsentRoute, async (c) => {
    const opened = await openConsent(c.env, c.get("services"), c.get("auth"), c.req.valid("json"));
    return c.json("redirect" in opened ? opened : opened.consent, 200);
  });
  app.openapi(approveRoute, async (c) => {
    const result = await approveConsent(
      c.env,
      c.get("services"),
      c.get("auth"),
      c.req.valid("param").id,
      c.req.valid("json"),
      c.req.valid("header")["x-step-up-code"],
    );
    return c.json(result, 200);
  });
  app.openapi(denyRoute, async (c) => {
    const result = await denyConsent(
      c.env,
      c.get("auth"),
      c.req.valid("param").id,
      c.req.valid("json").csrf_token,
    );
    return c.json(result, 200);
  });
  app.openapi(undoRoute, async (c) => {
    return c.json(await undoGrant(c.env, c.get("services"), c.req.valid("json").token), 200);
  });
}
