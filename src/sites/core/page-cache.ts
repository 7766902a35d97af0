/**
 * The site's full-page cache (the rendered pages the CDN keeps per host). Every site change the spec
 * names (PATCH, delete, applets, themes, lifecycle, purge, transfer) purges the site's hosts. Purges ride
 * a transactional outbox (`page_purges`): the row is written, the purge delivered at once and the row
 * deleted on success; a failed delivery keeps the row with its attempt count, error and next attempt
 * (backoff as content's effects), the cron retries due rows, and after `MAX_PURGE_ATTEMPTS` the row is
 * marked given up (kept, logged). Best effort for the caller: invalidation never fails a site write.
 *
 * The purger: with DEV_OUTBOX=true (development, tests) purges are recorded in `outbound_effects`;
 * otherwise `POST PAGE_PURGE_URL` `{hosts}` with `Authorization: Bearer PAGE_PURGE_TOKEN` (Cloudflare's
 * purge-by-host API shape); unconfigured is a failure, never a silent success.
 */
import { newId } from "../../lib/ids";
import { errorFields, type Logger } from "../../lib/log";
import {
  deletePurge,
  duePurges,
  insertPurge,
  markPurgeFailed,
  type PurgeRow,
  recordDevPurge,
} from "./page-purges-store";

export interface PagePurger {
  /** Purges every cached page of these hosts; throws unless the purge was accepted. */
  purgeHosts(siteId: string, hosts: string[]): Promise<void>;
}

/** As `Services.pageCache`. */
export interface PageCache {
  /** Purges the site's hosts now, or leaves the purge for the retry cron; never throws. */
  invalidate(siteId: string, hosts: Iterable<string>, reason: string): Promise<void>;
  /** Cron: delivers the due purges that failed before (at most `limit`); returns how many were tried. */
  retryDue(limit?: number): Promise<number>;
}

export const MAX_PURGE_ATTEMPTS = 8;
const PURGE_TIMEOUT_MS = 10_000;

/** Wait after the n-th failed attempt: 5 minutes, x4 each time, at most 12 hours (as content's effects). */
export function purgeRetryDelayMs(failedAttempts: number): number {
  return Math.min(5 * 60_000 * 4 ** Math.max(0, failedAttempts - 1), 12 * 3600_000);
}

type PurgeEnv = SitesEnv & { PAGE_PURGE_URL?: string; PAGE_PURGE_TOKEN?: string };

export function pagePurger(env: PurgeEnv): PagePurger {
  if (env.DEV_OUTBOX === "true") {
    return {
      async purgeHosts(siteId, hosts) {
        await recordDevPurge(env.DB, newId(), siteId, hosts, new Date().toISOString());
      },
    };
  }
  return {
    async purgeHosts(_siteId, hosts) {
      if (!env.PAGE_PURGE_URL || !env.PAGE_PURGE_TOKEN) {
        throw new Error("PAGE_PURGE_URL or PAGE_PURGE_TOKEN is not set");
      }
      const res = await fetch(env.PAGE_PURGE_URL, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${env.PAGE_PURGE_TOKEN}` },
        body: JSON.stringify({ hosts }),
        signal: AbortSignal.timeout(PURGE_TIMEOUT_MS),
      });
      await res.body?.cancel();
      if (res.status < 200 || res.status > 299) throw new Error(`page purge answered HTTP ${res.status}`);
    },
  };
}

export function outboxPageCache(db: D1Database, purger: PagePurger, log: Logger): PageCache {
  async function deliver(row: PurgeRow): Promise<void> {
    try {
      await purger.purgeHosts(row.site_id, JSON.parse(row.hosts_json) as string[]);
      await deletePurge(db, row.id);
    } catch (err) {
      const attempts = row.attempts + 1;
      const now = Date.now();
      const gaveUp = attempts >= MAX_PURGE_ATTEMPTS;
      const fields = { site_id: row.site_id, reason: row.reason, attempts, ...errorFields(err) };
      if (gaveUp) log.error("page_purge_given_up", fields);
      else log.warn("page_purge_failed", fields);
      await markPurgeFailed(db, row.id, {
        attempts,
        error: String((err as Error)?.message ?? err).slice(0, 500),
        nextAttemptAt: new Date(now + purgeRetryDelayMs(attempts)).toISOString(),
        gaveUpAt: gaveUp ? new Date(now).toISOString() : null,
      });
    }
  }

  return {
    async invalidate(siteId, hosts, reason) {
      const unique = [...new Set(hosts)];
      if (unique.length === 0) return;
      const now = new Date().toISOString();
      const row: PurgeRow = {
        id: newId(),
        site_id: siteId,
        hosts_json: JSON.stringify(unique),
        reason,
        attempts: 0,
      };
      try {
        await insertPurge(db, row, now);
        await deliver(row);
      } catch (err) {
        // Best effort: the site change already stands.
        log.error("page_purge_not_recorded", { site_id: siteId, reason, ...errorFields(err) });
      }
    },

    async retryDue(limit = 50) {
      const due = await duePurges(db, new Date().toISOString(), limit);
      for (const row of due) await deliver(row);
      return due.length;
    },
  };
}
