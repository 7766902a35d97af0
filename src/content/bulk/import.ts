/**
 * `POST /v1/import`: NDJSON of CreatePost lines, each imported on its own (a failed line never stops the
 * others), idempotent by line content.
 */
import { describeIssues } from "../../lib/input-issues";
import { ApiError } from "../../lib/problem";
import { requireAuthorshipContext } from "../authors/personas";
import type { Env, Services } from "../core/bindings";
import { canonicalJson } from "../core/idempotency-store";
import { fail, problem } from "../errors";
import type { KeyContext } from "../keys/key-context";
import { sha256Base64url } from "../keys/key-hash";
import { type CheckedBlocks, checkBlocks } from "../posts/blocks/write";
import { bodyBlocks, type ConversionNote, conversionMember } from "../posts/convert/body";
import { type CreatePostInput, CreatePostSchema } from "../posts/input";
import { createPost } from "../posts/service";
import { importedPostId, recordImportLineStatement } from "./import-lines-store";
import { dropUnresolvable, type LineWarning, unchangedPost } from "./restore";

export const IMPORT_MAX_BYTES = 8 * 1024 * 1024;
export const IMPORT_MAX_LINES = 1000;

export interface LineResult {
  line: number;
  status: "created" | "duplicate" | "failed";
  id?: string;
  slug?: string;
  error?: { status: number; code: string; detail?: string };
  /**
   * References this site could not resolve, dropped from the line (the post was still imported), and
   * blocks kept as they are (BlockLineWarning).
   */
  warnings?: (LineWarning | BlockLineWarning)[];
  /** The block types of the line outside the catalogue, each once: stored as is, never rendered. */
  unknown_block_types?: string[];
  /** A line whose body is `html` or `markdown`: what its conversion to blocks could not keep. */
  conversion?: ConversionNote;
}

/**
 * What an import kept of `blocks_json` without knowing it (issue 33: an import keeps unknown types, so old
 * exports and other tools' documents stay importable): a block of a type outside the catalogue, a known
 * block that breaks its type's schema, a field no block declares. `field` is the JSON path in the line.
 */
interface BlockLineWarning {
  field: string;
  code: "UNKNOWN_BLOCK_TYPE" | "INVALID_BLOCK" | "UNDECLARED_BLOCK_FIELD";
  detail: string;
}

/** The line's report of its blocks: warnings, and the unknown types once each. */
function blocksReport(blocks: CheckedBlocks): Pick<LineResult, "warnings" | "unknown_block_types"> {
  const warnings: BlockLineWarning[] = [
    ...blocks.unknownTypes.map(({ path, type }) => ({
      field: path,
      code: "UNKNOWN_BLOCK_TYPE" as const,
      detail: `Block type "${type}" is not in the catalogue: kept as is, not rendered.`,
    })),
    ...blocks.invalid.map(({ path, message }) => ({
      field: path,
      code: "INVALID_BLOCK" as const,
      detail: `${message}: the block is kept as is (rendered as far as it can be).`,
    })),
    ...blocks.warnings.map(({ path, message }) => ({
      field: path,
      code: "UNDECLARED_BLOCK_FIELD" as const,
      detail: message,
    })),
  ];
  const types = [...new Set(blocks.unknownTypes.map((u) => u.type))];
  return {
    ...(warnings.length > 0 ? { warnings } : {}),
    ...(types.length > 0 ? { unknown_block_types: types } : {}),
  };
}

export interface ImportSummary {
  summary: { total: number; created: number; duplicate: number; failed: number };
  lines: LineResult[];
}

function tooLarge(): never {
  fail(
    "PAYLOAD_TOO_LARGE",
    `An import is at most ${IMPORT_MAX_BYTES / 1024 / 1024} MiB and ${IMPORT_MAX_LINES} lines.`,
  );
}

function failed(line: number, error: ApiError): LineResult {
  const { status, code, detail } = error;
  return { line, status: "failed", error: { status, code, ...(detail ? { detail } : {}) } };
}

/**
 * What must hold before the body is read: only posts are importable, the key carries authorship context
 * (the imported posts need an author), and a declared `Content-Length` within the limit.
 */
export function checkImportRequest(
  key: KeyContext,
  resource: string | undefined,
  contentLength: string | undefined,
): void {
  if (resource !== undefined && resource !== "posts") {
    fail("BAD_REQUEST", "Only resource=posts can be imported in this version.");
  }
  requireAuthorshipContext(key);
  const declared = Number(contentLength);
  if (Number.isFinite(declared) && declared > IMPORT_MAX_BYTES) tooLarge();
}

