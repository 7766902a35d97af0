/**
 * Post revisions: the list, and restoring one. A restore writes the revision's title, summary, body and
 * SEO document back onto the post through the same optimistic-concurrency edit as PATCH (`editPost`):
 * If-Match is checked against the post's current revision (412, nothing changed), its webhook event and
 * purges are outbox rows of the same batch, and the restore itself is a new revision (the triggers).
 * Each revision says who made it (`made_by`: the key by its name, or the person; null before issue 34).
 */
import type { SiteProjection } from "../../lib/rpc";
import type { Env, Services } from "../core/bindings";
import { deliverEffects, type PostEffect } from "../core/effects/pending";
import { effectAfterUpdateStatement } from "../core/effects/store";
import { fail, problem } from "../errors";
import { keySite } from "../keys/api-key";
import type { KeyContext } from "../keys/key-context";
import { resolveEditablePost } from "../posts/resolve";
import type { RevisionPrecondition } from "../posts/revision-tag";
import { actorStamp, actorView, checkChange } from "../posts/roles";
import { editEffects, editPost } from "../posts/service";
import { seoView, taxonomy } from "../posts/shapes";
import { type PostRow, publicTypeSlugs } from "../posts/store";
import { getRevision, listRevisions, type RevisionRow } from "./store";

export const REVISIONS_DEFAULT_LIMIT = 20;
export const REVISIONS_MAX_LIMIT = 50;

function revisionNotFound() {
  return problem("NOT_FOUND", "No such revision of this post.");
}

/** `{id}` of a revision: its number (the N of the ETag "rev-N"); anything else names no revision. */
export function revisionNumber(raw: string): number {
  if (!/^\d{1,15}$/.test(raw)) throw revisionNotFound();
  return Number(raw);
}

function parseBlocks(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export function revisionView(row: RevisionRow, current: boolean) {
  return {
    id: row.revision,
    created_at: row.created_at,
    current,
    made_by: actorView(row.made_by_kind, row.made_by_id, row.made_by_name),
    title: row.title,
    summary: row.summary,
    blocks_json: parseBlocks(row.blocks_json),
    seo: seoView(row),
    ...taxonomy(row),
  };
}

export function parseLimit(raw: string | undefined): number {
  if (raw === undefined) return REVISIONS_DEFAULT_LIMIT;
  const n = /^\d{1,4}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(n >= 1 && n <= REVISIONS_MAX_LIMIT))
    fail("INVALID_LIMIT", `limit must be 1..${REVISIONS_MAX_LIMIT}.`);
  return n;
}

function parseBefore(raw: string | undefined): number | null {
  if (raw === undefined) return null;
  if (!/^\d{1,15}$/.test(raw)) fail("INVALID_CURSOR", "cursor is not a next_cursor of this list.");
  return Number(raw);
}

/** One page of a post's revisions, newest first (`next_cursor`: the revision to continue below). */
export async function postRevisions(
  env: Env,
  key: KeyContext,
  reference: string,
  language: string | null,
  page: { limit?: string; cursor?: string },
) {
  const limit = parseLimit(page.limit);
  const before = parseBefore(page.cursor);
  const post = await resolveEditablePost(env.DB, key.siteId, reference, language, new Date().toISOString());
  const rows = await listRevisions(env.DB, key.siteId, post.id, before, limit);
  // The newest revision is the post's content as it is now (every content change writes one).
  const items = rows.slice(0, limit).map((row, i) => revisionView(row, before === null && i === 0));
  const next = rows.length > limit ? String(items[items.length - 1]!.id) : null;
  return { items, next_cursor: next };
}

/** Restores revision `number` of the post (see the module comment). */
export async function restoreRevision(
  env: Env,
  services: Services,
  key: KeyContext,
  target: { reference: string; language: string | null; revision: number },
  precondition: RevisionPrecondition,
): Promise<{ post: PostRow; site: SiteProjection }> {
  const now = new Date().toISOString();
  const post = await resolveEditablePost(env.DB, key.siteId, target.reference, target.language, now);
  const revision = await getRevision(env.DB, key.siteId, post.id, target.revision);
  if (!revision) throw revisionNotFound();
  // A restore is an edit: the roles' rules of a PATCH (posts/roles.ts).
  checkChange(key, post, now, "Restoring a revision of this post");
  const site = await keySite(env.DB, key);
  const publicTypes = await publicTypeSlugs(env.DB, key.siteId);
  const apply = async (existing: PostRow): Promise<PostRow> => ({
    ...existing,
    title: revision.title,
    summary: revision.summary,
    blocks_json: revision.blocks_json,
    seo_json: revision.seo_json,
  });
  const pending: { effects: PostEffect[] } = { effects: [] };
  const extra = (existing: PostRow, next: PostRow) => {
    pending.effects = editEffects(site, existing, next, now, publicTypes, env.PLATFORM_DOMAIN);
    return pending.effects.map((effect) => effectAfterUpdateStatement(env.DB, effect, now));
  };
  const { next } = await editPost(env, key.siteId, post, actorStamp(key), apply, extra, precondition);
  await deliverEffects(env, services, pending.effects);
  return { post: next, site };
}
