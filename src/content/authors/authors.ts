/**
 * Authors as integrators manage them (issue 22): `GET /v1/authors` (every author for a ck_ key; for a pk_
 * key only those a public post names, with their public fields), `POST /v1/authors` and
 * `PATCH /v1/authors/{slug}` (name, bio, avatar, slug). Authors are the site's author personas
 * (personas.ts): a post's `author_slug` names one. Renaming an author (slug or name) renames the
 * byline of its posts in the same batch.
 */
import { newId } from "../../lib/ids";
import type { Env } from "../core/bindings";
import { cachedPublicAnswer, type EdgePlace, freshUntil, type PublicAnswer } from "../core/edge-cache";
import { fail, problem } from "../errors";
import type { KeyContext } from "../keys/key-context";
import { imageView } from "../media/image-view";
import type { MediaImageRow } from "../media/media-image";
import { checkAuthorSlug, checkMediaId } from "../posts/input";
import { slugCandidates } from "../posts/slug";
import { mediaExists } from "../posts/store";
import { personaSlugBase } from "./personas";
import {
  type AuthorRow,
  authorBySlug,
  insertAuthorStatement,
  listAuthors,
  takenPersonaSlugs,
  updateAuthor,
} from "./store";

export interface AuthorInput {
  name?: string;
  slug?: string;
  bio?: string | null;
  avatar_media_id?: string | null;
}

/** An author on the wire: public fields for everyone, the dates for ck_ keys only. */
export function authorView(env: Pick<Env, "MEDIA_PUBLIC_BASE">, row: AuthorRow, secret: boolean) {
  let avatar = null;
  if (row.avatar_media) {
    try {
      avatar = imageView(
        env.MEDIA_PUBLIC_BASE,
        JSON.parse(row.avatar_media) as MediaImageRow,
        row.display_name,
      );
    } catch {
      avatar = null;
    }
  }
  const view = { slug: row.slug, display_name: row.display_name, bio: row.bio, avatar };
  return secret
    ? {
        ...view,
        avatar_media_id: row.avatar_media_id,
        created_at: row.created_at,
        updated_at: row.updated_at ?? row.created_at,
      }
    : view;
}

/**
 * The author list (and with `withTotal` how many authors the key may see in all), cached like the public
 * reads (author and post writes move the content version).
 */
export function authorsAnswer(
  env: Env,
  key: KeyContext,
  withTotal: boolean,
  place: EdgePlace,
): Promise<PublicAnswer> {
  const secret = key.kind === "secret";
  return cachedPublicAnswer(place, key, "authors", { total: withTotal }, async (now) => {
    const at = new Date(now).toISOString();
    const { rows, total } = await listAuthors(env.DB, key.siteId, secret ? null : { now: at }, withTotal);
    // A pk_ answer depends on which posts are public: it lasts until the next publication at most.
    return {
      value: { items: rows.map((r) => authorView(env, r, secret)), ...(total !== null ? { total } : {}) },
      freshUntil: freshUntil(now, null),
    };
  });
}

async function checkAvatar(env: Env, siteId: string, value: string | null | undefined) {
  if (value === undefined || value === null) return value;
  const id = checkMediaId(value);
  // Another site's media id answers exactly like a missing one.
  if (!(await mediaExists(env.DB, siteId, id)))
    fail("UNKNOWN_MEDIA", "avatar_media_id is not a media asset of this site.");
  return id;
}

function authorSlugTaken() {
  return problem("SLUG_TAKEN", "The site already has an author with this slug.");
}

function isAuthorClash(error: unknown): boolean {
  return error instanceof Error && /UNIQUE constraint failed: author_personas\./i.test(error.message);
}

/** `POST /v1/authors`: an explicit slug must be free (409); a derived one gets -2, -3, … */
export async function createAuthor(
  env: Env,
  siteId: string,
  input: Required<Pick<AuthorInput, "name">> & AuthorInput,
) {
  const avatar = (await checkAvatar(env, siteId, input.avatar_media_id)) ?? null;
  const now = new Date().toISOString();
  const insert = async (slug: string) => {
    const author = { id: newId(), slug, name: input.name, bio: input.bio ?? null, avatarMediaId: avatar };
    await insertAuthorStatement(env.DB, siteId, author, now).run();
    return (await authorBySlug(env.DB, siteId, slug))!;
  };
  try {
    if (input.slug !== undefined) return await insert(checkAuthorSlug(input.slug)!);
    const base = personaSlugBase(input.name);
    for (let round = 0; round < 5; round++) {
      const candidates = slugCandidates(base, 20, 1 + round * 20);
      const taken = await takenPersonaSlugs(env.DB, siteId, candidates);
      const free = candidates.find((s) => !taken.has(s));
      if (free) return await insert(free);
    }
    return await insert(`${base}-${newId().slice(-8).toLowerCase()}`);
  } catch (error) {
    if (isAuthorClash(error)) throw authorSlugTaken();
    throw error;
  }
}

/** `PATCH /v1/authors/{slug}`: only sent fields change; unknown slug is 404, a taken new slug 409. */
export async function editAuthor(env: Env, siteId: string, slug: string, input: AuthorInput) {
  if (!(["name", "slug", "bio", "avatar_media_id"] as const).some((f) => input[f] !== undefined)) {
    fail("NOTHING_EDITABLE", "The body contains no editable field (name, slug, bio, avatar_media_id).");
  }
  const current = await authorBySlug(env.DB, siteId, slug);
  if (!current) fail("NOT_FOUND", "No such author.");
  const avatar = await checkAvatar(env, siteId, input.avatar_media_id);
  const next = {
    slug: input.slug !== undefined ? checkAuthorSlug(input.slug)! : current.slug,
    name: input.name ?? current.display_name,
    bio: input.bio !== undefined ? input.bio : current.bio,
    avatarMediaId: avatar !== undefined ? avatar : current.avatar_media_id,
  };
  try {
    if (!(await updateAuthor(env.DB, siteId, slug, next, new Date().toISOString()))) {
      fail("NOT_FOUND", "No such author.");
    }
  } catch (error) {
    if (isAuthorClash(error)) throw authorSlugTaken();
    throw error;
  }
  return (await authorBySlug(env.DB, siteId, next.slug))!;
}
