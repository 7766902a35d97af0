/**
 * `POST /api/v1/auth/oauth/token` (issue 37, docs/decisions/oauth-agents.md "Tokens"): RFC 6749 §3.2's
 * form-urlencoded request, RFC 6749 §5.1/§5.2's JSON answers (never problem+json), `Cache-Control:
 * no-store`, readable from any origin (browser-based MCP clients: `Access-Control-Allow-Origin: *`, no
 * credentials). The form helpers here serve the revocation endpoint too.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { AppEnv } from "../core/context";
import type { Env } from "../core/worker-env";
import { OPEN_CORS } from "./metadata-routes";
import {
  authenticateClient,
  OAuthError,
  type PresentedClient,
  parseBasic,
  redeemCode,
  refreshGrant,
} from "./token";

export const TOKEN_PATH = "/api/v1/auth/oauth/token";

/** A token request is a few hundred bytes; 16 KiB leaves room for long redirect URIs and nothing more. */
const MAX_FORM_BYTES = 16 * 1024;
/** Token and revocation requests per client IP per minute (identity's RateLimiter Durable Object). */
export const OAUTH_IP_LIMIT = { limit: 120, windowSeconds: 60 };

/**
 * What every answer of the OAuth protocol endpoints (registration, token, revocation) carries: never cached
 * (RFC 6749 §5.1), readable from any origin without credentials.
 */
export const OAUTH_ANSWER_HEADERS = {
  ...OPEN_CORS,
  "Cache-Control": "no-store",
  Pragma: "no-cache",
} as const;

/** An OAuth JSON answer with the headers every answer of these endpoints carries. */
export function oauthJson(body: unknown, status: number, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json;charset=UTF-8", ...OAUTH_ANSWER_HEADERS, ...headers },
  });
}

/** An `OAuthError` as RFC 6749 §5.2 JSON; anything else goes on to the app's error handler. */
export function oauthFailure(err: unknown): Response {
  if (!(err instanceof OAuthError)) throw err;
  return oauthJson({ error: err.error, error_description: err.description }, err.status, err.headers);
}

/** The body cap, answered the OAuth way. */
export const limitOAuthBody = bodyLimit({
  maxSize: MAX_FORM_BYTES,
  onError: () =>
    oauthJson({ error: "invalid_request", error_description: "The request body is too large." }, 413),
});

/** The client IP's quota of token and revocation requests; 429 with `Retry-After` when spent. */
export async function enforceOAuthIpLimit(env: Env, ip: string): Promise<void> {
  const stub = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(`oauth_ip:${ip}`));
  const decision = await stub.hit(OAUTH_IP_LIMIT.limit, OAUTH_IP_LIMIT.windowSeconds);
  if (!decision.allowed) {
    throw new OAuthError("invalid_request", "Too many requests; retry later.", 429, {
      "Retry-After": String(decision.retryAfter),
    });
  }
}

/**
 * The form of RFC 6749 §3.2: `application/x-www-form-urlencoded` only (JSON and anything else are
 * `invalid_request`); a parameter sent twice is `invalid_request` (§3.1); an empty one counts as absent.
 */
export async function readOAuthForm(c: Context<AppEnv>): Promise<Map<string, string>> {
  const type = (c.req.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") {
    throw new OAuthError("invalid_request", "The body must be application/x-www-form-urlencoded.");
  }
  const form = new Map<string, string>();
  const seen = new Set<string>();
  const text = new TextDecoder().decode(await c.req.arrayBuffer());
  for (const [name, value] of new URLSearchParams(text)) {
    if (seen.has(name)) throw new OAuthError("invalid_request", `${name} is sent more than once.`);
    seen.add(name);
    if (value !== "") form.set(name, value);
  }
  return form;
}

/** What the request presented to authenticate its client. */
export function presentedClient(c: Context<AppEnv>, form: Map<string, string>): PresentedClient {
  return {
    basic: parseBasic(c.req.header("authorization")),
    bodyId: form.get("client_id") ?? null,
    bodySecret: form.get("client_secret") ?? null,
  };
}

const param = (form: Map<string, string>, name: string) => form.get(name) ?? null;

async function tokenAnswer(c: Context<AppEnv>) {
  const services = c.get("services");
  await enforceOAuthIpLimit(c.env, services.request.ip);
  const form = await readOAuthForm(c);
  const grantType = form.get("grant_type");
  if (grantType === undefined) throw new OAuthError("invalid_request", "grant_type is required.");
  if (grantType !== "authorization_code" && grantType !== "refresh_token") {
    throw new OAuthError(
      "unsupported_grant_type",
      "Only authorization_code and refresh_token are supported.",
    );
  }
  const client = await authenticateClient(c.env, services, presentedClient(c, form));
  const resource = param(form, "resource");
  if (grantType === "authorization_code") {
    const input = { code: param(form, "code"), redirectUri: param(form, "redirect_uri"), resource };
    return await redeemCode(c.env, services, client, {
      ...input,
      codeVerifier: param(form, "code_verifier"),
    });
  }
  const input = { refreshToken: param(form, "refresh_token"), scope: param(form, "scope"), resource };
  return await refreshGrant(c.env, services, client, input);
}

const FormString = z.string().optional();
const OAuthErrorBody = z.object({ error: z.string(), error_description: z.string().optional() });
const oauthError = (description: string) => ({
  description,
  content: { "application/json": { schema: OAuthErrorBody } },
});
/** The error answers of the token and revocation endpoints (both behind `limitOAuthBody` and the IP quota). */
export const OAUTH_ERROR_RESPONSES = {
  400: oauthError("RFC 6749 §5.2 error"),
  401: oauthError("invalid_client"),
  413: oauthError("Body too large"),
  429: oauthError("Too many requests"),
};

export const tokenRoute = createRoute({
  method: "post",
  path: TOKEN_PATH,
  tags: ["OAuth"],
  summary:
    "Token endpoint of MCP agents (RFC 6749 §3.2): authorization code with PKCE S256, refresh rotation",
  description:
    "Form-urlencoded only. Client authentication by the client's registered method (none, client_secret_post, client_secret_basic). Access tokens are EdDSA JWTs (typ at+jwt, aud = the resource, 300 s); refresh tokens `mcr_…` rotate on every use, a rotated one presented again revokes the grant, as does a replayed code. Errors are RFC 6749 §5.2 JSON.",
  request: {
    body: {
      required: true,
      content: {
        "application/x-www-form-urlencoded": {
          schema: z.object({
            grant_type: z.enum(["authorization_code", "refresh_token"]),
            code: FormString,
            redirect_uri: FormString,
            code_verifier: FormString,
            refresh_token: FormString,
            scope: FormString,
            resource: FormString,
            client_id: FormString,
            client_secret: FormString,
          }),
        },
      },
    },
  },
  responses: {
    200: {
      description: "Tokens",
      content: {
        "application/json": {
          schema: z.object({
            access_token: z.string(),
            token_type: z.literal("Bearer"),
            expires_in: z.number().int(),
            refresh_token: z.string(),
            scope: z.string(),
          }),
        },
      },
    },
    ...OAUTH_ERROR_RESPONSES,
  },
});

export function registerTokenRoutes(app: OpenAPIHono<AppEnv>) {
  // Declared in the registry and served by a plain handler: the form and the errors are OAuth's, not the app's.
  app.openAPIRegistry.registerPath(tokenRoute);
  app.post(TOKEN_PATH, limitOAuthBody, async (c) => {
    try {
      return oauthJson(await tokenAnswer(c), 200);
    } catch (err) {
      return oauthFailure(err);
    }
  });
}
