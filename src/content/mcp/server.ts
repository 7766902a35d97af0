/**
 * The MCP server of one request (stateless Streamable HTTP: every request carries its credential, so there
 * is no session to keep; the transport, which reads the request and picks the protocol era, is
 * transport.ts). One `Server` of the v2 SDK (`@modelcontextprotocol/server`) serves both eras: a 2026-07-28
 * request (per-request `_meta`, no handshake) and a 2025-11-25 one (`initialize` first, then requests).
 * `tools/list` answers the tools the key's scopes reach, `tools/call` runs any tool as its operation (a tool
 * outside the key's scopes is refused by the operation itself, 403 INSUFFICIENT_SCOPE naming the missing
 * scopes).
 */
import { type jsonSchemaValidator, Server } from "@modelcontextprotocol/server";
import { runTool, type ToolContext, unknownTool } from "./dispatch";
import { type ToolDefinition, toolVisible } from "./tools";

export const MCP_SERVER_INFO = { name: "content", title: "Content Publishing API", version: "1.0.0" };

const INSTRUCTIONS =
  "Tools of the Content Publishing API for one site: your API key's (ck_), or the site you approved for this agent (OAuth). Each tool is one API operation and answers its JSON body; a refusal is a tool error carrying the API's problem (status, code, detail). Posts are referenced by id or slug. Create a post with create_post (status published publishes it), edit with update_post, read drafts with get_post_source. Only the tools your key's scopes (or the agent's approved scopes, as far as your role still allows them) reach are listed.";

/** The server never asks the client for input (no elicitation), so it needs no JSON Schema validator. */
const NO_VALIDATION: jsonSchemaValidator = {
  getValidator: () => () => ({ valid: false, data: undefined, errorMessage: "not supported" }),
};

/**
 * A fresh server answering the key's tools (one per request: no session to keep). Its capabilities declare
 * tools without `listChanged`: a key's tools do not change while it lives, so a 2026-07-28
 * `subscriptions/listen` is acknowledged with nothing honoured and its stream ends at once.
 */
export function mcpServer(catalogue: readonly ToolDefinition[], context: ToolContext): Server {
  const server = new Server(MCP_SERVER_INFO, {
    capabilities: { tools: {} },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: NO_VALIDATION,
  });
  const visible = catalogue.filter((d) => toolVisible(d, context.key.scopes)).map((d) => d.tool);
  server.setRequestHandler("tools/list", () => ({ tools: visible }));
  server.setRequestHandler("tools/call", async (request) => {
    const definition = catalogue.find((d) => d.spec.name === request.params.name);
    // As the SDK's McpServer answers an unknown tool: a tool error (here the API's 404 problem).
    if (!definition) return unknownTool(request.params.name, visible);
    const result = await runTool(definition, request.params.arguments ?? {}, context);
    // The era's wire projection of a result (the SDK's one place for it; our results are objects with text).
    return server.projectCallToolResult(result, definition.tool.outputSchema);
  });
  return server;
}

/**
 * Messages one POST may batch (2025-era clients only: the 2026-07-28 revision has no batches): each tool call
 * is an API request with its storage hops, and a Worker invocation has a bounded number of them (the key's
 * quotas bound the rate, this bounds one request).
 */
export const MAX_BATCH = 20;

export function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });
}

/**
 * GET (a standalone SSE stream) and DELETE (end a session) mean nothing without sessions: 405, as both
 * revisions ask of a server without them (2026-07-28 removed the GET stream and sessions altogether).
 */
export function mcpMethodNotAllowed(): Response {
  const response = jsonRpcError(405, -32000, "Method not allowed: this MCP server is stateless; POST only.");
  response.headers.set("allow", "POST");
  return response;
}
