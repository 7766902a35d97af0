/**
 * RFC 7591 dynamic client registration (issue 37; deprecated by the MCP 2026-07-28 revision in favour of
 * Client ID Metadata Documents, kept for 2025-11-25 clients). Answers are RFC 7591 JSON, never
 * problem+json: 201 with the client information response, 400 `invalid_redirect_uri` /
 * `invalid_client_metadata`, 413 above the body cap, 429 with Retry-After past the per-IP quota. Open to any
 * origin (browser-based clients register): `Access-Control-Allow-Origin: *`, no credentials.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { readCappedBytes } from "../../lib/capped-body";
import type { AppEnv } from "../core/context";
import { MAX_REDIRECT_URIS, REDIRECT_URI_MAX_LENGTH } from "./client-metadata";
import { REGISTRATION_QUOTA, type RegistrationOutcome, registerClient } from "./clients";
import { openPreflight } from "./metadata-routes";
import { oauthJson } from "./token-routes";

export const REGISTRATION_PATH = "/api/v1/auth/oauth/register";
/** Ten redirect URIs of 2 KiB and the rest of the metadata fit well under this. */
export const REGISTRATION_MAX_BODY_BYTES = 32 * 1024;

const oauthError = z
  .object({ error: z.string(), error_description: z.string().optional() })
  .openapi("OAuthError");

const registerRoute = createRoute({
  method: "post",
  path: REGISTRATION_PATH,
  tags: ["OAuth"],
  summary:
    "Register an OAuth client (RFC 7591; for MCP clients of the 2025-11-25 revision, the 2026-07-28 revision prefers a Client ID Metadata Document as client_id)",
  description: `Public. Unknown metadata members are ignored and never echoed (RFC 7591 §2). \`redirect_uris\` (required, 1 to ${MAX_REDIRECT_URIS}, each at most ${REDIRECT_URI_MAX_LENGTH} characters): absolute, no fragment, https, or http on localhost/127.0.0.1/[::1], or a private-use scheme (reverse domain name, RFC 8252). \`token_endpoint_auth_method\`: none, client_secret_post or client_secret_basic (default); a confidential client gets \`client_secret\` once. \`grant_types\` ⊆ authorization_code, refresh_token (must include authorization_code); \`response_types\` ⊆ code; \`scope\`: key scopes only. ${REGISTRATION_QUOTA.limit} registrations per client IP per hour (429 with Retry-After). Body at most ${REGISTRATION_MAX_BODY_BYTES / 1024} KiB (413).`,
  request: {
    body: {
      required: true,
      content: {
        "application/json": {
          schema: {
            type: "object",
            // RFC 7591 §2: metadata the server does not understand is ignored (never stored or echoed).
            additionalProperties: true,
            required: ["redirect_uris"],
            properties: {
              redirect_uris: { type: "array", items: { type: "string" } },
              client_name: { type: "string", maxLength: 100 },
              client_uri: { type: "string" },
              logo_uri: { type: "string" },
              token_endpoint_auth_method: {
                type: "string",
                enum: ["none", "client_secret_post", "client_secret_basic"],
              },
              grant_types: {
                type: "array",
                items: { type: "string", enum: ["authorization_code", "refresh_token"] },
              },
              response_types: { type: "array", items: { type: "string", enum: ["code"] } },
              scope: { type: "string" },
            },
          },
        },
      },
    },
  },
  responses: {
    201: {
      description:
        "The client information response (RFC 7591 §3.2.1): client_id, client_id_issued_at, client_secret and client_secret_expires_at (0) when confidential, and the registered metadata",
      content: { "application/json": { schema: { type: "object", additionalProperties: true } } },
    },
    400: {
      description: "invalid_redirect_uri, invalid_client_metadata",
      content: { "application/json": { schema: oauthError } },
    },
    413: {
      description: "invalid_client_metadata (body too large)",
      content: { "application/json": { schema: oauthError } },
    },
    429: {
      description: "temporarily_unavailable (per-IP quota; Retry-After)",
      content: { "application/json": { schema: oauthError } },
    },
  },
});

function registrationAnswer(outcome: RegistrationOutcome): Response {
  if (outcome.kind === "registered") return oauthJson(outcome.body, 201);
  if (outcome.kind === "rate_limited") {
    return oauthJson(
      {
        error: "temporarily_unavailable",
        error_description: "Too many registrations from this address; retry later.",
      },
      429,
      { "Retry-After": String(outcome.retryAfter) },
    );
  }
  return oauthJson({ error: outcome.error, error_description: outcome.description }, 400);
}

/** The body as JSON (`undefined` when it is not JSON), or `tooLarge` past the cap (counted while read). */
async function readRegistrationBody(request: Request): Promise<{ tooLarge: true } | { json: unknown }> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > REGISTRATION_MAX_BODY_BYTES) return { tooLarge: true };
  const bytes = await readCappedBytes(request.body, REGISTRATION_MAX_BODY_BYTES);
  if (bytes === null) return { tooLarge: true };
  try {
    return { json: JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes)) };
  } catch {
    return { json: undefined };
  }
}

export function registerRegistrationRoutes(app: OpenAPIHono<AppEnv>) {
  // Documented, not validated by the declarative validator: the answers are RFC 7591's JSON, not problem+json.
  app.openAPIRegistry.registerPath(registerRoute);
  app.post(REGISTRATION_PATH, async (c) => {
    const body = await readRegistrationBody(c.req.raw);
    if ("tooLarge" in body) {
      return oauthJson(
        {
          error: "invalid_client_metadata",
          error_description: `The body exceeds ${REGISTRATION_MAX_BODY_BYTES / 1024} KiB.`,
        },
        413,
      );
    }
    return registrationAnswer(await registerClient(c.env, c.get("services"), body.json));
  });
  app.options(REGISTRATION_PATH, () => openPreflight("POST"));
}
