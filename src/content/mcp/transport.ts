/**
 * The transport of `/v1/mcp` (Streamable HTTP, stateless, JSON answers): one POST is one server and one
 * transport, closed once answered. The route (routes.ts) authenticates before any of this runs.
 */
import { StreamableHTTPTransport } from "@hono/mcp";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { MCP_UPLOAD_MESSAGE_MAX_BYTES, MIB } from "../../lib/body-caps";
import { fail } from "../errors";
import type { ToolContext } from "./dispatch";
import { jsonRpcError, MAX_BATCH, mcpServer } from "./server";
import { type ToolDefinition, UPLOAD_MEDIA_TOOL } from "./tools";

/** A JSON-RPC message of an MCP request (a create_post with a 1 MiB body fits). */
export const MCP_BODY_MAX_BYTES = 2 * MIB;

/**
 * The one message allowed above `MCP_BODY_MAX_BYTES` (up to `MCP_UPLOAD_MESSAGE_MAX_BYTES`, the edge's
 * cap of this path): a single `tools/call` of upload_media, whose base64 image is 4/3 of up to 8 MiB.
 */
function isUploadCall(message: unknown): boolean {
  if (message === null || typeof message !== "object" || Array.isArray(message)) return false;
  const { method, params } = message as { method?: unknown; params?: { name?: unknown } | null };
  return method === "tools/call" && params?.name === UPLOAD_MEDIA_TOOL;
}

export const tooLargeDetail = `An MCP message is at most ${MCP_BODY_MAX_BYTES} bytes (${MCP_UPLOAD_MESSAGE_MAX_BYTES} bytes for one ${UPLOAD_MEDIA_TOOL} call).`;

/** One MCP POST: a fresh server and transport (JSON answers, no session id), closed once answered. */
export async function handleMcpRequest(
  c: Context,
  catalogue: readonly ToolDefinition[],
  context: ToolContext,
): Promise<Response> {
  const size = (await c.req.arrayBuffer()).byteLength;
  const body = await c.req.json().catch(() => undefined);
  if (size > MCP_BODY_MAX_BYTES && !isUploadCall(body)) fail("PAYLOAD_TOO_LARGE", tooLargeDetail);
  if (Array.isArray(body) && body.length > MAX_BATCH) {
    return jsonRpcError(400, -32600, `Invalid Request: at most ${MAX_BATCH} messages in one batch.`);
  }
  const server = mcpServer(catalogue, context);
  const transport = new StreamableHTTPTransport({ enableJsonResponse: true });
  await server.connect(transport);
  try {
    const response = (await transport.handleRequest(c)) ?? c.body(null, 202);
    response.headers.set("cache-control", "no-store");
    return response;
  } catch (error) {
    // The transport's own refusals (406, 415, a body that is not JSON-RPC) are JSON-RPC error answers.
    if (error instanceof HTTPException) return error.getResponse();
    throw error;
  } finally {
    await server.close();
  }
}
