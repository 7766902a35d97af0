/**
 * Running a tool: its arguments become the HTTP request of its operation (path, query and header
 * parameters, JSON body; or, for upload_media_from_url, the upload form with the image image ingest
 * fetched), which goes through the content app itself with the caller's key. So validation, scope
 * checks, quotas, idempotency and error codes are the API's own; the answer becomes the tool result.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { readCappedBytes } from "../../lib/capped-body";
import type { Logger } from "../../lib/log";
import { ApiError, problemBody } from "../../lib/problem";
import { fail, problem } from "../errors";
import { requireScopes } from "../keys/api-key";
import type { KeyContext } from "../keys/key-context";
import type { ImageFetcher } from "../media/ingest";
import { UPLOAD_MAX_BYTES } from "../media/upload";
import { type ToolDefinition, toolVisible } from "./tools";

/** What a tool call runs with: the caller's request, as the content app sees it. */
export interface ToolContext {
  /** The content app's fetch, with the MCP request's env and execution context. */
  fetch(request: Request): Promise<Response>;
  /** Origin of the MCP request (the internal requests go to the same service). */
  origin: string;
  /** Headers every internal request carries: the caller's Authorization, client IP, request id. */
  headers: Record<string, string>;
  key: KeyContext;
  images: ImageFetcher;
  log: Logger;
}

/** A tool's answer is read up to this size (the import's limit: an export larger than it cannot be fed back). */
export const MAX_RESULT_BYTES = 8 * 1024 * 1024;

/** Response headers a caller acts on: passed on with the result. */
const NOTABLE_HEADERS = ["etag", "location", "idempotency-replayed", "retry-after"];

interface RequestParts {
  path: string;
  query: URLSearchParams;
  headers: Record<string, string>;
  json?: string;
  form: Record<string, string>;
  url?: string;
  /** upload_media's `data`: the file in base64. */
  base64?: string;
}

function scalar(name: string, value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  fail("BAD_REQUEST", `${name}: expected a string.`);
}

function requestParts(definition: ToolDefinition, args: Record<string, unknown>): RequestParts {
  const unknown = Object.keys(args).filter((name) => !Object.hasOwn(definition.arguments, name));
  if (unknown.length > 0) {
    const known = Object.keys(definition.arguments).join(", ") || "no arguments";
    // Named as every unknown field is (issue 33): its path and every unknown name in details.
    fail("BAD_REQUEST", {
      detail: `Unknown argument(s): ${unknown.join(", ")}. ${definition.spec.name} takes ${known}.`,
      details: { path: unknown[0]!, unknown },
    });
  }
  const parts: RequestParts = {
    path: definition.spec.path,
    query: new URLSearchParams(),
    headers: {},
    form: {},
  };
  for (const [name, argument] of Object.entries(definition.arguments)) {
    const value = args[name];
    const absent = value === undefined || ((value === null || value === "") && argument.in !== "body");
    if (absent) {
      if (argument.required) fail("BAD_REQUEST", `${name}: required.`);
      continue;
    }
    if (argument.in === "body") parts.json = JSON.stringify(value);
    else if (argument.in === "path")
      parts.path = parts.path.replace(`{${argument.name}}`, encodeURIComponent(scalar(name, value)));
    else if (argument.in === "query") parts.query.set(argument.name, scalar(name, value));
    else if (argument.in === "header") parts.headers[argument.name] = scalar(name, value);
    else if (argument.in === "form") parts.form[argument.name] = scalar(name, value);
    else if (argument.in === "bytes") parts.base64 = scalar(name, value);
    else parts.url = scalar(name, value);
  }
  return parts;
}

/** With a length that is a multiple of 4: padded base64 (one character class: no backtracking on 11 MB). */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * upload_media's `data` as bytes: refused by its length before anything is decoded when the file would be
 * above the upload's 8 MiB (the tool error names the limit), and when it is not padded base64.
 */
