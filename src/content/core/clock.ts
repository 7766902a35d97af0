/**
 * Content's clock: the read path (the key-context cache's TTL, the edge cache's freshness, the `now`
 * public reads evaluate visibility at), the post write path (the `now` a post is created, edited,
 * unpublished and answered at: when a scheduled post is due), the cron (which scheduled posts came due)
 * and the key's Durable Object (its token buckets and idempotency reservations). Tests move it
 * (`setClockForTests`) to cross a bound without sleeping.
 */
let source: () => number = () => Date.now();

/** Milliseconds since the epoch. */
export function clockNow(): number {
  return source();
}

/** The clock's time as an ISO 8601 UTC timestamp (how rows store time). */
export function clockIso(): string {
  return new Date(source()).toISOString();
}

/** Tests only: replaces the clock (`null` restores the real one). */
export function setClockForTests(next: (() => number) | null): void {
  source = next ?? (() => Date.now());
}
