/**
 * Gauges of `/metrics` read from D1 at scrape time: the effects outbox (waiting and given up, by kind) and
 * the sites whose content has not converged to their owner organization past the grace period.
 * Read from storage, not counted in memory, so every isolate reports the same numbers. Every site group is
 * read (`forEachGroup`, bounded concurrency) and the numbers are summed (docs/decisions/site-groups.md).
 */
import type { WorkerEnv } from "../core/bindings";
import type { PostEffectKind } from "../core/effects/pending";
import { outboxCounts } from "../core/effects/store";
import { forEachGroup } from "../core/groups";
import { CONVERGENCE_GRACE_MINUTES, stalledSites } from "../transfers/site-transfer";
import type { Gauge } from "./metrics";

const KINDS: PostEffectKind[] = ["cache_purge", "event", "indexnow"];

/** Stalled sites are counted up to this many (over all groups). */
const STALLED_COUNTED = 1000;

export async function storedGauges(env: WorkerEnv): Promise<Gauge[]> {
  const now = Date.now();
  const perGroup = await forEachGroup(env, async (groupEnv) => ({
    outbox: await outboxCounts(groupEnv.DB),
    stalled: (await stalledSites(groupEnv, now, STALLED_COUNTED)).length,
  }));
  const sum = (kind: PostEffectKind, field: "pending" | "given_up") =>
    perGroup.reduce((n, g) => n + Number(g.outbox.find((r) => r.kind === kind)?.[field] ?? 0), 0);
  const stalled = Math.min(
    STALLED_COUNTED,
    perGroup.reduce((n, g) => n + g.stalled, 0),
  );
  return [
    {
      name: "content_effects_pending",
      help: "Effects (cache purge, IndexNow, events) waiting for delivery or a retry, by kind.",
      samples: KINDS.map((kind) => ({ labels: { kind }, value: sum(kind, "pending") })),
    },
    {
      name: "content_effects_given_up",
      help: `Effects the outbox gave up on after their last attempt (kept in post_effects), by kind.`,
      samples: KINDS.map((kind) => ({ labels: { kind }, value: sum(kind, "given_up") })),
    },
    {
      name: "content_convergence_stalled_sites",
      help: "Sites whose content is still stamped for an older organization past the grace period after a transfer (counted up to 1000).",
      samples: [{ labels: { grace_minutes: String(CONVERGENCE_GRACE_MINUTES) }, value: stalled }],
    },
  ];
}
