/**
 * Keeps content's projection of each site current. The push happens inline after every write; when it
 * fails the site write stands (it is the source of truth) and a `site-sync` message retries the push
 * later from the CURRENT row, so retries never resurrect an older state.
 */
import type { Services } from "./app-env";
import { toProjection } from "./site-record";
import { getSite, type SiteRow } from "./store";

export interface SiteSyncMessage {
  site_id: string;
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
): Promise<"synced" | "queued" | "lost"> {
  try {
    await withTimeout(services.content.syncSite(toProjection(row)), SYNC_TIMEOUT_MS);
    return "synced";
  } catch (err) {
    services.log.warn("site_sync_failed", { site_id: row.id, error: String(err) });
  }
  try {
    await env.SITE_SYNC.send({ site_id: row.id } satisfies SiteSyncMessage);
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
    const row = await getSite(env.DB, message.body.site_id);
    if (!row) {
      // Purged since: nothing left to project.
      message.ack();
      continue;
    }
    try {
      await withTimeout(services.content.syncSite(toProjection(row)), SYNC_TIMEOUT_MS);
      message.ack();
    } catch (err) {
      services.log.warn("site_sync_retry", { site_id: row.id, message_id: message.id, error: String(err) });
      message.retry({ delaySeconds: Math.min(300, 2 ** message.attempts) });
    }
  }
}
