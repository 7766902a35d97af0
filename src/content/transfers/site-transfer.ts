/**
 * The `site-transferred` consumer: after identity accepts a transfer (mode `transfer`), the site's posts,
 * media and API keys are restamped for the new organization in one D1 batch, idempotently and never
 * backwards (see `restampStatements`); in the same batch the origin's API keys and webhooks are carried
 * over (suspended until the new owner keeps them, `carried-over.ts`). A `share` leaves the owner, and so the stamps, as they are. A
 * convergence that does not happen (the message lost, stuck or failing) is reported by
 * `stalledConvergence` (RPC for the sites health sweep, and a gauge of /metrics).
 */
import { z } from "@hono/zod-openapi";
import type { Logger } from "../../lib/log";
import { errorFields } from "../../lib/log";
import type { StalledConvergence } from "../../lib/rpc";
import type { Env, WorkerEnv } from "../core/bindings";
import { forEachGroup } from "../core/groups";
import { keyContexts } from "../keys/key-cache";
import { restamp, stalledConvergence } from "./store";

/** A site whose content is not stamped for its owner this long after the change is stalled. */
export const CONVERGENCE_GRACE_MINUTES = 15;

const SiteTransferredMessage = z.object({
  type: z.literal("site.transferred"),
  transfer_id: z.string().min(1),
  site_id: z.string().min(1),
  from_org_id: z.string().min(1),
  to_org_id: z.string().min(1),
  mode: z.enum(["transfer", "share"]),
  at: z.string().datetime(),
});

export async function consumeSiteTransferred(
  env: Env,
  batch: Pick<MessageBatch<unknown>, "messages" | "queue">,
  log: Logger,
) {
  for (const message of batch.messages) {
    const parsed = SiteTransferredMessage.safeParse(message.body);
    if (!parsed.success) {
      // A malformed message never becomes valid: logged and dropped, not retried.
      log.error("site_transferred_malformed", { message_id: message.id });
      message.ack();
      continue;
    }
    const m = parsed.data;
    if (m.mode !== "transfer") {
      message.ack();
      continue;
    }
    try {
      await restamp(env.DB, m, new Date().toISOString());
      keyContexts.forgetSite(m.site_id);
      log.info("site_transferred_applied", { site_id: m.site_id, transfer_id: m.transfer_id });
      message.ack();
    } catch (err) {
      log.warn("site_transferred_failed", {
        site_id: m.site_id,
        transfer_id: m.transfer_id,
        ...errorFields(err),
      });
      message.retry({ delaySeconds: Math.min(30 * 2 ** (message.attempts - 1), 3600) });
    }
  }
}

/** A group's sites whose content is still stamped for an older organization past the grace period (oldest first). */
export function stalledSites(env: Env, now: number, limit = 100): Promise<StalledConvergence[]> {
  return stalledConvergence(env.DB, new Date(now - CONVERGENCE_GRACE_MINUTES * 60_000).toISOString(), limit);
}

/** `stalledSites` of every group (`forEachGroup`), merged oldest first, at most `limit`. */
export async function stalledSitesOfAllGroups(
  env: WorkerEnv,
  now: number,
  limit = 100,
): Promise<StalledConvergence[]> {
  const perGroup = await forEachGroup(env, (groupEnv) => stalledSites(groupEnv, now, limit));
  return perGroup
    .flat()
    .sort((a, b) => (a.since < b.since ? -1 : a.since > b.since ? 1 : a.site_id.localeCompare(b.site_id)))
    .slice(0, limit);
}
