/** Bulk import (`POST /v1/import`, NDJSON of CreatePost lines) and export (`GET /v1/export`). */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { problemResponses } from "../../lib/app";
import { ApiError } from "../../lib/problem";
import type { KeyRequirement } from "../auth/api-key";
import { sha256Base64url } from "../auth/key-hash";
import { requireKey, security } from "../auth/middleware";
import type { AppEnv } from "../bindings";
import { fail, problem } from "../errors";
import { createPost } from "../post-service";
import { CreatePostSchema } from "../rules/post-input";
import { canonicalJson } from "../store/idempotency";
import { importedPostId, recordImportLineStatement } from "../store/import-lines";
import { effectiveStatus, exportPostsPage, type PostRow } from "../store/posts";
import { taxonomy } from "./post-shapes";

export const IMPORT_MAX_BYTES = 8 * 1024 * 1024;
export const IMPORT_MAX_LINES = 1000;
const EXPORT_PAGE = 200;

interface LineResult {
  line: number;
  status: "created" | "duplicate" | "failed";
  id?: string;
  slug?: string;
  error?: { status: number; code: string; detail?: string };
}

function tooLarge(): ApiError {
  return problem(
    "PAYLOAD_TOO_LARGE",
    `An import is at most ${IMPORT_MAX_BYTES / 1024 / 1024} MiB and ${IMPORT_MAX_LINES} lines.`,
  );
}

function failed(line: number, error: ApiError): LineResult {
  const { status, code, detail } = error;
  return { line, status: "failed", error: { status, code, ...(detail ? { detail } : {}) } };
}

async function importLine(c: Context<AppEnv>, line: number, text: string): Promise<LineResult> {
  const auth = c.get("auth");
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return failed(line, problem("INVALID_JSON", "The line is not JSON."));
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return failed(line, problem("BAD_REQUEST", "Each line is one JSON object."));
  }
  // site_id, org_id, author_id (and derived fields) of a line are discarded: they come from the key.
  const parsed = CreatePostSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return failed(
      line,
      problem("BAD_REQUEST", `${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"}`),
    );
  }
  const input = parsed.data;
  if (input.access === "restricted") {
    // Restricted content cannot be imported in this version: importing it would have to decide who may
    // read it, which the line does not say. It fails loudly instead of becoming public.
    return failed(
      line,
      problem("RESTRICTED_NOT_IMPORTABLE", "Posts with restricted access cannot be imported."),
    );
  }
  const hash = await sha256Base64url(canonicalJson(input));
  const existing = await importedPostId(c.env.DB, auth.siteId, hash);
  if (existing) return { line, status: "duplicate", id: existing };
  try {
    const stored = await createPost(c.env, auth, input, (_response, postId) =>
      recordImportLineStatement(c.env.DB, auth.siteId, hash, postId, new Date().toISOString()),
    );
    const body = JSON.parse(stored.body) as { id: string; slug: string };
    return { line, status: "created", id: body.id, slug: body.slug };
  } catch (error) {
    if (error instanceof ApiError) return failed(line, error);
    if (error instanceof Error && /UNIQUE constraint failed: import_lines/.test(error.message)) {
      // The same line imported concurrently: the other import created it.
      const winner = await importedPostId(c.env.DB, auth.siteId, hash);
      if (winner) return { line, status: "duplicate", id: winner };
    }
    throw error;
  }
}

/** One export line: the CreatePost shape, so it can be fed back to the import. */
export function exportLine(row: PostRow, now: string) {
  let blocks: unknown = null;
  if (row.blocks_json !== null) {
    try {
      blocks = JSON.parse(row.blocks_json);
    } catch {
      blocks = row.blocks_json;
    }
  }
  return {
    title: row.title,
    slug: row.slug,
    summary: row.summary,
    blocks_json: blocks,
    status: effectiveStatus(row, now),
    published_at: row.published_at,
    language: row.language,
    post_type: row.post_type,
    author_slug: row.author_slug,
    featured_image_id: row.featured_image_id,
    ...taxonomy(row),
    access: row.access,
  };
}

function exportRequirement(c: Context<AppEnv>): KeyRequirement {
  const resource = c.req.query("resource");
  if (resource === "posts") return { kinds: "secret", scopes: ["export", "posts:write"], quota: "read" };
  if (resource === "leads") return { kinds: "secret", scopes: ["export", "leads:read"], quota: "read" };
  return { kinds: "secret", scopes: ["export"], quota: "read" };
}