function decodeBase64File(data: string): Uint8Array {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  const decoded = Math.floor(data.length / 4) * 3 - padding;
  if (decoded > UPLOAD_MAX_BYTES) {
    fail("PAYLOAD_TOO_LARGE", {
      detail: `data: the file is ${decoded} bytes decoded; an upload is at most ${UPLOAD_MAX_BYTES} bytes (8 MiB).`,
      details: { path: "data", max_bytes: UPLOAD_MAX_BYTES, bytes: decoded },
    });
  }
  if (data.length % 4 !== 0 || !BASE64.test(data)) {
    fail("BAD_REQUEST", {
      detail: "data: expected the file in base64 (RFC 4648: A-Z a-z 0-9 + /, padded with =, no line breaks).",
      details: { path: "data" },
    });
  }
  const text = atob(data);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

/** The image of upload_media_from_url, fetched by image ingest; refusals as the API's problems. */
async function fetchedFile(parts: RequestParts, context: ToolContext): Promise<File> {
  const outcome = await context.images.fetchImage(parts.url ?? "");
  context.log.info("mcp_media_url", {
    outcome: outcome.kind,
    reason: outcome.kind === "ok" ? undefined : outcome.reason,
  });
  if (outcome.kind === "transient") {
    fail("MEDIA_URL_UNAVAILABLE", {
      detail: `The image could not be fetched now (${outcome.reason}); retry later.`,
      details: { reason: outcome.reason },
    });
  }
  if (outcome.kind === "rejected") {
    fail("MEDIA_URL_REFUSED", {
      detail: `The image URL was refused (${outcome.reason}).`,
      details: { reason: outcome.reason },
    });
  }
  return new File([outcome.bytes], `image.${outcome.ext}`, { type: outcome.contentType });
}

/**
 * The upload form of upload_media and upload_media_from_url: the scope first (nothing fetched or decoded
 * for a key that may not upload), then the file, then the form's other fields.
 */
async function uploadForm(
  definition: ToolDefinition,
  parts: RequestParts,
  context: ToolContext,
): Promise<FormData> {
  if (!toolVisible(definition, context.key.scopes))
    requireScopes(context.key.scopes, definition.scopeSets[0] ?? []);
  const file = definition.spec.fileFromBytes
    ? new File([decodeBase64File(parts.base64 ?? "")], "upload", { type: "application/octet-stream" })
    : await fetchedFile(parts, context);
  const form = new FormData();
  form.set("file", file);
  for (const [field, value] of Object.entries(parts.form)) form.set(field, value);
  return form;
}

async function toolRequest(
  definition: ToolDefinition,
  args: Record<string, unknown>,
  context: ToolContext,
): Promise<Request> {
  const parts = requestParts(definition, args);
  const query = parts.query.toString();
  const url = new URL(`${context.origin}${parts.path}${query ? `?${query}` : ""}`);
  // A path parameter of "." or ".." would be normalized into another path: no post has such a reference.
  if (url.pathname !== parts.path) throw problem("NOT_FOUND", "No such resource.");
  const headers: Record<string, string> = { ...context.headers, ...parts.headers };
  let body: BodyInit | undefined;
  if (definition.spec.fileFromUrl || definition.spec.fileFromBytes)
    body = await uploadForm(definition, parts, context);
  else if (parts.json !== undefined) {
    headers["content-type"] = "application/json";
    body = parts.json;
  }
  return new Request(url, { method: definition.spec.method, headers, body });
}

/** The body as text, refused past `MAX_RESULT_BYTES` (counted while streaming). */
async function readCapped(response: Response): Promise<string> {
  const bytes = await readCappedBytes(response.body, MAX_RESULT_BYTES);
  if (!bytes) {
    fail(
      "PAYLOAD_TOO_LARGE",
      "The answer is larger than 8 MiB: call the HTTP API for it (GET /v1/export streams).",
    );
  }
  return new TextDecoder().decode(bytes);
}

function withHeaders(result: CallToolResult, response: Response): CallToolResult {
  const headers = Object.fromEntries(
    NOTABLE_HEADERS.flatMap((name) => {
      const value = response.headers.get(name);
      return value === null ? [] : [[name, value]];
    }),
  );
  if (Object.keys(headers).length === 0) return { ...result, _meta: { http_status: response.status } };
  return {
    ...result,
    content: [
      ...result.content,
      { type: "text", text: `HTTP ${response.status}; headers: ${JSON.stringify(headers)}` },
    ],
    _meta: { http_status: response.status, http_headers: headers },
  };
}

/** A problem+json body as a tool error: status, code, detail (and details) for the agent to act on. */
function problemResult(problem: Record<string, unknown>): CallToolResult {
  return {
    isError: true,
    content: [{ type: "text", text: JSON.stringify(problem) }],
    structuredContent: problem,
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

async function toolResult(response: Response): Promise<CallToolResult> {
  const type = response.headers.get("content-type") ?? "";
  const text = await readCapped(response);
  const json = /json/i.test(type) ? parseJson(text) : undefined;
  const object =
    json !== null && typeof json === "object" && !Array.isArray(json)
      ? (json as Record<string, unknown>)
      : undefined;
  if (!response.ok) {
    // Every error of the app is problem+json; anything else is a bug, answered redacted.
    if (!object || typeof object.code !== "string")
      throw new Error(`operation answered ${response.status} without a problem`);
    return withHeaders(problemResult(object), response);
  }
  const result: CallToolResult = {
    content: [{ type: "text", text }],
    ...(object ? { structuredContent: object } : {}),
  };
  return withHeaders(result, response);
}

function errorResult(error: ApiError): CallToolResult {
  return problemResult({
    ...problemBody(error.status, error.code, error.detail, error.details),
    ...error.extensions,
  });
}

/** A call of a tool that does not exist: 404 as a tool error, naming the tools the key has. */
export function unknownTool(name: string, visible: readonly { name: string }[]): CallToolResult {
  const tools = visible.map((t) => t.name).join(", ");
  return errorResult(problem("NOT_FOUND", `Unknown tool: ${name}. This key's tools: ${tools}.`));
}

/** What delete_post read before deleting (PostSource's members). */
interface DeletedPost {
  id: string;
  slug: string;
  title: string;
  language: string;
  status: string;
}

/**
 * delete_post: the post read first (its source, with the caller's key and arguments), then deleted by the
 * id read, so the answer names exactly the post deleted, whatever the reference was (a slug freed and
 * taken again in between cannot redirect the delete). A refusal of either step is the tool's error.
 */
async function deleteAfterReading(
  definition: ToolDefinition,
  args: Record<string, unknown>,
  context: ToolContext,
): Promise<CallToolResult> {
  const { read, byId } = definition.spec.deletesAfterReading!;
  const reading = { ...definition, spec: { ...definition.spec, method: "GET" as const, path: read } };
  const before = await context.fetch(await toolRequest(reading, args, context));
  if (!before.ok) return toolResult(before);
  const post = JSON.parse(await readCapped(before)) as DeletedPost;
  const deleting = await toolRequest(definition, { [byId]: post.id }, context);
  const response = await context.fetch(deleting);
  if (!response.ok) return toolResult(response);
  await response.body?.cancel();
  const deleted = {
    id: post.id,
    slug: post.slug,
    title: post.title,
    language: post.language,
    status_before: post.status,
  };
  return {
    content: [{ type: "text", text: JSON.stringify(deleted) }],
    structuredContent: deleted,
    _meta: { http_status: response.status },
  };
}

/** Runs the tool as its operation, with the caller's key; every refusal is a tool error, never a crash. */
export async function runTool(
  definition: ToolDefinition,
  args: Record<string, unknown>,
  context: ToolContext,
): Promise<CallToolResult> {
  try {
    if (definition.spec.deletesAfterReading) return await deleteAfterReading(definition, args, context);
    const response = await context.fetch(await toolRequest(definition, args, context));
    return await toolResult(response);
  } catch (error) {
    if (error instanceof ApiError) {
      context.log.info("mcp_tool_refused", {
        tool: definition.spec.name,
        status: error.status,
        code: error.code,
      });
      return errorResult(error);
    }
    context.log.error("mcp_tool_failed", { tool: definition.spec.name, error: String(error) });
    return errorResult(problem("INTERNAL_ERROR", "An internal error occurred."));
  }
}
