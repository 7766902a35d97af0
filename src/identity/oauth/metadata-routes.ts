/**
 * RFC 8414 authorization server metadata (issue 37, docs/decisions/oauth-agents.md "Clients"): what an MCP
 * client reads after the resource's metadata named identity's issuer. Public and the same for everyone:
 * `Access-Control-Allow-Origin: *` (browser-based clients read it), cached 5 minutes.
 *
 * Where: `/.well-known/oauth-authorization-server` + the issuer's path (RFC 8414 §3.1). The issuer has no
 * path (`http://localhost:8787` locally, the public origin in a deploy), so that is the bare well-known
 * path; an issuer with a path would be served at the suffixed form only, and any other suffix is 404 (it
 * names another issuer, whose metadata this is not).
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { SCOPES } from "../../lib/key-scopes";
import type { AppEnv } from "../core/context";
import { jsonResponse } from "../core/schemas";
import { fail } from "../errors";

export const AUTHORIZATION_SERVER_METADATA_PATH = "/.well-known/oauth-authorization-server";

/** The CORS of the authorization server's public machine endpoints: any origin, no credentials. */
export const OPEN_CORS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Expose-Headers": "Retry-After, WWW-Authenticate",
} as const;

/** The preflight of those endpoints (`methods`: what the path serves). */
export function openPreflight(methods: string): Response {
  return new Response(null, {
    status: 204,
    headers: {
      ...OPEN_CORS,
      "Access-Control-Allow-Methods": `${methods}, OPTIONS`,
      "Access-Control-Allow-Headers": "Authorization, Content-Type, MCP-Protocol-Version",
      "Access-Control-Max-Age": "600",
    },
  });
}

const AuthorizationServerMetadata = z
  .object({
    issuer: z.string(),
    authorization_endpoint: z.string(),
    token_endpoint: z.string(),
    registration_endpoint: z.string(),
    revocation_endpoint: z.string(),
    jwks_uri: z.string(),
    scopes_supported: z.array(z.string()),
    response_types_supported: z.array(z.string()),
    response_modes_supported: z.array(z.string()),
    grant_types_supported: z.array(z.string()),
    code_challenge_methods_supported: z.array(z.string()),
    token_endpoint_auth_methods_supported: z.array(z.string()),
    revocation_endpoint_auth_methods_supported: z.array(z.string()),
    client_id_metadata_document_supported: z.boolean(),
    authorization_response_iss_parameter_supported: z.boolean(),
    service_documentation: z.string(),
  })
  .openapi("AuthorizationServerMetadata");

const metadataRoute = createRoute({
  method: "get",
  path: AUTHORIZATION_SERVER_METADATA_PATH,
  tags: ["Discovery"],
  summary:
    "OAuth 2.1 authorization server metadata (RFC 8414) of MCP agents: the endpoints, PKCE S256, Client ID Metadata Documents and RFC 7591 registration, `iss` in the authorization response (RFC 9207)",
  responses: { 200: jsonResponse("Authorization server metadata", AuthorizationServerMetadata) },
});

const AUTH_METHODS = ["none", "client_secret_post", "client_secret_basic"];

/** The metadata of `issuer` (identity's ISSUER, exactly: the MCP client compares it with what it asked). */
export function authorizationServerMetadata(issuer: string): z.infer<typeof AuthorizationServerMetadata> {
  return {
    issuer,
    authorization_endpoint: `${issuer}/auth/authorize`,
    token_endpoint: `${issuer}/api/v1/auth/oauth/token`,
    registration_endpoint: `${issuer}/api/v1/auth/oauth/register`,
    revocation_endpoint: `${issuer}/api/v1/auth/oauth/revoke`,
    jwks_uri: `${issuer}/.well-known/jwks.json`,
    scopes_supported: [...SCOPES],
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: AUTH_METHODS,
    revocation_endpoint_auth_methods_supported: AUTH_METHODS,
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${issuer}/docs/identity`,
  };
}

/** The issuer's path as RFC 8414 §3.1 inserts it after the well-known name ("" when it has none). */
function issuerPath(issuer: string): string {
  const path = new URL(issuer).pathname;
  return path === "/" ? "" : path.replace(/\/$/, "");
}

/** 404 unless `askedSuffix` is the issuer's path (the metadata of another issuer is not ours to answer). */
function requireIssuerSuffix(issuer: string, askedSuffix: string): void {
  if (askedSuffix !== issuerPath(issuer)) fail("NOT_FOUND", "No such resource.");
}

const METADATA_HEADERS = { ...OPEN_CORS, "Cache-Control": "public, max-age=300" };

export function registerMetadataRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(metadataRoute, (c) => {
    requireIssuerSuffix(c.env.ISSUER, "");
    return c.json(authorizationServerMetadata(c.env.ISSUER), 200, METADATA_HEADERS);
  });
  app.get(`${AUTHORIZATION_SERVER_METADATA_PATH}/*`, (c) => {
    requireIssuerSuffix(c.env.ISSUER, c.req.path.slice(AUTHORIZATION_SERVER_METADATA_PATH.length));
    return c.json(authorizationServerMetadata(c.env.ISSUER), 200, METADATA_HEADERS);
  });
  app.options(AUTHORIZATION_SERVER_METADATA_PATH, () => openPreflight("GET"));
  app.options(`${AUTHORIZATION_SERVER_METADATA_PATH}/*`, () => openPreflight("GET"));
}
