/**
 * What makes an export restorable by the import: references the importing site cannot resolve are
 * dropped with a warning (the post still arrives), and a line that matches an existing post of the site
 * field for field (a backup restored into its own site) is that post, not a slug clash.
 */
import { parseId } from "../../lib/ids";
import { keyPersona } from "../authors/personas";
import { personaBySlug } from "../authors/store";
import { canonicalJson } from "../core/idempotency-store";
import { parseRfc3339 } from "../core/time";
import type { KeyContext } from "../keys/key-context";
import type { CreatePostInput } from "../posts/input";
import { canonicalLanguage } from "../posts/language";
import { isValidTypeSlug } from "../posts/slug";
import { mediaExists, type PostRow, postsBySlug } from "../posts/store";
import { getPostType, getSite } from "../site/store";
import { exportLine } from "./export";

export interface LineWarning {
  field: "featured_image_id" | "post_type" | "author_slug";
  code: "UNKNOWN_MEDIA" | "UNKNOWN_POST_TYPE" | "UNKNOWN_AUTHOR";
  detail: string;
}

/**
 * The line without the references this site cannot resolve: another site's (or a missing) media id, a
 * post type the site lacks, an author persona it lacks (the post then gets the key's persona and the
 * default type). Malformed values are left for the create rules to refuse.
 */
export async function dropUnresolvable(
  db: D1Database,
  key: KeyContext,
  input: CreatePostInput,
): Promise<{ input: CreatePostInput; warnings: LineWarning[] }> {
  const out: CreatePostInput = { ...input };
  const warnings: LineWarning[] = [];
  const mediaId = input.featured_image_id != null ? parseId(input.featured_image_id) : null;
  if (mediaId && !(await mediaExists(db, key.siteId, mediaId))) {
    out.featured_image_id = null;
    warnings.push({
      field: "featured_image_id",
      code: "UNKNOWN_MEDIA",
      detail: `${mediaId} is not a media asset of this site; the post has no featured image.`,
    });
  }
  const type = input.post_type;
  if (type !== undefined && isValidTypeSlug(type) && !(await getPostType(db, key.siteId, type))) {
    delete out.post_type;
    warnings.push({
      field: "post_type",
      code: "UNKNOWN_POST_TYPE",
      detail: `The site has no post type '${type}'; the post is of type post.`,
    });
  }
  const author = input.author_slug;
  if (author != null && isValidTypeSlug(author)) {
    // The key's own persona may not exist yet on this site: make it first, so a restore by the same
    // byline keeps its slug.
    const own = await keyPersona(db, key);
    if (author !== own.slug && !(await personaBySlug(db, key.siteId, author))) {
      delete out.author_slug;
      warnings.push({
        field: "author_slug",
        code: "UNKNOWN_AUTHOR",
        detail: `The site has no author '${author}'; the post is by ${own.slug}.`,
      });
    }
  }
  return { input: out, warnings };
}

/** A field of the line as the export would write it, for comparison with a stored post's export line. */
function normalized(field: string, value: unknown): unknown {
  if (field === "language" && typeof value === "string") return canonicalLanguage(value) ?? value;
  if (field === "published_at" && typeof value === "string") return parseRfc3339(value) ?? value;
  if ((field === "category_slugs" || field === "tag_slugs") && Array.isArray(value))
    return [...new Set(value)];
  return value ?? null;
}

/**
 * The existing post a line with an explicit slug restores unchanged: same (site, slug, language) and every
 * field the line sends equal to the post's export line. null when there is none or it differs.
 */
export async function unchangedPost(
  db: D1Database,
  key: KeyContext,
  input: CreatePostInput,
): Promise<PostRow | null> {
  if (input.slug === undefined) return null;
  const language =
    input.language !== undefined
      ? canonicalLanguage(input.language)
      : ((await getSite(db, key.siteId))?.default_language ?? null);
  if (!language) return null;
  const [existing] = await postsBySlug(db, key.siteId, input.slug, language);
  if (!existing) return null;
  const stored: Record<string, unknown> = exportLine(existing, new Date().toISOString());
  const same = Object.entries(input).every(
    ([field, value]) =>
      value === undefined ||
      canonicalJson(normalized(field, value)) === canonicalJson(normalized(field, stored[field])),
  );
  return same ? existing : null;
}
