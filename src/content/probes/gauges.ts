/**
 * Gauges of `/metrics` read from D1 at scrape time: the effects outbox (waiting and given up, by kind) and
 * the sites whose content has not converged to their owner organization past the grace period.
 * Read from storage, not counted in memory, so every isolate reports the same numbers.
 */
import type { Env } from "../core/bindings";
import type { PostEffectKind } from "../core/effects/pending";
import { outboxCounts } from "../core/effects/store";
import { CONVERGENCE_GRACE_MINUTES, stalledSites } from "../transfers/site-transfer";
import type { Gauge } from "./metrics";

const KINDS: PostEffectKind[] = ["cache_purge", "event", "indexnow"];

export async function storedGauges(env: Env): Promise<Gauge[]> {
  const outbox = await outboxCounts(env.DB);
  const stalled = await stalledSites(env, Date.now(), 1000);
  const byKind = (kind: PostEffectKind) => outbox.find((r) => r.kind === kind);
  return [
    {
      name: "content_effects_pending",
      help: "Effects (cache purge, IndexNow, events) waiting for delivery or a retry, by kind.",
      samples: KINDS.map((kind) => ({ labels: { kind }, value: byKind(kind)?.pending ?? 0 })),
    },
    {
      name: "content_effects_given_up",
      help: `Effects the outbox gave up on after their last attempt (kept in post_effects), by kind.`,
      samples: KINDS.map((kind) => ({ labels: { kind }, value: byKind(kind)?.given_up ?? 0 })),
    },
    {
      name: "content_convergence_stalled_sites",
      help: "Sites whose content is still stamped for an older organization past the grace period after a transfer (counted up to 1000).",
      samples: [{ labels: { grace_minutes: String(CONVERGENCE_GRACE_MINUTES) }, value: stalled.length }],
    },
  ];
}
