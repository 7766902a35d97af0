/** `GET /v1/posts`: the public keyset listing, and with `status` the authenticated PostSummary listing. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { problemResponses } from "../../lib/app";
import type { ApiError } from "../../lib/problem";
import type { KeyRequirement } from "../auth/api-key";
import { sha256Base64url } from "../auth/key-hash";
import { requireKey } from "../auth/middleware";
import type { AppEnv } from "../bindings";
import { type ContentErrorName, problem } from "../errors";
import { decodeCursor, encodeCursor } from "../rules/cursor";
import { canonicalLanguage } from "../rules/language";
import { isValidTypeSlug } from "../rules/slug";
import { parseRfc3339 } from "../rules/time";
import {
  LISTABLE_STATUSES,
  type ListableStatus,
  type ListFilters,
  listPostsByStatus,
  listPublicPosts,
} from "../store/posts";
import { sendCacheable } from "./cacheable";
import { listItem, PostListItemSchema, PostSummarySchema, pageSchema, postSummary } from "./post-shapes";

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 50;
const MAX_TERMS = 20;

const ListQuery = z.object({
  limit: z
    .string()
    .optional()
    .openapi({ description: `1..${MAX_LIMIT} (default ${DEFAULT_LIMIT}); never clamped` }),
  cursor: z.string().optional().openapi({ description: "Opaque; the previous page's next_cursor" }),
  category: z.string().optional().openapi({ description: "Category slug(s), comma-separated = ANY" }),
  tag: z.string().optional().openapi({ description: "Tag slug(s), comma-separated = ANY" }),
  q: z.string().optional().openapi({ description: "Full-text search in title and summary" }),
  since: z.string().optional().openapi({ description: "RFC 3339; only posts with updated_at >= since" }),
  language: z.string().optional().openapi({ description: "BCP-47 tag" }),
  status: z.string().optional().openapi({
    description:
      "Comma-separated of draft, scheduled, published, archived. Switches to the authenticated PostSummary listing (ck_ key with posts:write; private, no-store).",
  }),
  post_type: z.string().optional().openapi({ description: "Post type slug" }),
  author: z.string().optional().openapi({ description: "Author slug (public listing only)" }),
  key: z
    .string()
    .optional()
    .openapi({ description: "pk_ key for browsers; ignored when Authorization is sent" }),
});

function bad(code: ContentErrorName, detail: string): ApiError {
  return problem(code, { detail });
}

export function parseLimit(value: string | undefined): number {
  if (value === undefined) return DEFAULT_LIMIT;
  const n = /^\d{1,3}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_LIMIT) {
    throw bad("INVALID_LIMIT", `limit must be an integer from 1 to ${MAX_LIMIT}.`);
  }
  return n;
}

function slugList(name: string, value: string | undefined): string[] {
  if (value === undefined) return [];
  const items = [...new Set(value.split(",").map((s) => s.trim()))];
  if (items.length > MAX_TERMS || items.some((s) => !isValidTypeSlug(s))) {
    throw bad("BAD_REQUEST", `${name} must be up to ${MAX_TERMS} comma-separated slugs.`);
  }
  return items;
}

/** Turns free text into an FTS5 expression of quoted prefix terms (no FTS syntax reaches MATCH). */
export function ftsQuery(q: string | undefined): string | null {
  if (q === undefined) return null;
  if (q.length > 200) throw bad("BAD_REQUEST", "q is limited to 200 characters.");
  // Terms are runs of letters, marks and digits (what FTS5's unicode61 tokenizer indexes); everything else,
  // including quotes, operators and control characters (a NUL ends an FTS5 string early), separates them.
  const terms = q
    .split(/[^\p{L}\p{M}\p{N}]+/u)
    .filter((t) => /[\p{L}\p{N}]/u.test(t))
    .slice(0, 10);
  if (terms.length === 0) return null;
  return terms.map((t) => `"${t}"*`).join(" ");
}

function parseStatuses(value: string): ListableStatus[] {
  const items = [...new Set(value.split(",").map((s) => s.trim()))];
  if (items.length === 0 || items.some((s) => !(LISTABLE_STATUSES as readonly string[]).includes(s))) {
    throw bad("INVALID_STATUS", `status must be a comma-separated list of ${LISTABLE_STATUSES.join(", ")}.`);
  }
  return items as ListableStatus[];
}

