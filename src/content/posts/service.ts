/** The post operations behind the routes: create, update, unpublish. Rules in plain functions, one D1 batch each. */
import { newId } from "../../lib/ids";
import { errorFields } from "../../lib/log";
import type { ApiError } from "../../lib/problem";
import type { SiteProjection } from "../../lib/rpc";
import { batch } from "../../lib/sql";
import { authorOfNewPost, sitePersona } from "../authors/personas";
import type { Env, Services } from "../core/bindings";
import { clockIso } from "../core/clock";
import { postUrl, postUrlRoot } from "../core/effects/outbound";
import { deliverEffects, deliverWrittenEffects, type PostEffect, postEffect } from "../core/effects/pending";
import { effectAfterUpdateStatement } from "../core/effects/store";
import type { StoredResponse } from "../core/idempotency-store";
import { fail, problem } from "../errors";
import { keySite } from "../keys/api-key";
import type { KeyContext } from "../keys/key-context";
import { mediaImageRow } from "../media/store";
import { getPostType } from "../site/store";
import { type ContentEvent, type PostEventType, postEvent } from "../webhooks/events";
import { subscribedEventStatement, unsubscribedEventRecordStatement } from "../webhooks/store";
import type { BlockWarning } from "./blocks/check";
import { type CheckedBlocks, checkBlocks } from "./blocks/write";
import { bodyBlocks, type ConversionNote, conversionMember } from "./convert/body";
import {
  type CreatePostInput,
  checkLanguage,
  checkMediaId,
  checkPostType,
  checkPublishedAt,
  checkSlug,
  checkTaxonomy,
  mergeTaxonomy,
  settleStatus,
  type UpdatePostInput,
} from "./input";
import { postNotFound, resolveEditablePost } from "./resolve";
import { effectiveRevision, preconditionHolds, type RevisionPrecondition } from "./revision-tag";
import {
  type ActorStamp,
  actorStamp,
  checkAuthorChoice,
  checkChange,
  checkStatusChange,
  checkUnpublish,
  creationStamp,
  updateStamp,
} from "./roles";
import { postSummary, warningsMember } from "./shapes";
import { slugCandidates, slugify } from "./slug";
import {
  editPostFieldsStatement,
  effectiveStatus,
  getPost,
  insertPostStatement,
  isPublic,
  mediaExists,
  type PlainFields,
  type PostRow,
  postUpdatedEffectStatement,
  publicTypeSlugs,
  softDeletePostStatement,
  takenSlugs,
  unpublishPostStatement,
  updatePostStatement,
} from "./store";

/** A clash on (site, slug, language); other unique constraints (e.g. import lines) are not slug clashes. */
function isUniqueViolation(error: unknown): boolean {
  return error instanceof Error && /UNIQUE constraint failed: posts\./i.test(error.message);
}

function slugTaken(): ApiError {
  return problem("SLUG_TAKEN", "A post with this slug already exists in this language on the site.");
}

async function checkPostTypeExists(
  env: Env,
  siteId: string,
  slug: string,
  key?: KeyContext,
): Promise<string> {
  checkPostType(slug);
  const exists = key?.write ? key.write.postTypes.has(slug) : await getPostType(env.DB, siteId, slug);
  if (!exists) {
    fail("UNKNOWN_POST_TYPE", `The site has no post type '${slug}'.`);
  }
  return slug;
}

async function checkFeaturedImage(env: Env, siteId: string, value: string): Promise<string> {
  const id = checkMediaId(value);
  // Another site's media id answers exactly like a missing one.
  if (!(await mediaExists(env.DB, siteId, id))) {
    fail("UNKNOWN_MEDIA", "featured_image_id is not a media asset of this site.");
  }
  return id;
}

/** The row with its featured image's media (`featured_media`), for the answers of writes. */
export async function withFeaturedMedia(db: D1Database, row: PostRow): Promise<PostRow> {
  const media = row.featured_image_id ? await mediaImageRow(db, row.site_id, row.featured_image_id) : null;
  return { ...row, featured_media: media ? JSON.stringify(media) : null };
}

