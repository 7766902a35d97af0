/**
 * Outbound effects behind small interfaces: the search-engine indexing notification (IndexNow) and the
 * CDN cache purge. With DEV_OUTBOX=true (local development and tests) both are recorded in D1
 * (`outbound_effects`) instead of being sent, so tests can assert on them without a network. Handlers
 * reach them through `c.get("services")`; queue and cron code build the same services from env.
 */
import { recordOutboundEffect } from "./store";

export interface SearchNotifier {
  notify(siteId: string, postId: string, urls: string[]): Promise<void>;
}

export interface CachePurger {
  purge(siteId: string, postId: string, urls: string[]): Promise<void>;
}

/** Recorded in the group the services were built for (the site's group: contentServices takes a group's env). */
function record(env: OutboundEnv, kind: string, siteId: string, subjectId: string, payload: unknown) {
  return recordOutboundEffect(env.DB, { kind, siteId, subjectId, payload });
}

/** One group's env (core/bindings.ts `Env`, not imported: bindings imports these types). */
type OutboundEnv = ContentEnv & {
  DB: D1Database;
  INDEXNOW_KEY?: string;
  CACHE_PURGE_URL?: string;
  CACHE_PURGE_TOKEN?: string;
};

/** Outbound calls give up after this long; the outbox retries them later. */
const OUTBOUND_TIMEOUT_MS = 10_000;

/**
 * POSTs `body` and throws unless the answer is 2xx: a network error, a timeout or any other status is a
 * failed delivery (the outbox keeps the row and retries), never a silent success.
 */
async function postOrThrow(what: string, url: string, headers: Record<string, string>, body: unknown) {
  const res = await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(OUTBOUND_TIMEOUT_MS),
  });
  await res.body?.cancel();
  if (res.status < 200 || res.status > 299) throw new Error(`${what} answered HTTP ${res.status}`);
}

export function searchNotifier(env: OutboundEnv): SearchNotifier {
  if (env.DEV_OUTBOX === "true") {
    return { notify: (siteId, postId, urls) => record(env, "indexnow", siteId, postId, { urls }) };
  }
  return {
    async notify(_siteId, _postId, urls) {
      const first = urls[0];
      if (!first) return;
      // Unconfigured is a failure, not a success: it shows as pending and given-up effects in /metrics.
      if (!env.INDEXNOW_KEY) throw new Error("INDEXNOW_KEY is not set");
      await postOrThrow(
        "IndexNow",
        env.INDEXNOW_ENDPOINT,
        { "content-type": "application/json; charset=utf-8" },
        { host: new URL(first).host, key: env.INDEXNOW_KEY, urlList: urls },
      );
    },
  };
}

export function cachePurger(env: OutboundEnv): CachePurger {
  if (env.DEV_OUTBOX === "true") {
    return { purge: (siteId, postId, urls) => record(env, "cache_purge", siteId, postId, { urls }) };
  }
  return {
    async purge(_siteId, _postId, urls) {
      if (urls.length === 0) return;
      if (!env.CACHE_PURGE_URL || !env.CACHE_PURGE_TOKEN)
        throw new Error("CACHE_PURGE_URL or CACHE_PURGE_TOKEN is not set");
      await postOrThrow(
        "Cache purge",
        env.CACHE_PURGE_URL,
        { "content-type": "application/json", authorization: `Bearer ${env.CACHE_PURGE_TOKEN}` },
        { files: urls },
      );
    },
  };
}

/**
 * The canonical host of a site: its custom domain, else its platform host `{slug}.{PLATFORM_DOMAIN}`
 * (the host sites serves every site on), so every post has a URL to purge and to notify.
 */
export function siteHost(
  site: { primary_domain: string | null; slug: string },
  platformDomain: string,
): string {
  return site.primary_domain ?? `${site.slug}.${platformDomain}`;
}

/** What `postUrl` builds on: the site's origin and the language served at its root. */
export function postUrlRoot(
  site: { primary_domain: string | null; slug: string; default_language: string },
  platformDomain: string,
): { origin: string; defaultLanguage: string } {
  return { origin: `https://${siteHost(site, platformDomain)}`, defaultLanguage: site.default_language };
}

/** The legal index's `fields.documento_legal`: its page is `/legal/` itself. */
export const LEGAL_INDEX_DOCUMENT = "indice";

function legalDocument(fields: string | null | undefined): string | null {
  if (!fields) return null;
  try {
    const parsed: unknown = JSON.parse(fields);
    if (parsed === null || typeof parsed !== "object") return null;
    const { secao, documento_legal } = parsed as { secao?: unknown; documento_legal?: unknown };
    if (secao !== "legal") return null;
    return typeof documento_legal === "string" ? documento_legal : "";
  } catch {
    return null;
  }
}

/**
 * The path of a post below its language prefix: `/{slug}`, except a legal page (`fields.secao` = `legal`,
 * sites' legal page generator), which lives at `/legal/{slug}`, and the legal index at `/legal/`.
 * Mirrored in SQL by posts/store.ts `POST_PATH_SQL`.
 */
export function postPath(post: { slug: string; fields?: string | null }): string {
  const legal = legalDocument(post.fields);
  if (legal === null) return `/${post.slug}`;
  return legal === LEGAL_INDEX_DOCUMENT ? "/legal/" : `/legal/${post.slug}`;
}

/** Public URL of a post on its site (default language at the root, others under /{language}/). */
export function postUrl(
  site: { primary_domain: string | null; slug: string; default_language: string },
  post: { slug: string; language: string; fields?: string | null },
  platformDomain: string,
): string {
  const prefix = post.language === site.default_language ? "" : `/${post.language}`;
  return `https://${siteHost(site, platformDomain)}${prefix}${postPath(post)}`;
}
