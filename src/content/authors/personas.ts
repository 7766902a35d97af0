/**
 * Author personas: the bylines of a site. A key carries the authorship context of the staff user who
 * created it (user id and display name); its first post makes the site's persona of that context (slug
 * from the display name, unique per site), and every post it creates is authored by that persona unless
 * `author_slug` picks another persona of the site. A signed-in person (issue 34) is bylined the same way
 * with their own context: their user id and their account's display name (which comes with the grant a
 * write reads from identity, `IdentityRpc.siteGrant`), never an e-mail address; a person without a display
 * name cannot create a post.
 */

import { fail } from "../errors";
import type { KeyContext } from "../keys/key-context";
import { checkAuthorSlug } from "../posts/input";
import { checkAuthorChoice } from "../posts/roles";
import { slugCandidates } from "../posts/slug";
import { insertPersona, type Persona, personaByContext, personaBySlug, takenPersonaSlugs } from "./store";

/** Persona slugs are at most 64 characters (the `author` filter's slug limit), suffix included. */
const BASE_MAX = 56;

/** A persona slug from a display name: accents folded, anything else non-alphanumeric one hyphen. */
export function personaSlugBase(displayName: string): string {
  const base = displayName
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, BASE_MAX)
    .replace(/-+$/g, "");
  return base === "" ? "author" : base;
}

/** A display name as identity sent it, as a byline: a blank (or missing) name is none. */
export function bylineOf(name: unknown): string | null {
  return typeof name === "string" && name.trim() !== "" ? name : null;
}

/** 422 DISPLAY_NAME_REQUIRED: a person writes posts under their display name, which they have not set. */
export function displayNameRequired(): never {
  fail("DISPLAY_NAME_REQUIRED", {
    detail:
      "Your posts are bylined with your display name, and your account has none: set it on your account page (/auth/account) or with PATCH /api/v1/auth/me {display_name}.",
    details: { field: "display_name" },
  });
}

/**
 * The authorship context of who acts, or 422: a person without a display name (DISPLAY_NAME_REQUIRED), a
 * key created before keys recorded it (NO_AUTHORSHIP_CONTEXT).
 */
export function requireAuthorshipContext(key: KeyContext): { userId: string; displayName: string } {
  if (key.actor.kind === "person" && !key.authorName) displayNameRequired();
  if (!key.createdBy || !key.authorName) {
    fail(
      "NO_AUTHORSHIP_CONTEXT",
      "This key has no authorship context (created before keys recorded their creator); create a new key.",
    );
  }
  return { userId: key.createdBy, displayName: key.authorName };
}

/** The site's persona of the key's context, made on first use (a concurrent first use finds the winner's). */
export async function keyPersona(db: D1Database, key: KeyContext): Promise<Persona> {
  return contextPersona(db, key.siteId, requireAuthorshipContext(key));
}

/** The site's persona of an authorship context (user and byline), made on first use. */
export async function contextPersona(
  db: D1Database,
  siteId: string,
  context: { userId: string; displayName: string },
): Promise<Persona> {
  const existing = await personaByContext(db, siteId, context.userId, context.displayName);
  if (existing) return existing;
  const base = personaSlugBase(context.displayName);
  for (let round = 0; round < 5; round++) {
    const candidates = slugCandidates(base, 20, 1 + round * 20);
    const taken = await takenPersonaSlugs(db, siteId, candidates);
    for (const slug of candidates.filter((s) => !taken.has(s)).slice(0, 3)) {
      const row = { site_id: siteId, slug, display_name: context.displayName, user_id: context.userId };
      await insertPersona(db, { ...row, created_at: new Date().toISOString() });
      // Written by us, or the context's persona made concurrently (then the slug clash is moot).
      const made = await personaByContext(db, siteId, context.userId, context.displayName);
      if (made) return made;
    }
  }
  fail("EDIT_CONFLICT", "Could not settle an author slug; retry the request.");
}

/** An existing persona of the site by slug; unknown (or another site's) is 422 UNKNOWN_AUTHOR. */
export async function sitePersona(db: D1Database, siteId: string, slug: string | null): Promise<Persona> {
  const checked = checkAuthorSlug(slug);
  if (checked === null) fail("INVALID_AUTHOR", "A post always has an author: author_slug cannot be null.");
  const persona = await personaBySlug(db, siteId, checked);
  if (!persona) fail("UNKNOWN_AUTHOR", `The site has no author persona '${checked}'.`);
  return persona;
}

/**
 * The author of a new post: `author_slug` when sent (an existing author of the site; the key needs no
 * authorship context then), else the key's persona.
 */
export async function authorOfNewPost(
  db: D1Database,
  key: KeyContext,
  slug: string | null | undefined,
): Promise<Persona> {
  // The key's persona came with the key's fresh lookup when it exists already (no query of its own).
  if (slug === undefined || slug === null) return key.write?.persona ?? keyPersona(db, key);
  const checked = checkAuthorSlug(slug);
  const named = checked ? await personaBySlug(db, key.siteId, checked) : null;
  if (named) {
    // A person bylines posts with their own persona only, unless they may edit everyone's (posts/roles.ts).
    checkAuthorChoice(key, named);
    return named;
  }
  // The key's own persona, named before its first post made it (made only for a slug it could have).
  if (key.createdBy && key.authorName && checked?.startsWith(personaSlugBase(key.authorName))) {
    const own = key.write?.persona ?? (await keyPersona(db, key));
    if (own.slug === checked) return own;
  }
  return sitePersona(db, key.siteId, slug);
}