export async function createPost(
  env: Env,
  services: Services,
  key: KeyContext,
  input: CreatePostInput,
  /** Extra statements written in the same batch as the post (idempotency record, import line). */
  record?: (response: StoredResponse, postId: string) => D1PreparedStatement,
  /**
   * Where the outbox is delivered after the answer (the request's `waitUntil`); without it, before. The
   * cron delivers whatever a delivery left behind.
   */
  after?: (work: Promise<unknown>) => void,
  /**
   * An import line's blocks, already checked as an import (it keeps block types outside the catalogue:
   * blocks/write.ts); without it the body is checked as a create, which refuses them (422).
   */
  imported?: CheckedBlocks,
): Promise<StoredResponse> {
  const now = clockIso();
  // The key's fresh lookup brought the site, the key's persona and the post types (KeyContext.write).
  const site = key.write?.site ?? (await keySite(env.DB, key));
  const language = input.language !== undefined ? checkLanguage(input.language) : site.default_language;
  const author = await authorOfNewPost(env.DB, key, input.author_slug);
  const postType = await checkPostTypeExists(env, site.id, input.post_type ?? "post", key);
  const featured =
    input.featured_image_id != null ? await checkFeaturedImage(env, site.id, input.featured_image_id) : null;
  const settled = settleStatus(input.status ?? "draft", checkPublishedAt(input.published_at ?? null), now);
  // An HTML or Markdown body becomes blocks here, then is checked like any blocks_json.
  const body = bodyBlocks(input, env.MEDIA_PUBLIC_BASE);
  const blocks = imported ?? checkBlocks(body.blocks_json, "create");
  const row: PostRow = {
    id: newId(),
    site_id: site.id,
    slug: "",
    language,
    post_type: postType,
    title: input.title,
    summary: input.summary ?? null,
    blocks_json: blocks.text,
    status: settled.status,
    access: input.access ?? "public",
    published_at: settled.published_at,
    author_slug: author.slug,
    author_name: author.display_name,
    author_user_id: key.createdBy,
    featured_image_id: featured,
    seo_json: mergeTaxonomy("{}", input.category_slugs ?? [], input.tag_slugs ?? []),
    // The key's id, or null for a person (their pseudo key of the gate is no key: created_by_* says who).
    created_by_key_id: key.actor.kind === "key" ? key.keyId : null,
    ...creationStamp(actorStamp(key)),
    review_requested: 0,
    fields: null,
    created_at: now,
    updated_at: now,
    revision: 0,
  };

  // A post created public is published: its event is an outbox row of the insert's batch (when someone subscribes).
  const publishes = isPublic(
    row,
    now,
    key.write?.publicPostTypes ?? (await publicTypeSlugs(env.DB, site.id)),
  );
  const shown = await withFeaturedMedia(env.DB, row);
  const at = { site, platformDomain: env.PLATFORM_DOMAIN, mediaBase: env.MEDIA_PUBLIC_BASE };
  const insert = async (slug: string) => {
    const candidate = { ...row, slug };
    const response: StoredResponse = {
      status: 201,
      body: JSON.stringify({
        ...postSummary({ ...shown, slug }, now, at),
        ...warningsMember(blocks.warnings),
        ...conversionMember(body.conversion),
      }),
      location: `/v1/posts/${candidate.id}`,
    };
    const event = publishes
      ? postEventEffect("post.published", site, candidate, now, env.PLATFORM_DOMAIN)
      : null;
    // Its outbox row only if a webhook of the site subscribes (the event's only receivers), decided in the batch.
    const statements = [insertPostStatement(env.DB, candidate)];
    const eventAt = event ? statements.push(subscribedEventStatement(env.DB, event, now)) - 1 : -1;
    if (record) statements.push(record(response, candidate.id));
    if (event && env.DEV_OUTBOX === "true")
      statements.push(unsubscribedEventRecordStatement(env.DB, event, now));
    const outcomes = await batch(env.DB, statements);
    // The row written (its id returned), it is delivered from memory, without reading it back.
    const effects = event && (outcomes[eventAt]?.rows.length ?? 0) > 0 ? [event] : [];
    if (effects.length === 0) return response;
    const delivery = deliverWrittenEffects(env, services, effects);
    if (after) after(delivery.catch((error) => logDeliveryError(services, error)));
    else await delivery;
    return response;
  };

  if (input.slug !== undefined) {
    try {
      return await insert(checkSlug(input.slug));
    } catch (error) {
      if (isUniqueViolation(error)) throw slugTaken();
      throw error;
    }
  }
  // Derived slug: first free of base, base-2, base-3, … (a concurrent insert may win a candidate: retry).
  // The base itself is tried first without a query: a new title's slug is usually free.
  const base = slugify(input.title);
  try {
    return await insert(base);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
  }
  for (let round = 0; round < 5; round++) {
    const candidates = slugCandidates(base, 20, 1 + round * 20);
    const taken = await takenSlugs(env.DB, site.id, language, candidates);
    for (const slug of candidates.filter((s) => !taken.has(s)).slice(0, 3)) {
      try {
        return await insert(slug);
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
      }
    }
  }
  return insert(`${base}-${row.id.slice(-8).toLowerCase()}`);
}