export function registerBulkRoutes(app: OpenAPIHono<AppEnv>) {
  app.openAPIRegistry.registerPath({
    method: "post",
    path: "/v1/import",
    tags: ["Bulk"],
    summary: "Bulk import posts (NDJSON)",
    description: `Scopes import AND posts:write (ck_). One CreatePost per line; site, organization and author come from the key. Idempotent by line content (a repeated line answers duplicate). At most ${IMPORT_MAX_LINES} lines and 8 MiB. A line with access restricted fails (RESTRICTED_NOT_IMPORTABLE).`,
    security: security("secret", ["import", "posts:write"]),
    request: {
      query: z.object({ resource: z.enum(["posts"]).optional() }),
      body: { required: true, content: { "application/x-ndjson": { schema: z.string() } } },
    },
    responses: {
      200: {
        description: "Summary and one result per line",
        content: {
          "application/json": {
            schema: z.object({
              summary: z.object({
                total: z.number(),
                created: z.number(),
                duplicate: z.number(),
                failed: z.number(),
              }),
              lines: z.array(
                z.object({
                  line: z.number(),
                  status: z.enum(["created", "duplicate", "failed"]),
                  id: z.string().optional(),
                  slug: z.string().optional(),
                  error: z
                    .object({ status: z.number(), code: z.string(), detail: z.string().optional() })
                    .optional(),
                }),
              ),
            }),
          },
        },
      },
      ...problemResponses({
        400: "Bad resource or empty body",
        401: "Key",
        403: "Scopes",
        413: "Above 8 MiB or 1000 lines",
        422: "Key without authorship context",
        429: "Quota",
      }),
    },
  });
  app.post(
    "/v1/import",
    requireKey({ kinds: "secret", scopes: ["import", "posts:write"], quota: "write" }),
    async (c) => {
      const resource = c.req.query("resource");
      if (resource !== undefined && resource !== "posts") {
        fail("BAD_REQUEST", "Only resource=posts can be imported in this version.");
      }
      if (!c.get("auth").createdBy) {
        fail("NO_AUTHORSHIP_CONTEXT", "This key has no authorship context; create a new key.");
      }
      const declared = Number(c.req.header("content-length"));
      if (Number.isFinite(declared) && declared > IMPORT_MAX_BYTES) throw tooLarge();
      const text = await c.req.text();
      if (new TextEncoder().encode(text).byteLength > IMPORT_MAX_BYTES) throw tooLarge();
      const lines = text.split("\n").map((l) => l.replace(/\r$/, ""));
      while (lines.length > 0 && lines[lines.length - 1]!.trim() === "") lines.pop();
      if (lines.length === 0) fail("BAD_REQUEST", "The body has no lines.");
      if (lines.length > IMPORT_MAX_LINES) throw tooLarge();
      const results: LineResult[] = [];
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i]!;
        results.push(
          line.trim() === ""
            ? failed(i + 1, problem("BAD_REQUEST", "Empty line."))
            : await importLine(c, i + 1, line),
        );
      }
      const count = (s: LineResult["status"]) => results.filter((r) => r.status === s).length;
      return c.json(
        {
          summary: {
            total: results.length,
            created: count("created"),
            duplicate: count("duplicate"),
            failed: count("failed"),
          },
          lines: results,
        },
        200,
      );
    },
  );

  app.openAPIRegistry.registerPath(
    createRoute({
      method: "get",
      path: "/v1/export",
      tags: ["Bulk"],
      summary: "Bulk export (NDJSON stream)",
      description:
        "Scope export (ck_). resource=posts also needs posts:write and streams the whole collection (draft, scheduled, published, archived; never deleted) with blocks_json, one CreatePost-shaped line per post (format ndjson only; csv is 400). resource=leads also needs leads:read; resource=analytics needs analytics:read; neither has a backend bound to this service yet (404).",
      security: [
        { apiKey: ["export", "posts:write"] },
        { apiKey: ["export", "leads:read"] },
        { apiKey: ["export"] },
      ],
      request: {
        query: z.object({
          resource: z.enum(["posts", "leads", "analytics"]),
          format: z.enum(["ndjson", "csv"]).optional(),
        }),
      },
      responses: {
        // A plain schema object: the handler answers with a streamed Response.
        200: {
          description: "NDJSON stream",
          content: { "application/x-ndjson": { schema: { type: "string" } } },
        },
        ...problemResponses({
          400: "Bad resource or format",
          401: "Key",
          403: "Scopes, or a pk_ key",
          404: "No backend for the resource",
          429: "Quota",
        }),
      },
    }),
  );
  // Served by a plain handler: the answer is a streamed Response.
  app.get("/v1/export", requireKey(exportRequirement), async (c) => {
    const resource = c.req.query("resource");
    const format = c.req.query("format");
    if (resource !== "posts" && resource !== "leads" && resource !== "analytics") {
      fail("BAD_REQUEST", "resource must be posts, leads or analytics.");
    }
    if (format !== undefined && format !== "ndjson" && format !== "csv") {
      fail("BAD_REQUEST", "format must be ndjson or csv.");
    }
    const auth = c.get("auth");
    if (resource === "analytics" && !auth.scopes.has("analytics:read")) {
      fail("INSUFFICIENT_SCOPE", {
        detail: "This operation requires the scope(s): export, analytics:read.",
        details: { required_scopes: ["export", "analytics:read"], missing_scopes: ["analytics:read"] },
      });
    }
    if (resource !== "posts") {
      fail("NOT_FOUND", `No ${resource} source is available for this site.`);
    }
    if (format === "csv") fail("BAD_REQUEST", "Posts export as NDJSON only.");
    const db = c.env.DB;
    const siteId = auth.siteId;
    const now = new Date().toISOString();
    const encoder = new TextEncoder();
    let after = "";
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const results = await exportPostsPage(db, siteId, after, EXPORT_PAGE);
        if (results.length > 0) {
          after = results[results.length - 1]!.id;
          controller.enqueue(
            encoder.encode(results.map((r) => `${JSON.stringify(exportLine(r, now))}\n`).join("")),
          );
        }
        if (results.length < EXPORT_PAGE) controller.close();
      },
    });
    return new Response(stream, {
      status: 200,
      headers: {
        "content-type": "application/x-ndjson",
        "content-disposition": `attachment; filename="posts-${siteId}-${now.slice(0, 10)}.ndjson"`,
        "cache-control": "private, no-store",
      },
    });
  });
}
