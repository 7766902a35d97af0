/**
 * Outbound effects behind small interfaces: the search-engine indexing notification (IndexNow) and the
 * CDN cache purge. With DEV_OUTBOX=true (local development and tests) both are recorded in D1
 * (`outbound_effects`) instead of being sent, so tests can assert on them without a network. Handlers
 * reach them through `c.get("services")`; queue and cron code build the same services from env.
 */
import { newId } from "../../lib/ids";

export interface SearchNotifier {
  notify(siteId: string, postId: string, urls: string[]): Promise<void>;
}

export interface CachePurger {
  purge(siteId: string, postId: string, urls: string[]): Promise<void>;
}

async function record(env: ContentEnv, kind: string, siteId: string, subjectId: string, payload: unknown) {
  await env.DB.prepare(
    "INSERT INTO outbound_effects (id, kind, site_id, subject_id, payload_json, created_at) VALUES (?, ?, ?, ?, ?, ?)",
  )
    .bind(newId(), kind, siteId, subjectId, JSON.stringify(payload), new Date().toISOString())
    .run();
}

type OutboundEnv = ContentEnv & {
  INDEXNOW_KEY?: string;
  CACHE_PURGE_URL?: string;
  CACHE_PURGE_TOKEN?: string;
};

export function searchNotifier(env: OutboundEnv): SearchNotifier {
  if (env.DEV_OUTBOX === "true") {
    return { notify: (siteId, postId, urls) => record(env, "indexnow", siteId, postId, { urls }) };
  }
  return {
    async notify(_siteId, _postId, urls) {
      const first = urls[0];
      if (!first || !env.INDEXNOW_KEY) return;
      // Best effort: a failed notification must not fail the edit that caused it.
      await fetch(env.INDEXNOW_ENDPOINT, {
        method: "POST",
        headers: { "content-type": "application/json; charset=utf-8" },
        body: JSON.stringify({ host: new URL(first).host, key: env.INDEXNOW_KEY, urlList: urls }),
      }).catch(() => undefined);
    },
  };
}

export function cachePurger(env: OutboundEnv): CachePurger {
  if (env.DEV_OUTBOX === "true") {
    return { purge: (siteId, postId, urls) => record(env, "cache_purge", siteId, postId, { urls }) };
  }
  return {
    async purge(_siteId, _postId, urls) {
      if (!env.CACHE_PURGE_URL || !env.CACHE_PURGE_TOKEN || urls.length === 0) return;
      await fetch(env.CACHE_PURGE_URL, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${env.CACHE_PURGE_TOKEN}` },
        body: JSON.stringify({ files: urls }),
      }).catch(() => undefined);
    },
  };
}

/** Public URL of a post on its site (default language at the root, others under /{language}/). */
export function postUrl(
  site: { primary_domain: string | null; default_language: string },
  post: { slug: string; language: string },
): string | null {
  if (!site.primary_domain) return null;
  const prefix = post.language === site.default_language ? "" : `/${post.language}`;
  return `https://${site.primary_domain}${prefix}/${post.slug}`;
}
