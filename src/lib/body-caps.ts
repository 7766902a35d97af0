/**
 * The largest request bodies the public origin accepts, one rule for both of its doors (the gateway's
 * forward, src/gateway/index.ts, and content's own public routes, src/content/core/public-edge.ts):
 * - any path: 9 MiB (uploads and imports are capped at 8 MiB inside; the margin is multipart framing);
 * - `/v1/mcp`: 12 MiB, so one `upload_media` tool call carrying 8 MiB of image as base64 (4/3 of it,
 *   10.67 MiB) and its JSON-RPC framing fits. Content's MCP route then holds every other MCP message to
 *   its own 2 MiB (src/content/mcp/routes.ts), so the raised cap is for that one tool only.
 */

export const MIB = 1024 * 1024;

/** The cap of every public path but `/v1/mcp`. */
export const MAX_PUBLIC_BODY_BYTES = 9 * MIB;

/** The length of the base64 text of `bytes` bytes (padded). */
export function base64Length(bytes: number): number {
  return Math.ceil(bytes / 3) * 4;
}

/**
 * One MCP message calling `upload_media`: the largest upload's base64 text (8 MiB decoded,
 * src/content/media/upload.ts; 10.67 MiB as text) plus 1.33 MiB for the JSON-RPC envelope and the tool's
 * other arguments (alt text, caption, folder, tags).
 */
export const MCP_UPLOAD_MESSAGE_MAX_BYTES = 12 * MIB;

export const MCP_PATH = "/v1/mcp";

/** The body cap of a public path. */
export function publicBodyCap(pathname: string): number {
  return pathname === MCP_PATH ? MCP_UPLOAD_MESSAGE_MAX_BYTES : MAX_PUBLIC_BODY_BYTES;
}

/** The problem detail of a body above `cap`. */
export function bodyCapDetail(cap: number): string {
  return `The body exceeds ${cap / MIB} MiB.`;
}
