/**
 * RFC 9728 protected resource metadata of `/v1/mcp` (issue 37, docs/decisions/oauth-agents.md): how an
 * MCP client learns, from the `resource_metadata` of a 401's challenge, which authorization server issues
 * tokens for this resource and which scopes it understands. Content serves it because it owns the resource
 * and its scopes; the gateway routes these two paths here (every other `/.well-known/*` is identity's).
 *
 * Both paths answer the same document: `/.well-known/oauth-protected-resource/v1/mcp` is the RFC 9728 §3.1
 * location of the resource `${TOKEN_ISSUER}/v1/mcp`; the bare path serves clients that look there first
 * (the MCP authorization spec's fallback order). Public, the same for everyone: CORS `*`, cacheable 5 min.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { MCP_PATH } from "../../lib/body-caps";
import type { AppEnv } from "../core/bindings";
import { mcpResource } from "../keys/agent-token";
import { SCOPES } from "../keys/scopes";

export const RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource";

/** Seconds a client or cache may keep the document. */
const MAX_AGE_S = 300;

const ResourceMetadataSchema = z
  .object({
    resource: z
      .string()
      .openapi({ description: "The resource identifier (RFC 8707): the issuer followed by /v1/mcp" }),
    authorization_servers: z.array(z.string()).openapi({ description: "Identity's issuer" }),
    scopes_supported: z.array(z.string()),
    bearer_methods_supported: z.array(z.literal("header")),
    resource_name: z.string(),
    resource_documentation: z.string(),
  })
  .openapi("ProtectedResourceMetadata");

/** The document (RFC 9728 §2) for identity's `issuer`. */
export function resourceMetadata(issuer: string): z.infer<typeof ResourceMetadataSchema> {
  return {
    resource: mcpResource(issuer),
    authorization_servers: [issuer],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ["header"],
    resource_name: "Content Publishing API (MCP)",
    resource_documentation: `${issuer}/docs/content`,
  };
}

function metadataRoute(path: string) {
  return createRoute({
    method: "get",
    path,
    tags: ["MCP"],
    summary:
      path === RESOURCE_METADATA_PATH
        ? "OAuth protected resource metadata of /v1/mcp (RFC 9728), at the bare well-known path"
        : "OAuth protected resource metadata of /v1/mcp (RFC 9728 §3.1 location)",
    responses: {
      200: {
        description: "The metadata document (CORS *, cacheable 5 minutes)",
        content: { "application/json": { schema: ResourceMetadataSchema } },
      },
    },
  });
}

export function registerResourceMetadataRoutes(app: OpenAPIHono<AppEnv>) {
  for (const path of [RESOURCE_METADATA_PATH, `${RESOURCE_METADATA_PATH}${MCP_PATH}`]) {
    app.openapi(metadataRoute(path), (c) =>
      c.json(resourceMetadata(c.env.TOKEN_ISSUER), 200, {
        "access-control-allow-origin": "*",
        "cache-control": `public, max-age=${MAX_AGE_S}`,
      }),
    );
  }
}
