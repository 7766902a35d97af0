/**
 * The read path's clock: the key-context cache's TTL, the edge cache's freshness and the `now` public
 * reads evaluate visibility at. Tests move it (`setClockForTests`) to cross a bound without sleeping.
 */
let source: () => number = () => Date.now();

/** Milliseconds since the epoch. */
export function clockNow(): number {
  return source();
}

/** Tests only: replaces the clock (`null` restores the real one). */
export function setClockForTests(next: (() => number) | null): void {
  source = next ?? (() => Date.now());
}
