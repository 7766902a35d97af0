/**
 * The time a Durable Object reads and sleeps by. Production objects use `systemClock`; a test swaps an
 * object's `clock` (through `runInDurableObject`) for one it moves by hand, so a bound of 10 or 20
 * seconds is crossed without waiting for it. Nothing else differs: the object reads the clock it holds.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `fn` once, `ms` from now; the handle cancels it. */
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};
