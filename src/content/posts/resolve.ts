/**
 * `{reference}` resolution: a ULID or UUID is an id, anything else a slug. Every miss, including another
 * site's post and a non-public one on public reads, is the same 404 so existence never leaks.
 */
import { parseId } from "../../lib/ids";
import type { ApiError } from "../../lib/problem";
import { fail, problem } from "../errors";
import { canonicalLanguage } from "./language";
import {
  effectiveStatus,
  getPost,
  isPublic,
  type PostRow,
  type PublicReference,
  postsBySlug,
  publicTypeSlugs,
} from "./store";

export function postNotFound(): ApiError {
  return problem("NOT_FOUND", "No such post.");
}

function ambiguous(languages: string[]): ApiError {
  return problem("AMBIGUOUS_SLUG", {
    detail: "This slug exists in several languages; send ?language= to choose one.",
    details: { languages },
  });
}

/** The `language` query parameter (only used to disambiguate slugs). */
export function languageParam(value: string | undefined): string | null {
  if (value === undefined) return null;
  const tag = canonicalLanguage(value);
  if (!tag) fail("BAD_REQUEST", "language must be a BCP-47 tag.");
  return tag;
}

/** A public read's reference: a ULID or UUID is an id (`?language=` ignored), anything else a slug. */
export function publicReference(reference: string, language: string | null): PublicReference {
  const id = parseId(reference);
  return id ? { id } : { slug: reference, language };
}

/**
 * The one public post among those a reference matched: none is a 404; a slug public in several languages
 * without `?language=` is a 400 naming them, never a pick (not even the site's default language: a client
 * that meant another one would read the wrong post without noticing).
 */
export function onePublicPost(rows: PostRow[]): PostRow {
  if (rows.length === 0) throw postNotFound();
  if (rows.length > 1) throw ambiguous(rows.map((r) => r.language));
  return rows[0]!;
}

/** As `GET /v1/posts/{reference}` sees it: public posts only. */
export async function resolvePublicPost(
  db: D1Database,
  site: { id: string; default_language: string },
  reference: string,
  language: string | null,
  now: string,
): Promise<PostRow> {
  const publicTypes = await publicTypeSlugs(db, site.id);
  const id = parseId(reference);
  if (id) {
    const row = await getPost(db, site.id, id);
    if (!row || !isPublic(row, now, publicTypes)) throw postNotFound();
    return row;
  }
  const rows = (await postsBySlug(db, site.id, reference, language)).filter((r) =>
    isPublic(r, now, publicTypes),
  );
  return onePublicPost(rows);
}

/**
 * As PATCH sees it: by id any non-deleted post of the site (archived included); by slug the published,
 * draft and scheduled posts (no window, no cap); archived posts by id only. A slug that names posts in
 * several languages without `?language=` is a 400, never a silent pick: not even of the published one, so
 * an agent never edits, unpublishes or reads the source of a post it did not mean.
 */
export async function resolveEditablePost(
  db: D1Database,
  siteId: string,
  reference: string,
  language: string | null,
  now: string,
): Promise<PostRow> {
  const id = parseId(reference);
  if (id) {
    const row = await getPost(db, siteId, id);
    if (!row || row.status === "deleted") throw postNotFound();
    return row;
  }
  const rows = await postsBySlug(db, siteId, reference, language);
  const pool = rows.filter((r) => effectiveStatus(r, now) !== "archived");
  if (pool.length === 0) throw postNotFound();
  if (pool.length > 1) throw ambiguous(pool.map((r) => r.language));
  return pool[0]!;
}

/**
 * The post of a SEO read (`GET /v1/posts/{reference}/seo`): a public post, as `GET /v1/posts/{reference}`
 * resolves it, except that a secret key's slug is first checked for ambiguity as PATCH checks it (a slug
 * that names posts in several languages, public or not, without `?language=` is a 400): the reader who may
 * edit the post learns nothing new from the list, and never reads another language's SEO by accident. A
 * public key keeps the public rule (only public posts count), so no draft's language is revealed.
 */
export async function resolveSeoPost(
  db: D1Database,
  site: { id: string; default_language: string },
  secretKey: boolean,
  reference: string,
  language: string | null,
  now: string,
): Promise<PostRow> {
  if (!secretKey || parseId(reference)) return resolvePublicPost(db, site, reference, language, now);
  const row = await resolveEditablePost(db, site.id, reference, language, now);
  if (!isPublic(row, now, await publicTypeSlugs(db, site.id))) throw postNotFound();
  return row;
}