/** The lines of an NDJSON body (CRLF or LF; trailing blank lines dropped), within the size and line limits. */
export function importLines(text: string): string[] {
  if (new TextEncoder().encode(text).byteLength > IMPORT_MAX_BYTES) tooLarge();
  const lines = text.split("\n").map((l) => l.replace(/\r$/, ""));
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === "") lines.pop();
  if (lines.length === 0) fail("BAD_REQUEST", "The body has no lines.");
  if (lines.length > IMPORT_MAX_LINES) tooLarge();
  return lines;
}

/**
 * A line's CreatePost, as `POST /v1/posts` reads its body (strict, issue 33): a line's `site_id` is
 * discarded (the spec: the site is the key's); any other member CreatePost does not declare fails the
 * line with 422 UNKNOWN_FIELD naming it, as that body would; other mistakes are 400 BAD_REQUEST. Every
 * member an export line carries is a CreatePost field (`exportLine`), so an export stays importable.
 */
function lineInput(raw: Record<string, unknown>): CreatePostInput | ApiError {
  const { site_id: _discarded, ...fields } = raw;
  const parsed = CreatePostSchema.safeParse(fields);
  if (parsed.success) return parsed.data;
  const { detail, unknownField } = describeIssues(parsed.error.issues);
  return problem(unknownField ? "UNKNOWN_FIELD" : "BAD_REQUEST", detail);
}

async function importLine(
  env: Env,
  services: Services,
  key: KeyContext,
  line: number,
  text: string,
): Promise<LineResult> {
  if (text.trim() === "") return failed(line, problem("BAD_REQUEST", "Empty line."));
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return failed(line, problem("INVALID_JSON", "The line is not JSON."));
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return failed(line, problem("BAD_REQUEST", "Each line is one JSON object."));
  }
  const input = lineInput(raw as Record<string, unknown>);
  if (input instanceof ApiError) return failed(line, input);
  if (input.access === "restricted") {
    // Restricted content cannot be imported in this version: importing it would have to decide who may
    // read it, which the line does not say. It fails loudly instead of becoming public.
    return failed(
      line,
      problem("RESTRICTED_NOT_IMPORTABLE", "Posts with restricted access cannot be imported."),
    );
  }
  const hash = await sha256Base64url(canonicalJson(input));
  const existing = await importedPostId(env.DB, key.siteId, hash);
  if (existing) return { line, status: "duplicate", id: existing };
  try {
    // A line's html or markdown body becomes blocks first, as POST /v1/posts converts it.
    const { html: _html, markdown: _markdown, ...fields } = input;
    const source = bodyBlocks(input, env.MEDIA_PUBLIC_BASE);
    const { input: resolved, warnings } = await dropUnresolvable(env.DB, key, {
      ...fields,
      blocks_json: source.blocks_json,
    });
    // Checked once: the line's report, and what createPost stores.
    const checked = checkBlocks(resolved.blocks_json, "import");
    const report = blocksReport(checked);
    const all = [...warnings, ...(report.warnings ?? [])];
    const warned = {
      ...report,
      ...(all.length > 0 ? { warnings: all } : {}),
      ...conversionMember(source.conversion),
    };
    // A backup restored into its own site: the line is the post it was exported from.
    const restored = await unchangedPost(env.DB, key, resolved);
    if (restored) return { line, status: "duplicate", id: restored.id, slug: restored.slug, ...warned };
    const stored = await createPost(
      env,
      services,
      key,
      resolved,
      (_response, postId) =>
        recordImportLineStatement(env.DB, key.siteId, hash, postId, new Date().toISOString()),
      undefined,
      checked,
    );
    const body = JSON.parse(stored.body) as { id: string; slug: string };
    return { line, status: "created", id: body.id, slug: body.slug, ...warned };
  } catch (error) {
    if (error instanceof ApiError) return failed(line, error);
    if (error instanceof Error && /UNIQUE constraint failed: import_lines/.test(error.message)) {
      // The same line imported concurrently: the other import created it.
      const winner = await importedPostId(env.DB, key.siteId, hash);
      if (winner) return { line, status: "duplicate", id: winner };
    }
    throw error;
  }
}

/** Imports every line of `text` into the key's site, one after the other, and sums up the outcome. */
export async function importPosts(
  env: Env,
  services: Services,
  key: KeyContext,
  text: string,
): Promise<ImportSummary> {
  const lines = importLines(text);
  const results: LineResult[] = [];
  for (const [i, line] of lines.entries()) results.push(await importLine(env, services, key, i + 1, line));
  const count = (s: LineResult["status"]) => results.filter((r) => r.status === s).length;
  return {
    summary: {
      total: results.length,
      created: count("created"),
      duplicate: count("duplicate"),
      failed: count("failed"),
    },
    lines: results,
  };
}
