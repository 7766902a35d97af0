/**
 * Who made what, and the roles' rules on posts (issue 34). A post records who created it and who changed
 * it last (`created_by_*`, `updated_by_*`: a key by its id and name, a person by user id and display name),
 * and each revision who made it (the trigger copies `updated_by_*`, migration 0020).
 *
 * The rules read `auth.actor`: an API key is bound only by its scopes (unchanged), a signed-in person by
 * the site permissions of their role (src/lib/site-permissions.ts):
 * - creating needs `posts:write_own`; a status other than draft (publish, schedule, archive) `posts:publish`;
 * - changing a post the person did not create (PATCH, SEO, DELETE, unpublish, restore, preview) needs
 *   `posts:edit_any`; their own needs `posts:write_own` (or `posts:edit_any`);
 * - a post that is not a draft (published, scheduled, archived) needs `posts:publish` to be changed or
 *   deleted, and unpublishing needs it always: a contributor edits and deletes only its own drafts;
 * - naming another author (`author_slug`) than the person's own persona needs `posts:edit_any`.
 * A refusal is 403 FORBIDDEN with `details.missing` (the first permission missing).
 */
import type { SitePermission } from "../../lib/site-permissions";
import { fail } from "../errors";
import type { KeyContext } from "../keys/key-context";
import { effectiveStatus, type PostRow } from "./store";

/** An actor as posts and revisions record it, and as the source and the revision list show it. */
export interface ActorStamp {
  kind: "key" | "person";
  /** The key's id, or the person's user id. */
  id: string;
  /** The key's name, or the person's display name (null when none was known). */
  name: string | null;
}

/** Who acts on this request, as a post records it. */
export function actorStamp(auth: Pick<KeyContext, "actor" | "authorName">): ActorStamp {
  const { actor } = auth;
  if (actor.kind === "person") return { kind: "person", id: actor.userId, name: auth.authorName };
  return { kind: "key", id: actor.keyId, name: actor.name ?? null };
}

/** The `created_by_*` and `updated_by_*` columns of a new post made by `by`. */
export function creationStamp(by: ActorStamp) {
  return {
    created_by_kind: by.kind,
    created_by_id: by.id,
    created_by_name: by.name,
    ...updateStamp(by),
  };
}

/** The `updated_by_*` columns of a change made by `by`. */
export function updateStamp(by: ActorStamp) {
  return { updated_by_kind: by.kind, updated_by_id: by.id, updated_by_name: by.name };
}

/** `{kind, id, name}` of a stored actor, or null when none was recorded. */
export function actorView(
  kind: "key" | "person" | null,
  id: string | null,
  name: string | null,
): ActorStamp | null {
  return kind && id ? { kind, id, name } : null;
}

function refuse(missing: SitePermission, what: string): never {
  fail("FORBIDDEN", {
    detail: `${what} requires the site permission ${missing}.`,
    details: { missing },
  });
}

/** The person's permission `needed`, or 403 naming it; keys pass (their scopes were checked). */
function needs(auth: Pick<KeyContext, "actor">, needed: SitePermission, what: string): void {
  if (auth.actor.kind === "person" && !auth.actor.permissions.has(needed)) refuse(needed, what);
}

/** Whether the post was created by the acting person (never true for a key). */
export function isOwnPost(
  auth: Pick<KeyContext, "actor">,
  post: Pick<PostRow, "created_by_kind" | "created_by_id">,
): boolean {
  return (
    auth.actor.kind === "person" &&
    post.created_by_kind === "person" &&
    post.created_by_id === auth.actor.userId
  );
}

/** The person's own post needs `posts:write_own` (or `posts:edit_any`), another's `posts:edit_any`. */
function checkOwnOrAny(
  auth: Pick<KeyContext, "actor">,
  post: Pick<PostRow, "created_by_kind" | "created_by_id">,
  own: string,
  others: string,
): void {
  if (auth.actor.kind !== "person") return;
  if (!isOwnPost(auth, post)) needs(auth, "posts:edit_any", others);
  else if (!auth.actor.permissions.has("posts:edit_any")) needs(auth, "posts:write_own", own);
}

/** Creating a post with `status` (absent: draft). */
export function checkCreate(auth: Pick<KeyContext, "actor">, status: string | undefined): void {
  needs(auth, "posts:write_own", "Creating a post");
  if (status !== undefined && status !== "draft") needs(auth, "posts:publish", `A post ${status}`);
}

/**
 * Changing (or deleting) the existing post `post`: another's needs `posts:edit_any`, one's own
 * `posts:write_own`; a post that is not a draft `posts:publish`.
 */
export function checkChange(
  auth: Pick<KeyContext, "actor">,
  post: Pick<PostRow, "created_by_kind" | "created_by_id" | "status" | "published_at">,
  now: string,
  what = "Changing this post",
): void {
  if (auth.actor.kind !== "person") return;
  checkOwnOrAny(auth, post, what, `${what} (created by someone else)`);
  if (effectiveStatus(post, now) !== "draft") needs(auth, "posts:publish", `${what} (not a draft)`);
}

/** A PATCH's new status (when sent): anything but draft needs `posts:publish`. */
export function checkStatusChange(auth: Pick<KeyContext, "actor">, status: string | undefined): void {
  if (status !== undefined && status !== "draft") needs(auth, "posts:publish", `Making a post ${status}`);
}

/** Unpublishing: `posts:publish`, and `posts:edit_any` for another's post. */
export function checkUnpublish(
  auth: Pick<KeyContext, "actor">,
  post: Pick<PostRow, "created_by_kind" | "created_by_id">,
): void {
  if (auth.actor.kind !== "person") return;
  needs(auth, "posts:publish", "Unpublishing a post");
  if (!isOwnPost(auth, post)) needs(auth, "posts:edit_any", "Unpublishing someone else's post");
}

/** A preview link of the post: another's needs `posts:edit_any`, one's own `posts:write_own`. */
export function checkPreview(
  auth: Pick<KeyContext, "actor">,
  post: Pick<PostRow, "created_by_kind" | "created_by_id">,
): void {
  checkOwnOrAny(auth, post, "A preview of a post", "A preview of someone else's post");
}

/**
 * `author_slug` naming a persona other than the person's own (`own`: the person's persona slug, when it
 * exists) needs `posts:edit_any`: a contributor or author bylines posts with themselves only.
 */
export function checkAuthorChoice(
  auth: Pick<KeyContext, "actor">,
  chosen: { slug: string; user_id?: string | null },
): void {
  if (auth.actor.kind !== "person") return;
  if (chosen.user_id === auth.actor.userId) return;
  needs(auth, "posts:edit_any", `Naming the author ${chosen.slug}`);
}
