import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { problemResponses } from "../../lib/app";
import { MCP_PATH, MCP_UPLOAD_MESSAGE_MAX_BYTES } from "../../lib/body-caps";
import type { AppEnv } from "../core/bindings";
import { fail } from "../errors";
import type { KeyRequirement } from "../keys/api-key";
import { clientIp, requireKey, security } from "../keys/middleware";
import { type OpenApiDocument, toolCatalogue } from "./catalogue";
import type { ToolContext } from "./dispatch";
import { mcpMethodNotAllowed } from "./server";
import { TOOL_SPECS, type ToolDefinition } from "./tools";
import { handleMcpRequest, tooLargeDetail } from "./transport";

/**
 * Any valid ck_ key of a live site; a pk_ key is refused (403: it lives in browsers and is bound to their
 * origins). Each MCP request costs one read; each tool call then costs what its operation costs.
 */
const MCP_KEY: KeyRequirement = { kinds: "secret", scopes: [], quota: "read" };

type App = OpenAPIHono<AppEnv>;

const catalogues = new WeakMap<App, ToolDefinition[]>();

/** The tools, read once per isolate from the app's OpenAPI document. */
function catalogueOf(app: App): ToolDefinition[] {
  let catalogue = catalogues.get(app);
  if (!catalogue) {
    const document = app.getOpenAPI31Document({
      openapi: "3.1.0",
      info: { title: "content", version: "mcp" },
    });
    catalogue = toolCatalogue(document as unknown as OpenApiDocument, TOOL_SPECS);
    catalogues.set(app, catalogue);
  }
  return catalogue;
}

/** A tool call's requests: the MCP request's key, client IP and request id, through this app. */
function toolContext(c: Context<AppEnv>, app: App): ToolContext {
  const headers: Record<string, string> = {
    authorization: c.req.header("authorization") ?? "",
    "cf-connecting-ip": clientIp(c),
  };
  const requestId = c.get("log").requestId;
  if (requestId) headers["x-request-id"] = requestId;
  return {
    fetch: async (request) => app.fetch(request, c.env, c.executionCtx),
    origin: new URL(c.req.url).origin,
    headers,
    key: c.get("auth"),
    images: c.get("services").images,
    log: c.get("log"),
  };
}

/** The stream is cut at the upload call's cap; a message of another kind is then held to its 2 MiB. */
const limitBody = bodyLimit({
  maxSize: MCP_UPLOAD_MESSAGE_MAX_BYTES,
  onError: () => fail("PAYLOAD_TOO_LARGE", tooLargeDetail),
});

export function registerMcpRoute(app: App) {
  app.openAPIRegistry.registerPath({
    method: "post",
    path: MCP_PATH,
    tags: ["MCP"],
    summary: "MCP server for AI agents (Streamable HTTP, stateless)",
    description: `Model Context Protocol over Streamable HTTP (JSON answers, no session; GET and DELETE are 405). Authorization: Bearer ck_… (any scope; a pk_ key is 403); a missing, invalid or revoked key is 401 problem+json before any MCP processing. Each request costs one read of the key's quota. Tools (listed only when the key's scopes reach their operation; each runs as its operation with the same key, so validation, scopes, quotas, idempotency and error codes are the API's; a refusal is a tool result with isError and the problem as structuredContent): ${TOOL_SPECS.map((t) => `${t.name} (${t.method} ${t.path})`).join(", ")}. Input schemas are this document's parameters and request bodies of those operations.`,
    security: security(MCP_KEY.kinds, MCP_KEY.scopes),
    request: {
      body: {
        required: true,
        content: {
          "application/json": {
            // Declared open (issue 33): the message's members are JSON-RPC 2.0's and MCP's (`_meta`, and
            // whatever later protocol revisions add), read by the MCP SDK, not by this document; a tool's
            // arguments are checked by the tool's input schema and then by its operation (strict bodies).
            schema: {
              type: "object",
              additionalProperties: true,
              description:
                "A JSON-RPC 2.0 message of the Model Context Protocol (or a batch of them). Open: its members are the protocol's, read by the MCP server; a tool's arguments are checked by the tool's input schema and its operation, which refuse an unknown field.",
            },
          },
        },
      },
    },
    responses: {
      200: {
        description: "The JSON-RPC answer",
        content: { "application/json": { schema: { type: "object" } } },
      },
      202: { description: "Accepted (a notification or a response: nothing to answer)" },
      ...problemResponses({
        401: "Key missing, invalid or revoked",
        403: "A pk_ key",
        413: "Message above 2 MiB (12 MiB for one upload_media call)",
        429: "Quota",
      }),
    },
  });
  app.post(MCP_PATH, requireKey(MCP_KEY), limitBody, (c) =>
    handleMcpRequest(c, catalogueOf(app), toolContext(c, app)),
  );
  app.on(["GET", "DELETE"], MCP_PATH, requireKey(MCP_KEY), () => mcpMethodNotAllowed());
}
