/**
 * Keeps content's projection of each site current. The push happens inline after every write; when it
 * fails the site write stands (it is the source of truth) and a `site-sync` message retries the push
 * later from the CURRENT row, so retries never resurrect an older state. A purged site has no row left:
 * its message carries the final projection (status `deleted`), pushed only while no row exists, so
 * content still learns that the site is gone (its keys stop working) when content was down at purge time.
 */
import type { SiteProjection } from "../../lib/rpc";
import { tracedMessage } from "../../lib/trace";
import type { Services } from "../core/app-env";
import { provedHostsOf } from "../health/domains-store";
import { toProjection } from "./record";
import { getSite, type SiteRow } from "./store";

export interface SiteSyncMessage {
  site_id: string;
  /** For a purged site (no row left): the last projection to push. */
  purged?: SiteProjection;
}

/** Bound on the inline push: a hung content service must not hang the customer's write. */
const SYNC_TIMEOUT_MS = 3000;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | null = null;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export async function pushSiteToContent(
  env: SitesEnv,
  services: Services,
  row: SiteRow,
  options: { purged?: boolean } = {},
): Promise<"synced" | "queued" | "lost"> {
  const projection = toProjection(row, await provedHostsOf(env.DB, row.id));
  try {
    await withTimeout(services.content.syncSite(projection), SYNC_TIMEOUT_MS);
    return "synced";
  } catch (err) {
    services.log.warn("site_sync_failed", { site_id: row.id, error: String(err) });
  }
  try {
    const message: SiteSyncMessage = { site_id: row.id, ...(options.purged ? { purged: projection } : {}) };
    await env.SITE_SYNC.send(tracedMessage(message));
    return "queued";
  } catch (err) {
    services.log.error("site_sync_enqueue_failed", { site_id: row.id, error: String(err) });
    return "lost";
  }
}

function isSyncMessage(body: unknown): body is SiteSyncMessage {
  return typeof body === "object" && body !== null && typeof (body as SiteSyncMessage).site_id === "string";
}

/** Consumer of `site-sync`: pushes the current row; a failure retries with backoff (the queue's max_retries). */
export async function consumeSiteSync(
  env: SitesEnv,
  services: Services,
  batch: MessageBatch<unknown>,
): Promise<void> {
  for (const message of batch.messages) {
    if (!isSyncMessage(message.body)) {
      message.ack();
      continue;
    }
    const { site_id, purged } = message.body;
    const row = await getSite(env.DB, site_id);
    // Purged since: only a purge's own message has something left to project (the site is gone).
    const projection = row
      ? toProjection(row, await provedHostsOf(env.DB, row.id))
      : purged?.id === site_id
        ? purged
        : null;
    if (!projection) {
      message.ack();
      continue;
    }
    try {
      await withTimeout(services.content.syncSite(projection), SYNC_TIMEOUT_MS);
      message.ack();
    } catch (err) {
      services.log.warn("site_sync_retry", { site_id, message_id: message.id, error: String(err) });
      message.retry({ delaySeconds: Math.min(300, 2 ** message.attempts) });
    }
  }
}