/** A delivery after the answer that failed past its own bookkeeping: the row stays for the cron. */
function logDeliveryError(services: Services, error: unknown) {
  services.log.error("effect_delivery_after_answer_failed", errorFields(error));
}

const EDITABLE_FIELDS = [
  "title",
  "slug",
  "summary",
  "blocks_json",
  "html",
  "markdown",
  "status",
  "published_at",
  "language",
  "post_type",
  "author_slug",
  "featured_image_id",
  "category_slugs",
  "tag_slugs",
  "access",
  "review_requested",
] as const;

/** The later of two ISO-8601 UTC timestamps (text order is time order). */
function laterTimestamp(a: string, b: string): string {
  if (a >= b) return a;
  return b;
}

/**
 * When an edit that keeps losing to concurrent edits of the same post gives up with a 409. Every lost
 * attempt means another edit of that post committed, so the bound counts losses, not time: a burst of N
 * concurrent edits needs at most N - 1 retries whatever the machine's speed (a time bound made a burst of 30
 * answer 409 on a slow, loaded machine), and only a sustained stream of writes to one post, beyond two
 * minutes of a key's write quota, exhausts it. The deadline is the backstop for a database that stalls.
 */
export const EDIT_MAX_LOST_ATTEMPTS = 120;
const EDIT_RETRY_MS = 30_000;

function editConflict(): ApiError {
  return problem("EDIT_CONFLICT", {
    detail: "The post kept changing concurrently; retry the request.",
    headers: { "retry-after": "1" },
  });
}

function preconditionFailed(): ApiError {
  return problem(
    "PRECONDITION_FAILED",
    "If-Match does not name the post's current revision (its ETag): read it again, nothing was changed.",
  );
}

/** A short random pause between attempts, growing with them, so losers of a race do not collide again. */
function backoff(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 * attempt)));
}

/**
 * An edit of plain fields (no visibility, date, slug or language change) as ONE conditional statement:
 * it never conflicts with a concurrent edit, only the sent columns change, and of two edits of one column
 * the later wins. `precondition` is If-Match (a 412 when it names a stale revision). A published public
 * post announces the change: the `post.updated` outbox row is the next statement of the same batch,
 * written only when the UPDATE applied and built from the row as the UPDATE left it.
 */
export async function editPostFields(
  env: Env,
  services: Services,
  /** `site` null (a projection not there yet): the edit announces nothing. */
  post: { siteId: string; site: SiteProjection | null; id: string },
  fields: PlainFields,
  seoPatch: Record<string, unknown> | null,
  precondition: RevisionPrecondition,
): Promise<PostRow> {
  const revisions = Array.isArray(precondition) ? precondition : null;
  const stamp = clockIso();
  const target = { siteId: post.siteId, id: post.id };
  const eventId = newId();
  const edit = editPostFieldsStatement(env.DB, target, fields, seoPatch, stamp, revisions);
  const [result] = await batch(
    env.DB,
    post.site
      ? [
          edit,
          postUpdatedEffectStatement(
            env.DB,
            eventId,
            target,
            postUrlRoot(post.site, env.PLATFORM_DOMAIN),
            stamp,
          ),
        ]
      : [edit],
  );
  const row = result.rows[0];
  if (row) {
    if (post.site)
      await deliverEffects(env, services, [
        { ...postEffect(target.siteId, post.id, "event", null), id: eventId },
      ]);
    return row;
  }
  const current = await getPost(env.DB, target.siteId, post.id);
  if (!current || current.status === "deleted") throw postNotFound();
  throw preconditionFailed();
}

