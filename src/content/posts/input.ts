/** CreatePost / UpdatePost bodies and the rules that turn them into a stored row. */
import { z } from "@hono/zod-openapi";
import { parseId } from "../../lib/ids";
import type { ApiError } from "../../lib/problem";
import { parseRfc3339 } from "../core/time";
import { type ContentErrorName, problem } from "../errors";
import { checkBlocks } from "./blocks/write";
import { HtmlBodySchema, MarkdownBodySchema } from "./convert/body";
import { canonicalLanguage } from "./language";
import { isValidSlug, isValidTypeSlug } from "./slug";
import type { PostRow, PostStatus } from "./store";

const TaxonomyList = z.array(z.string().max(100)).max(50);

/** Deepest nesting a body document may have (Editor.js documents are shallow; nested lists ~2 per level). */
export const MAX_BLOCKS_DEPTH = 100;

/**
 * Whether a JSON value nests at most `max` arrays/objects deep, checked without recursion: a hostile
 * document thousands of levels deep must be a 400, not a stack overflow in a later recursive step.
 */
export function jsonDepthWithin(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== "object") continue;
    if (depth + 1 > max) return false;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
    }
  }
  return true;
}

/** Strict (issue 33): a field it does not declare is refused, never dropped (422 UNKNOWN_FIELD on create). */
export const CreatePostSchema = z
  .strictObject({
    title: z.string().trim().min(1).max(300),
    slug: z.string().max(200).optional(),
    summary: z.string().max(2000).nullable().optional(),
    blocks_json: z
      .unknown()
      .refine((v) => jsonDepthWithin(v, MAX_BLOCKS_DEPTH), {
        message: `blocks_json nests deeper than ${MAX_BLOCKS_DEPTH} levels`,
      })
      .optional()
      // Validated by the block catalogue in the service (blocks/write.ts: an import keeps unknown types),
      // documented as the catalogue itself.
      .openapi({
        description:
          'Editor.js document {"blocks":[{"id","type","data"}]}; the block types and their data are the BlocksDocument catalogue',
        allOf: [{ $ref: "#/components/schemas/BlocksDocument" }],
      }),
    // Or the body as HTML or Markdown (one of the three): converted to blocks on write (convert/body.ts).
    html: HtmlBodySchema,
    markdown: MarkdownBodySchema,
    status: z.enum(["draft", "scheduled", "published", "archived"]).optional(),
    published_at: z.string().nullable().optional().openapi({ description: "RFC 3339" }),
    language: z.string().optional().openapi({ description: "BCP-47; default: the site's default language" }),
    post_type: z.string().optional().openapi({ description: "Post type slug; default post" }),
    author_slug: z.string().max(100).nullable().optional(),
    featured_image_id: z.string().nullable().optional(),
    category_slugs: TaxonomyList.optional(),
    tag_slugs: TaxonomyList.optional(),
    access: z.enum(["public", "restricted"]).optional(),
  })
  .openapi("CreatePost");

export const UpdatePostSchema = CreatePostSchema.partial().openapi("UpdatePost");

/**
 * The dashboard's PATCH of a post (issue 34): UpdatePost and `review_requested`, a draft its creator marks
 * ready for an editor's review (true) or takes back (false); cleared when the post is published. The `/v1`
 * key API's UpdatePost stays as the spec has it (the member is refused there as unknown).
 */
export const DashboardUpdatePostSchema = UpdatePostSchema.extend({
  review_requested: z.boolean().optional().openapi({
    description:
      "Mark the draft ready for an editor's review (true) or take it back (false); only a draft (409 POST_NOT_DRAFT); cleared when published",
  }),
}).openapi("DashboardUpdatePost");

export type CreatePostInput = z.infer<typeof CreatePostSchema>;
export type UpdatePostInput = z.infer<typeof UpdatePostSchema>;

function invalid(code: ContentErrorName, detail: string): ApiError {
  return problem(code, { detail });
}

export function checkSlug(slug: string): string {
  if (!isValidSlug(slug)) {
    throw invalid(
      "INVALID_SLUG",
      "slug must be lowercase letters, digits and single hyphens, and not look like an id.",
    );
  }
  return slug;
}

export function checkLanguage(tag: string): string {
  const language = canonicalLanguage(tag);
  if (!language) throw invalid("INVALID_LANGUAGE", "language must be a BCP-47 tag such as en or pt-BR.");
  return language;
}

export function checkPostType(slug: string): string {
  if (!isValidTypeSlug(slug)) throw invalid("INVALID_POST_TYPE", "post_type must be a slug.");
  return slug;
}

export function checkTaxonomy(field: string, values: string[]): string[] {
  for (const v of values) {
    if (!isValidTypeSlug(v)) throw invalid("INVALID_TAXONOMY", `${field} entries must be slugs.`);
  }
  return [...new Set(values)];
}

export function checkAuthorSlug(value: string | null): string | null {
  if (value === null) return null;
  if (!isValidTypeSlug(value)) throw invalid("INVALID_AUTHOR", "author_slug must be a slug.");
  return value;
}

export function checkMediaId(value: string): string {
  const id = parseId(value);
  if (!id) throw invalid("INVALID_MEDIA_ID", "featured_image_id must be a media id (ULID or UUID).");
  return id;
}

export function checkPublishedAt(value: string | null): string | null {
  if (value === null) return null;
  const parsed = parseRfc3339(value);
  if (!parsed) throw invalid("INVALID_PUBLISHED_AT", "published_at must be an RFC 3339 timestamp.");
  return parsed;
}

/**
 * Validates the Editor.js document against the block catalogue and returns the JSON text to store (null
 * when absent): unknown block types are refused as an update refuses them (blocks/write.ts).
 */
export function blocksText(value: unknown): string | null {
  return checkBlocks(value, "update").text;
}

/**
 * Stored status and date: `published` without a date is published now; `published` dated in the future
 * is stored as `scheduled`; `scheduled` needs a future date. A scheduled post becomes public when its date
 * comes (see effectiveStatus), without any job.
 */
export function settleStatus(
  status: Exclude<PostStatus, "deleted">,
  publishedAt: string | null,
  now: string,
): { status: PostStatus; published_at: string | null } {
  if (status === "published") {
    const at = publishedAt ?? now;
    return { status: at > now ? "scheduled" : "published", published_at: at };
  }
  if (status === "scheduled") {
    if (!publishedAt || publishedAt <= now) {
      throw invalid("INVALID_SCHEDULE", "A scheduled post needs a published_at in the future.");
    }
    return { status, published_at: publishedAt };
  }
  return { status, published_at: publishedAt };
}

export function mergeTaxonomy(
  seoJson: string,
  categories: string[] | undefined,
  tags: string[] | undefined,
): string {
  let seo: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(seoJson) as unknown;
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed))
      seo = parsed as Record<string, unknown>;
  } catch {
    seo = {};
  }
  if (categories !== undefined) seo.category_slugs = checkTaxonomy("category_slugs", categories);
  if (tags !== undefined) seo.tag_slugs = checkTaxonomy("tag_slugs", tags);
  return JSON.stringify(seo);
}

export type { PostRow };
