/**
 * `GET /v1/search`: full-text search of the key's site in one language (title, summary and body text),
 * best match first, keyset paged. A pk_ key (and a ck_ key without posts:write) finds public posts only,
 * through the edge cache like the public listing; a ck_ key with posts:write finds every post but deleted
 * ones (drafts, scheduled, archived too; never cached).
 */

import type { Env } from "../core/bindings";
import { decodeCursor, encodeCursor } from "../core/cursor";
import {
  cachedPublicAnswer,
  type EdgePlace,
  freshUntil,
  type PublicAnswer,
  publicAnswer,
} from "../core/edge-cache";
import { fail } from "../errors";
import type { KeyContext } from "../keys/key-context";
import { sha256Base64url } from "../keys/key-hash";
import { canonicalLanguage } from "../posts/language";
import { ftsQuery, parseLimit } from "../posts/listing";
import { listItem, postSummary } from "../posts/shapes";
import { searchPosts } from "./store";

export interface SearchParams {
  q?: string | undefined;
  language?: string | undefined;
  limit?: string | undefined;
  cursor?: string | undefined;
}

interface SearchRequest {
  match: string;
  language: string;
  limit: number;
  cursor: string | null;
}

function searchRequest(key: KeyContext, params: SearchParams): SearchRequest {
  const match = ftsQuery(params.q);
  if (match === null) fail("BAD_REQUEST", "q must contain at least one word (letters or digits).");
  const language =
    params.language === undefined
      ? key.site.default_language
      : canonicalLanguage(params.language) || fail("INVALID_LANGUAGE", "language must be a BCP-47 tag.");
  return { match, language, limit: parseLimit(params.limit), cursor: params.cursor ?? null };
}

function sees(key: KeyContext): "public" | "all" {
  return key.kind === "secret" && key.scopes.has("posts:write") ? "all" : "public";
}

async function page(env: Env, key: KeyContext, request: SearchRequest, scope: "public" | "all", now: string) {
  const fingerprint = await sha256Base64url(
    JSON.stringify([key.siteId, scope, request.match, request.language]),
  );
  let after: { score: number; id: string } | null = null;
  if (request.cursor !== null) {
    const payload = await decodeCursor(env.CURSOR_SECRET, request.cursor);
    const score = Number(payload?.p);
    if (payload?.m !== "s" || payload.f !== fingerprint || !Number.isFinite(score)) {
      fail("INVALID_CURSOR", "cursor is not a next_cursor of this search.");
    }
    after = { score, id: payload.i };
  }
  const query = {
    siteId: key.siteId,
    match: request.match,
    language: request.language,
    publicOnly: scope === "public",
  };
  const { rows, nextPublicationAt } = await searchPosts(
    env.DB,
    { ...query, after, limit: request.limit },
    now,
  );
  const shown = rows.slice(0, request.limit);
  const last = shown.at(-1);
  const next =
    rows.length > request.limit && last
      ? await encodeCursor(env.CURSOR_SECRET, { m: "s", p: String(last.score), i: last.id, f: fingerprint })
      : null;
  const at = { site: key.site, platformDomain: env.PLATFORM_DOMAIN, mediaBase: env.MEDIA_PUBLIC_BASE };
  const items = shown.map(({ score: _score, ...row }) =>
    scope === "public" ? listItem(row, now, at) : postSummary(row, now, at),
  );
  return { body: { items, next_cursor: next }, nextPublicationAt };
}

/** The answer and whether it may be cached (public results only). */
export async function search(
  env: Env,
  key: KeyContext,
  params: SearchParams,
  place: EdgePlace,
): Promise<{ answer: PublicAnswer; cacheable: boolean }> {
  const request = searchRequest(key, params);
  const scope = sees(key);
  if (scope === "all") {
    const { body } = await page(env, key, request, scope, new Date().toISOString());
    return { answer: await publicAnswer(body), cacheable: false };
  }
  const answer = await cachedPublicAnswer(place, key, "search", request, async (now) => {
    const { body, nextPublicationAt } = await page(env, key, request, scope, new Date(now).toISOString());
    return { value: body, freshUntil: freshUntil(now, nextPublicationAt) };
  });
  return { answer, cacheable: true };
}