/**
 * Read-modify-write of one post with optimistic concurrency: `apply` computes the next row from the
 * freshly read one; the write succeeds only if nobody wrote in between (revision check), else the post
 * is read again by id and `apply` runs again. `extra(existing, next)` adds statements to the same batch
 * (outbox rows that must exist exactly when the update happened). The row records `by` as its last
 * changer, and a post that is no longer a draft no longer awaits review.
 */
export async function editPost(
  env: Env,
  siteId: string,
  first: PostRow,
  /** Who makes the edit: the row's `updated_by_*` (and so its revision's `made_by`). */
  by: ActorStamp,
  apply: (existing: PostRow) => Promise<PostRow>,
  extra: (existing: PostRow, next: PostRow) => D1PreparedStatement[] = () => [],
  precondition: RevisionPrecondition = null,
): Promise<{ existing: PostRow; next: PostRow }> {
  let existing: PostRow | null = first;
  const deadline = Date.now() + EDIT_RETRY_MS;
  for (
    let attempt = 0;
    attempt <= EDIT_MAX_LOST_ATTEMPTS && (attempt === 0 || Date.now() < deadline);
    attempt++
  ) {
    if (attempt > 0) {
      await backoff(attempt);
      existing = await getPost(env.DB, siteId, first.id);
      if (!existing || existing.status === "deleted") throw postNotFound();
    }
    const current: PostRow = existing!;
    // updated_at is taken per attempt and never goes backwards: a retried edit commits after the edit it
    // lost to, so it must not look older to `since` (incremental sync) readers.
    const stamp = clockIso();
    // If-Match is checked against the row this attempt writes over (the update is guarded by its revision).
    if (!preconditionHolds(precondition, effectiveRevision(current, stamp))) throw preconditionFailed();
    const applied = await apply(current);
    const next: PostRow = {
      ...applied,
      ...updateStamp(by),
      // Only drafts await review: publishing (or scheduling, archiving) clears the request.
      review_requested: applied.status === "draft" ? applied.review_requested : 0,
      updated_at: laterTimestamp(stamp, current.updated_at),
    };
    let changed: number;
    try {
      const [update] = await batch(env.DB, [updatePostStatement(env.DB, next), ...extra(current, next)]);
      changed = update.changes;
    } catch (error) {
      if (isUniqueViolation(error)) throw slugTaken();
      throw error;
    }
    // D1 counts rows changed by triggers (the FTS index) too: any change means the guarded UPDATE ran.
    if (changed > 0) return { existing: current, next: { ...next, revision: current.revision + 1 } };
  }
  throw editConflict();
}

