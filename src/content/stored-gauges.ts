/**
 * Gauges of `/metrics` read from D1 at scrape time: the effects outbox (waiting and given up, by kind).
 * Read from storage, not counted in memory, so every isolate reports the same numbers.
 */
import { outboxCounts, type PostEffectKind } from "./effects/pending";
import type { Gauge } from "./metrics";

const KINDS: PostEffectKind[] = ["cache_purge", "event", "indexnow"];

export async function storedGauges(db: D1Database): Promise<Gauge[]> {
  const outbox = await outboxCounts(db);
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
  ];
}