function listRequirement(c: Context<AppEnv>): KeyRequirement {
  return c.req.query("status") !== undefined
    ? { kinds: "secret", scopes: ["posts:write"], quota: "read" }
    : { kinds: "any", scopes: ["posts:read"], quota: "read" };
}

export function registerPostListRoute(app: OpenAPIHono<AppEnv>) {
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/posts",
      tags: ["Posts"],
      summary: "List posts (public keyset listing; with status the authenticated listing)",
      description:
        "Scopes: posts:read (public listing, ck_ or pk_); posts:write with a ck_ key when `status` is sent.",
      security: [{ apiKey: ["posts:read"] }, { publicReadKey: ["posts:read"] }, { apiKey: ["posts:write"] }],
      middleware: [requireKey(listRequirement)],
      request: { query: ListQuery },
      responses: {
        200: {
          description: "A page (PostListItem items; PostSummary items with status)",
          content: {
            "application/json": {
              schema: z.union([
                pageSchema(PostListItemSchema, "PostPage"),
                pageSchema(PostSummarySchema, "PostSummaryPage"),
              ]),
            },
          },
        },
        304: { description: "Not modified (public listing only)" },
        ...problemResponses({
          400: "Invalid parameter",
          401: "Key missing or invalid",
          403: "Scope or origin",
          429: "Quota",
        }),
      },
    }),
    async (c) => {
      const auth = c.get("auth");
      const query = c.req.query();
      const limit = parseLimit(query.limit);
      const statusMode = query.status !== undefined;
      const statuses = statusMode ? parseStatuses(query.status!) : [];
      let language: string | null = null;
      if (query.language !== undefined) {
        language = canonicalLanguage(query.language);
        if (!language) throw bad("INVALID_LANGUAGE", "language must be a BCP-47 tag.");
      }
      let since: string | null = null;
      if (query.since !== undefined) {
        since = parseRfc3339(query.since);
        if (!since) throw bad("INVALID_SINCE", "since must be an RFC 3339 timestamp.");
      }
      if (query.post_type !== undefined && !isValidTypeSlug(query.post_type)) {
        throw bad("INVALID_POST_TYPE", "post_type must be a slug.");
      }
      if (query.author !== undefined && !isValidTypeSlug(query.author)) {
        throw bad("BAD_REQUEST", "author must be a slug.");
      }
      const filters: ListFilters = {
        categories: slugList("category", query.category),
        tags: slugList("tag", query.tag),
        match: ftsQuery(query.q),
        since,
        language,
        postType: query.post_type ?? null,
        // author filters the public listing only.
        author: statusMode ? null : (query.author ?? null),
      };
      // The fingerprint binds a cursor to its site and filters: replayed elsewhere it is a 400.
      const fingerprint = (
        await sha256Base64url(
          JSON.stringify({ s: auth.siteId, m: statusMode ? "a" : "p", statuses, ...filters }),
        )
      ).slice(0, 16);
      let after: { publishedAt: string; id: string } | null = null;
      let afterId: string | null = null;
      if (query.cursor !== undefined) {
        const cursor = await decodeCursor(c.env.CURSOR_SECRET, query.cursor);
        if (!cursor || cursor.f !== fingerprint || cursor.m !== (statusMode ? "a" : "p")) {
          throw bad("INVALID_CURSOR", "cursor is corrupt or belongs to another listing.");
        }
        afterId = cursor.i;
        if (cursor.p !== undefined) after = { publishedAt: cursor.p, id: cursor.i };
      }
      const now = new Date().toISOString();

      if (statusMode) {
        const rows = await listPostsByStatus(c.env.DB, auth.siteId, now, statuses, filters, afterId, limit);
        const page = rows.slice(0, limit);
        const last = page[page.length - 1];
        const next =
          rows.length > limit && last
            ? await encodeCursor(c.env.CURSOR_SECRET, { m: "a", i: last.id, f: fingerprint })
            : null;
        c.header("cache-control", "private, no-store");
        return c.json({ items: page.map((r) => postSummary(r, now)), next_cursor: next }, 200);
      }

      const rows = await listPublicPosts(c.env.DB, auth.siteId, now, filters, after, limit);
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      const next =
        rows.length > limit && last
          ? await encodeCursor(c.env.CURSOR_SECRET, {
              m: "p",
              p: last.published_at!,
              i: last.id,
              f: fingerprint,
            })
          : null;
      return sendCacheable(c, { items: page.map(listItem), next_cursor: next });
    },
  );
}