export async function updatePost(
  env: Env,
  services: Services,
  key: KeyContext,
  reference: string,
  language: string | null,
  input: UpdatePostInput & ReviewRequest,
  precondition: RevisionPrecondition = null,
): Promise<{
  post: PostRow;
  site: SiteProjection;
  warnings: BlockWarning[];
  conversion: ConversionNote | null;
}> {
  const now = clockIso();
  if (!EDITABLE_FIELDS.some((f) => input[f] !== undefined)) {
    fail("NOTHING_EDITABLE", "The body contains no editable field.");
  }
  const resolved = await resolveEditablePost(env.DB, key.siteId, reference, language, now);
  // The roles' rules (a person's; keys are bound by their scopes only): see roles.ts.
  checkChange(key, resolved, now);
  checkStatusChange(key, input.status);
  checkReviewRequest(input, resolved, now);
  // A due scheduled post is stored as published (and announced) by the read-modify-write path below.
  const dueScheduled = resolved.status === "scheduled" && effectiveStatus(resolved, now) === "published";
  // Read once: the edit's effects and the answer's url are built from it.
  const site = await keySite(env.DB, key);
  // The body's blocks against the catalogue (an unknown type is 400 here), once, before either path.
  const body = bodyBlocks(input, env.MEDIA_PUBLIC_BASE);
  const { conversion } = body;
  const checked = body.blocks_json !== undefined ? checkBlocks(body.blocks_json, "update") : undefined;
  const blocks = checked?.text;
  const warnings = checked?.warnings ?? [];
  if (!dueScheduled && !VISIBILITY_FIELDS.some((f) => input[f] !== undefined)) {
    const post = await editPlainFields(env, key, site, resolved.id, input, blocks, precondition, services);
    return { post, site, warnings, conversion };
  }
  // Checks that read other tables run once, before the edit loop.
  const postType =
    input.post_type !== undefined ? await checkPostTypeExists(env, key.siteId, input.post_type) : undefined;
  const featured =
    input.featured_image_id === undefined || input.featured_image_id === null
      ? input.featured_image_id
      : await checkFeaturedImage(env, key.siteId, input.featured_image_id);
  const author =
    input.author_slug !== undefined ? await sitePersona(env.DB, key.siteId, input.author_slug) : undefined;
  if (author) checkAuthorChoice(key, author);
  const publicTypes = await publicTypeSlugs(env.DB, key.siteId);

  const apply = async (existing: PostRow): Promise<PostRow> => {
    const next: PostRow = { ...existing, updated_at: now };
    if (input.title !== undefined) next.title = input.title;
    if (input.summary !== undefined) next.summary = input.summary;
    if (blocks !== undefined) next.blocks_json = blocks;
    if (input.slug !== undefined) next.slug = checkSlug(input.slug);
    if (input.language !== undefined) next.language = checkLanguage(input.language);
    if (postType !== undefined) next.post_type = postType;
    if (author !== undefined)
      Object.assign(next, { author_slug: author.slug, author_name: author.display_name });
    if (input.access !== undefined) next.access = input.access;
    if (input.review_requested !== undefined) next.review_requested = input.review_requested ? 1 : 0;
    // featured_image_id: a value sets the cover, null clears it, omitted leaves it.
    if (featured !== undefined) next.featured_image_id = featured;
    if (input.category_slugs !== undefined || input.tag_slugs !== undefined) {
      next.seo_json = mergeTaxonomy(existing.seo_json, input.category_slugs, input.tag_slugs);
    }
    if (input.status !== undefined || input.published_at !== undefined) {
      const current = effectiveStatus(existing, now);
      const status = input.status ?? (current === "deleted" ? "draft" : current);
      const publishedAt =
        input.published_at !== undefined ? checkPublishedAt(input.published_at) : existing.published_at;
      Object.assign(next, settleStatus(status, publishedAt, now));
    }
    // A scheduled post whose time has come is published: stored as such, it is announced once.
    if (next.status === "scheduled" && next.published_at !== null && next.published_at <= now) {
      next.status = "published";
    }
    return next;
  };

  // Side effects are outbox rows of the same batch as the edit, so they exist exactly when the edit does.
  const pending: { effects: PostEffect[] } = { effects: [] };
  const extra = (existing: PostRow, next: PostRow): D1PreparedStatement[] => {
    pending.effects = editEffects(site, existing, next, now, publicTypes, env.PLATFORM_DOMAIN);
    // Moving the date of a live post changes what search engines show: tell them (IndexNow).
    if (
      isPublic(existing, now, publicTypes) &&
      input.published_at !== undefined &&
      next.published_at !== existing.published_at
    ) {
      const url = postUrl(site, next, env.PLATFORM_DOMAIN);
      pending.effects.push(postEffect(site.id, next.id, "indexnow", { urls: [url] }));
    }
    return pending.effects.map((effect) => effectAfterUpdateStatement(env.DB, effect, now));
  };
  const by = actorStamp(key);
  const { next } = await editPost(env, key.siteId, resolved, by, apply, extra, precondition);
  await deliverEffects(env, services, pending.effects);
  return { post: next, site, warnings, conversion };
}

/** The dashboard's PATCH member beyond UpdatePost (issue 34): a draft marked ready for review, or not. */
export interface ReviewRequest {
  review_requested?: boolean | undefined;
}

/** `review_requested: true` on a post that is not (or will not be) a draft: 409 POST_NOT_DRAFT. */
function checkReviewRequest(input: UpdatePostInput & ReviewRequest, post: PostRow, now: string): void {
  if (input.review_requested !== true) return;
  const status = input.status ?? effectiveStatus(post, now);
  if (status !== "draft") {
    fail("POST_NOT_DRAFT", `Only a draft can be marked ready for review (this post is ${status}).`);
  }
}

