/**
 * The transport of `/v1/mcp` (Streamable HTTP, stateless, JSON answers): one POST is one server, closed once
 * answered. The route (routes.ts) authenticates before any of this runs. Two protocol eras share the
 * endpoint, told apart by the v2 SDK's own classification (`isLegacyRequest`, the very step its
 * `createMcpHandler` routes on):
 *
 * - 2026-07-28 (a request carrying the per-request `_meta` claim, or a modern `MCP-Protocol-Version`
 *   header): the SDK's modern path (`createMcpHandler`, 2025 traffic refused there since it never reaches
 *   it). It checks `MCP-Protocol-Version` against `_meta` and `Mcp-Method` / `Mcp-Name` against the body
 *   (400, -32020 HeaderMismatch), answers an unsupported revision with 400 and -32022 naming the supported
 *   ones, serves `server/discover`, and refuses a batch.
 * - 2025-11-25 and earlier (no claim: `initialize`, then plain requests): the SDK's stateless Streamable
 *   HTTP transport with JSON answers, as before; it checks a 2025 `MCP-Protocol-Version` header itself.
 *
 * Neither path issues an `Mcp-Session-Id`. The limits are ours and come first: the body caps (with the
 * upload_media exception) and the batch cap.
 */
import {
  classifyInboundRequest,
  createMcpHandler,
  isLegacyRequest,
  SUPPORTED_PROTOCOL_VERSIONS,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
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

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Which revision a request speaks, by the SDK's classification. */
type McpEra = "2026-07-28" | "2025-11-25";

/**
 * The era of a request: the SDK's routing (`isLegacyRequest`), but for one case. A body that is JSON and no
 * JSON-RPC message at all names no era; the modern path would answer it -32600, where 2025 clients of this
 * endpoint have always been answered -32700 (parse error), so without a `MCP-Protocol-Version` header it
 * goes where it always went.
 */
async function eraOf(request: Request, body: unknown): Promise<McpEra> {
  const options = { maxRequestBodySize: MCP_UPLOAD_MESSAGE_MAX_BYTES };
  if (await isLegacyRequest(request, body, options)) return "2025-11-25";
  if (request.headers.has("mcp-protocol-version")) return "2026-07-28";
  const outcome = classifyInboundRequest({ httpMethod: "POST", body });
  return outcome.kind === "reject" && outcome.cell === "invalid-json-rpc-body" ? "2025-11-25" : "2026-07-28";
}

/**
 * One MCP POST, answered by the era it speaks; never a session id, never cached. `request` gives the URL,
 * headers and abort signal; `bytes` is its body, read once by the route (which may have read it already).
 */
export async function handleMcpRequest(
  request: Request,
  bytes: ArrayBuffer,
  catalogue: readonly ToolDefinition[],
  context: ToolContext,
): Promise<Response> {
  const body = parseJson(new TextDecoder().decode(bytes));
  if (bytes.byteLength > MCP_BODY_MAX_BYTES && !isUploadCall(body)) fail("PAYLOAD_TOO_LARGE", tooLargeDetail);
  if (Array.isArray(body) && body.length > MAX_BATCH) {
    return jsonRpcError(400, -32600, `Invalid Request: at most ${MAX_BATCH} messages in one batch.`);
  }
  // The body was read here (its caps): the SDK gets it parsed, and a request it may read again for a body
  // that is not JSON (then answered as a parse error).
  const copy = new Request(request.url, {
    method: "POST",
    headers: request.headers,
    body: bytes,
    signal: request.signal,
  });
  const era = await eraOf(copy, body);
  const response =
    era === "2026-07-28"
      ? await serveModern(copy, body, catalogue, context)
      : await serveLegacy(copy, body, catalogue, context);
  // A JSON answer is read into a fresh response: the SDK's headers may be immutable, ours are added.
  const answer = new Response(response.body, response);
  answer.headers.set("cache-control", "no-store");
  answer.headers.delete("mcp-session-id");
  return answer;
}

/**
 * 2026-07-28: the SDK's modern path with one server for this request. `legacy: "reject"` only because this
 * handler never sees 2025 traffic (handleMcpRequest routes it to serveLegacy); `json` answers because no
 * tool sends a notification before its result.
 */
async function serveModern(
  request: Request,
  body: unknown,
  catalogue: readonly ToolDefinition[],
  context: ToolContext,
): Promise<Response> {
  const handler = createMcpHandler(() => mcpServer(catalogue, context), {
    legacy: "reject",
    maxRequestBodySize: MCP_UPLOAD_MESSAGE_MAX_BYTES,
    onerror: (error) => context.log.info("mcp_refused", { era: "2026-07-28", reason: error.message }),
  });
  try {
    const response = await handler.fetch(request, body === undefined ? {} : { parsedBody: body });
    return response.status === 400 ? await namingEveryRevision(response) : response;
  } finally {
    await handler.close();
  }
}

/** The -32022 code of UnsupportedProtocolVersionError (2026-07-28). */
const UNSUPPORTED_PROTOCOL_VERSION = -32022;

/**
 * The SDK's UnsupportedProtocolVersionError lists the revisions of its modern path only; this endpoint also
 * serves the 2025 ones (serveLegacy), and the revision asks the error to list every version the server
 * supports, so they are added (a client then picks a mutual one, or knows to fall back to `initialize`).
 */
async function namingEveryRevision(response: Response): Promise<Response> {
  const text = await response.text();
  const answer = parseJson(text) as
    | { error?: { code?: unknown; data?: { supported?: unknown } } }
    | undefined;
  const error = answer?.error;
  const supported = error?.data?.supported;
  if (error?.code !== UNSUPPORTED_PROTOCOL_VERSION || !Array.isArray(supported)) {
    return new Response(text, response);
  }
  error.data = { ...error.data, supported: [...new Set([...supported, ...SUPPORTED_PROTOCOL_VERSIONS])] };
  return Response.json(answer, { status: response.status, headers: response.headers });
}

/** 2025-11-25 and earlier: stateless Streamable HTTP (no session id), JSON answers, one server. */
async function serveLegacy(
  request: Request,
  body: unknown,
  catalogue: readonly ToolDefinition[],
  context: ToolContext,
): Promise<Response> {
  const server = mcpServer(catalogue, context);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: MCP_UPLOAD_MESSAGE_MAX_BYTES,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, body === undefined ? {} : { parsedBody: body });
  } finally {
    await server.close();
  }
}
