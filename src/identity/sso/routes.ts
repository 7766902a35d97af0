/**
 * Organization single sign-on over OpenID Connect (issue 24 §1): the owners' configuration under
 * `/api/v1/auth/orgs/{org_id}/sso`, and the public sign-in (`/api/v1/auth/sso/*`). The spec's
 * `POST /v1/auth/sso/register` is served, like every identity path, under `/api/v1/auth/`.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { getCookie, setCookie } from "hono/cookie";
import { problemResponses } from "../../lib/app";
import { bearerAuth } from "../core/auth";
import type { AppEnv } from "../core/context";
import { jsonBody, jsonResponse, parseOrgId, SessionResponseSchema, StepUpHeader } from "../core/schemas";
import { sessionResponse } from "../login/session-response";
import { proveDomains, removeSso, requireOwner, setSso, ssoView } from "./admin";
import { linkThroughSso, registerThroughSso } from "./register";
import { SSO_BROWSER_COOKIE, SSO_COOKIE_PATH, SSO_LOGIN_TTL_S } from "./settings";
import { finishSignIn, startSignIn } from "./sign-in";
import { registerSsoUndoRoutes } from "./undo-routes";

const tags = ["Single sign-on"];
const OrgParam = z.object({ org_id: z.string() });

const SsoView = z
  .object({
    configured: z.boolean(),
    issuer: z.string().nullable(),
    client_id: z.string().nullable(),
    enforced: z.boolean(),
    allow_passwords: z.boolean(),
    redirect_uri: z.string(),
    domains: z.array(
      z.object({ domain: z.string(), verified: z.boolean(), txt_name: z.string(), txt_value: z.string() }),
    ),
  })
  .openapi("OrgSso");

const SsoSettings = z
  .strictObject({
    issuer: z.string().min(1).max(512),
    client_id: z.string().min(1).max(256),
    client_secret: z.string().min(1).max(512),
    domains: z.array(z.string().max(253)).max(10),
    enforced: z.boolean().default(false),
    allow_passwords: z.boolean().default(true),
  })
  .openapi("OrgSsoSettings");

const STEP_UP_NOTE =
  "Extends the spec's step-up operations (Authentication rule 3; issue 24): header `X-Step-Up-Code`, 428 `STEP_UP_REQUIRED` without it, 401 `CODE_INVALID`, 503 `STEP_UP_UNAVAILABLE`; nothing changes before the proof.";
const OWNER_ERRORS = {
  400: "BAD_ORG",
  401: "UNAUTHENTICATED, TOKEN_EXPIRED",
  403: "FORBIDDEN (not an owner)",
  404: "NOT_FOUND",
};

const CONFIG_PATH = "/api/v1/auth/orgs/{org_id}/sso";

const getSsoConfigRoute = createRoute({
  method: "get",
  path: CONFIG_PATH,
  tags,
  summary: "The organization's single sign-on (owners)",
  ...bearerAuth,
  request: { params: OrgParam },
  responses: {
    200: jsonResponse("Configuration (never the secret)", SsoView),
    ...problemResponses(OWNER_ERRORS),
  },
});

const setSsoConfigRoute = createRoute({
  method: "put",
  path: CONFIG_PATH,
  tags,
  summary: "Set the organization's OpenID provider (owners; step-up)",
  description: STEP_UP_NOTE,
  ...bearerAuth,
  request: { params: OrgParam, headers: StepUpHeader, ...jsonBody(SsoSettings) },
  responses: {
    200: jsonResponse("Set", SsoView),
    ...problemResponses({
      ...OWNER_ERRORS,
      400: "BAD_ORG, BAD_REQUEST, SSO_ISSUER_INVALID",
      401: "UNAUTHENTICATED, TOKEN_EXPIRED, CODE_INVALID",
      428: "STEP_UP_REQUIRED",
      429: "RATE_LIMITED",
      502: "SSO_PROVIDER_UNAVAILABLE",
      503: "STEP_UP_UNAVAILABLE",
    }),
  },
});

const removeSsoConfigRoute = createRoute({
  method: "delete",
  path: CONFIG_PATH,
  tags,
  summary: "Remove single sign-on (owners; step-up); its SSO sessions end",
  description: STEP_UP_NOTE,
  ...bearerAuth,
  request: { params: OrgParam, headers: StepUpHeader },
  responses: {
    204: { description: "Removed (also when there was none)" },
    ...problemResponses({
      ...OWNER_ERRORS,
      401: "UNAUTHENTICATED, TOKEN_EXPIRED, CODE_INVALID",
      428: "STEP_UP_REQUIRED",
      429: "RATE_LIMITED",
      503: "STEP_UP_UNAVAILABLE",
    }),
  },
});

const verifySsoDomainsRoute = createRoute({
  method: "post",
  path: `${CONFIG_PATH}/domains/verify`,
  tags,
  summary: "Read the DNS proof of the vouched domains now (owners)",
  ...bearerAuth,
  request: { params: OrgParam },
  responses: { 200: jsonResponse("Configuration", SsoView), ...problemResponses(OWNER_ERRORS) },
});

function registerConfigRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(getSsoConfigRoute, async (c) => {
    const orgId = parseOrgId(c.req.valid("param").org_id);
    await requireOwner(c.env, c.get("auth").userId, orgId);
    return c.json(await ssoView(c.env, orgId), 200);
  });
  app.openapi(setSsoConfigRoute, async (c) => {
    const orgId = parseOrgId(c.req.valid("param").org_id);
    const code = c.req.header("x-step-up-code");
    await setSso(c.env, c.get("services"), c.get("auth").userId, orgId, c.req.valid("json"), code);
    return c.json(await ssoView(c.env, orgId), 200);
  });
  app.openapi(removeSsoConfigRoute, async (c) => {
    const orgId = parseOrgId(c.req.valid("param").org_id);
    const code = c.req.header("x-step-up-code");
    await removeSso(c.env, c.get("services"), c.get("auth").userId, orgId, code);
    return c.body(null, 204);
  });
  app.openapi(verifySsoDomainsRoute, async (c) => {
    const orgId = parseOrgId(c.req.valid("param").org_id);
    await requireOwner(c.env, c.get("auth").userId, orgId);
    await proveDomains(c.env, orgId);
    return c.json(await ssoView(c.env, orgId), 200);
  });
}

const startSsoRoute = createRoute({
  method: "get",
  path: "/api/v1/auth/sso/start",
  tags,
  summary: "Start signing in through an organization's provider (by slug or e-mail domain)",
  description:
    "Redirects (303) to the provider with an authorization code request (PKCE S256, state, nonce) bound to this browser by a cookie; with `Accept: application/json` answers 200 with the URL instead. An unknown organization and one without single sign-on answer the same 404.",
  request: {
    query: z.object({ org: z.string().max(63).optional(), email: z.string().max(254).optional() }),
  },
  responses: {
    200: jsonResponse("The provider's authorization URL", z.object({ authorization_url: z.string() })),
    303: { description: "To the provider" },
    ...problemResponses({
      400: "BAD_REQUEST",
      404: "NOT_FOUND",
      429: "RATE_LIMITED (per client)",
      502: "SSO_PROVIDER_UNAVAILABLE",
    }),
  },
});

const ssoCallbackRoute = createRoute({
  method: "get",
  path: "/api/v1/auth/sso/callback",
  tags,
  summary: "The provider's redirect back: verifies the ID token, then signs in, or asks to register or link",
  description:
    "303 to the hosted page `/auth/sso`: `#done` (session cookies set), `#register=<token>` (an unknown person from a vouched domain: POST /api/v1/auth/sso/register), or `#link=<token>` (an existing account: the code e-mailed to its address, POST /api/v1/auth/sso/link).",
  request: {
    query: z.object({ state: z.string().max(512).optional(), code: z.string().max(2048).optional() }),
  },
  responses: {
    303: { description: "To the hosted page" },
    ...problemResponses({
      401: "SSO_SIGN_IN_FAILED",
      403: "SSO_DOMAIN_NOT_VOUCHED, FORBIDDEN",
      502: "SSO_PROVIDER_UNAVAILABLE",
    }),
  },
});

const ssoRegisterRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/sso/register",
  tags,
  summary: "Create the account of a person from a vouched domain after their SSO sign-in",
  description:
    "The spec's `POST /v1/auth/sso/register`. Body: the `registration_token` of the callback, an optional `display_name`, and a `password` (password policy) only when the organization allows passwords. The account joins the organization with its default role; 201 issues a session.",
  request: jsonBody(
    z
      .strictObject({
        registration_token: z.string().min(1).max(128),
        display_name: z.string().trim().min(1).max(120).optional(),
        password: z.string().max(1024).optional(),
      })
      .openapi("SsoRegisterRequest"),
  ),
  responses: {
    201: jsonResponse("Registered and signed in", SessionResponseSchema),
    ...problemResponses({
      400: "BAD_REQUEST, PASSWORD_TOO_WEAK, PASSWORD_BREACHED",
      401: "SSO_TOKEN_INVALID",
      409: "EMAIL_TAKEN",
      503: "PASSWORD_CHECK_UNAVAILABLE",
    }),
  },
});

const ssoLinkRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/sso/link",
  tags,
  summary: "Link an existing account to its organization's provider with the code e-mailed to its address",
  request: jsonBody(
    z
      .strictObject({ link_token: z.string().min(1).max(128), code: z.string().min(1).max(16) })
      .openapi("SsoLinkRequest"),
  ),
  responses: {
    200: jsonResponse("Linked and signed in", SessionResponseSchema),
    ...problemResponses({ 401: "SSO_TOKEN_INVALID, CODE_INVALID" }),
  },
});

function registerSignInRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(startSsoRoute, async (c) => {
    const { url, browser } = await startSignIn(c.env, c.get("services"), c.req.valid("query"));
    setCookie(c, SSO_BROWSER_COOKIE, browser, {
      httpOnly: true,
      secure: c.get("services").request.https,
      sameSite: "Lax",
      path: SSO_COOKIE_PATH,
      maxAge: SSO_LOGIN_TTL_S,
    });
    c.header("Cache-Control", "no-store");
    if ((c.req.header("accept") ?? "").includes("application/json")) {
      return c.json({ authorization_url: url }, 200);
    }
    return c.redirect(url, 303);
  });
  app.openapi(ssoCallbackRoute, async (c) => {
    const callback = { url: new URL(c.req.url), browserCookie: getCookie(c, SSO_BROWSER_COOKIE) };
    const outcome = await finishSignIn(c.env, c.get("services"), callback);
    c.header("Cache-Control", "no-store");
    if (outcome.kind === "session") {
      await sessionResponse(c, outcome.session);
      return c.redirect("/auth/sso#done", 303);
    }
    return c.redirect(`/auth/sso#${outcome.kind}=${outcome.token}`, 303);
  });
  app.openapi(ssoRegisterRoute, async (c) => {
    const session = await registerThroughSso(c.env, c.get("services"), c.req.valid("json"));
    return c.json(await sessionResponse(c, session), 201);
  });
  app.openapi(ssoLinkRoute, async (c) => {
    const session = await linkThroughSso(c.env, c.get("services"), c.req.valid("json"));
    return c.json(await sessionResponse(c, session), 200);
  });
}

export function registerSsoRoutes(app: OpenAPIHono<AppEnv>) {
  registerConfigRoutes(app);
  registerSignInRoutes(app);
  registerSsoUndoRoutes(app);
}