/**
 * The webhook event of an edit: `post.published` when it puts the post into public view (or publishes
 * a due scheduled post nobody announced yet), `post.updated` when a published public post stays public,
 * `post.unpublished` when it leaves public view; null for edits nobody outside can see.
 */
export function postChangeEvent(
  existing: PostRow,
  next: PostRow,
  now: string,
  publicTypes: ReadonlySet<string>,
): PostEventType | null {
  const wasPublic = isPublic(existing, now, publicTypes);
  const isNowPublic = isPublic(next, now, publicTypes);
  if (wasPublic && !isNowPublic) return "post.unpublished";
  if (!isNowPublic) return null;
  return wasPublic && existing.status === "published" ? "post.updated" : "post.published";
}

/**
 * The outbox effects of a read-modify-write edit from `existing` to `next`: its webhook event; taking a
 * public post out of public view (status, access, a future date, a private type) is an unpublication
 * whatever the route (the same event and purge as unpublish); a public post that stays public under
 * another URL (slug, language, or its move under /legal/) has its old page purged.
 */
export function editEffects(
  site: SiteProjection,
  existing: PostRow,
  next: PostRow,
  now: string,
  publicTypes: ReadonlySet<string>,
  platformDomain: string,
): PostEffect[] {
  const effects: PostEffect[] = [];
  const event = postChangeEvent(existing, next, now, publicTypes);
  if (event && event !== "post.unpublished")
    effects.push(postEventEffect(event, site, next, now, platformDomain));
  if (!isPublic(existing, now, publicTypes)) return effects;
  if (!isPublic(next, now, publicTypes)) {
    effects.push(...unpublicationEffects(site, existing, next, now, platformDomain));
    return effects;
  }
  const oldUrl = postUrl(site, existing, platformDomain);
  if (oldUrl !== postUrl(site, next, platformDomain)) {
    effects.push(postEffect(site.id, next.id, "cache_purge", { urls: [oldUrl] }));
  }
  return effects;
}

/** Fields whose change may change whether or where the post is public (effects): edited read-modify-write. */
const VISIBILITY_FIELDS = ["slug", "language", "post_type", "status", "published_at", "access"] as const;

async function editPlainFields(
  env: Env,
  key: KeyContext,
  site: SiteProjection,
  id: string,
  input: UpdatePostInput & ReviewRequest,
  /** The checked body's text (null clears it), or undefined when not sent. */
  blocks: string | null | undefined,
  precondition: RevisionPrecondition,
  services: Services,
): Promise<PostRow> {
  // author_slug names an existing persona of the site (its display name is stored next to it).
  const author =
    input.author_slug !== undefined ? await sitePersona(env.DB, key.siteId, input.author_slug) : undefined;
  if (author) checkAuthorChoice(key, author);
  const fields: PlainFields = {
    ...updateStamp(actorStamp(key)),
    review_requested: input.review_requested === undefined ? undefined : input.review_requested ? 1 : 0,
    title: input.title,
    summary: input.summary,
    blocks_json: blocks,
    author_slug: author?.slug,
    author_name: author?.display_name,
    // featured_image_id: a value sets the cover, null clears it, omitted leaves it.
    featured_image_id:
      input.featured_image_id == null
        ? input.featured_image_id
        : await checkFeaturedImage(env, key.siteId, input.featured_image_id),
  };
  const taxonomy: Record<string, string[]> = {};
  if (input.category_slugs !== undefined)
    taxonomy.category_slugs = checkTaxonomy("category_slugs", input.category_slugs);
  if (input.tag_slugs !== undefined) taxonomy.tag_slugs = checkTaxonomy("tag_slugs", input.tag_slugs);
  const seoPatch = Object.keys(taxonomy).length > 0 ? taxonomy : null;
  return editPostFields(env, services, { siteId: key.siteId, site, id }, fields, seoPatch, precondition);
}

/** A post event as an outbox effect (the effect's id is the event's id). */
function postEventEffect(
  type: PostEventType,
  site: SiteProjection,
  post: PostRow,
  now: string,
  platformDomain: string,
  page: Pick<PostRow, "slug" | "language" | "fields"> = post,
): PostEffect & { payload: ContentEvent } {
  const event = postEvent(type, site, post, now, platformDomain, page);
  return { ...postEffect(site.id, post.id, "event", event), id: event.id, payload: event };
}

/** The unpublication event (of the page that left public view) and the purge of that page, as outbox effects. */
function unpublicationEffects(
  site: SiteProjection,
  existing: PostRow,
  next: PostRow,
  now: string,
  platformDomain: string,
): PostEffect[] {
  const url = postUrl(site, existing, platformDomain);
  return [
    postEventEffect("post.unpublished", site, next, now, platformDomain, existing),
    postEffect(site.id, existing.id, "cache_purge", { urls: [url] }),
  ];
}

export async function unpublishPost(
  env: Env,
  services: Services,
  key: KeyContext,
  reference: string,
  language: string | null,
): Promise<{ post: PostRow; site: SiteProjection }> {
  const now = clockIso();
  const existing = await resolveEditablePost(env.DB, key.siteId, reference, language, now);
  checkUnpublish(key, existing);
  const notPublished = () =>
    problem(
      "POST_NOT_PUBLISHED",
      `Only a published post can be unpublished (this one is ${effectiveStatus(existing, now)}).`,
    );
  if (effectiveStatus(existing, now) !== "published") throw notPublished();
  const site = await keySite(env.DB, key);
  const by = updateStamp(actorStamp(key));
  const archived: PostRow = {
    ...existing,
    ...by,
    status: "archived",
    updated_at: now,
    revision: existing.revision + 1,
  };
  const effects = unpublicationEffects(site, existing, archived, now, env.PLATFORM_DOMAIN);
  // One batch: the conditional update (of two concurrent unpublishes exactly one changes the row; the
  // other is a 409) and the outbox rows of its event and purge, written only if the update happened.
  const [update] = await batch(env.DB, [
    unpublishPostStatement(env.DB, key.siteId, existing.id, now, by),
    effectAfterUpdateStatement(env.DB, effects[0]!, now),
    // changes() now refers to the event insert, which happened exactly when the update did.
    effectAfterUpdateStatement(env.DB, effects[1]!, now),
  ]);
  if (update.changes === 0) throw notPublished();
  await deliverEffects(env, services, effects);
  return { post: archived, site };
}

/**
 * The stored slug of a deleted post: its own slug is free again at once (a new post may take it), and
 * the row stays unique per (site, slug, language) whatever is created after it.
 */
export function deletedSlug(row: Pick<PostRow, "slug" | "id">): string {
  return `${row.slug}--deleted-${row.id.toLowerCase()}`;
}

/**
 * `DELETE /v1/posts/{reference}`: a soft delete (status `deleted`, never listable nor readable again),
 * resolved as PATCH resolves (`?language=` for a slug in several languages). One batch: the conditional
 * update (of two concurrent deletes exactly one changes the row; the other answers 404 like a missing
 * post), the `post.deleted` event and the purge of the post's public URL, written only if the update was.
 */
export async function deletePost(
  env: Env,
  services: Services,
  key: KeyContext,
  reference: string,
  language: string | null,
): Promise<void> {
  const now = clockIso();
  const existing = await resolveEditablePost(env.DB, key.siteId, reference, language, now);
  checkChange(key, existing, now, "Deleting this post");
  const site = await keySite(env.DB, key);
  const by = updateStamp(actorStamp(key));
  const deleted: PostRow = {
    ...existing,
    status: "deleted",
    updated_at: laterTimestamp(now, existing.updated_at),
  };
  const effects = [
    postEventEffect("post.deleted", site, deleted, now, env.PLATFORM_DOMAIN, existing),
    postEffect(site.id, existing.id, "cache_purge", { urls: [postUrl(site, existing, env.PLATFORM_DOMAIN)] }),
  ];
  const [update] = await batch(env.DB, [
    softDeletePostStatement(env.DB, key.siteId, existing.id, deletedSlug(existing), deleted.updated_at, by),
    effectAfterUpdateStatement(env.DB, effects[0]!, now),
    // changes() now refers to the event insert, which happened exactly when the update did.
    effectAfterUpdateStatement(env.DB, effects[1]!, now),
  ]);
  if (update.changes === 0) throw postNotFound();
  await deliverEffects(env, services, effects);
}
