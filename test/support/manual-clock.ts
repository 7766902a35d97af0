/**
 * A clock a test moves by hand (src/identity/core/clock.ts `Clock`): `now()` stands still until
 * `advance`, which fires the timers that come due on the way, in due order, each at its own instant,
 * and lets the object they wake run before the next one fires. A Durable Object's timers must fire in
 * that object's context: call `advance` inside `runInDurableObject(stub, () => clock.advance(ms))`.
 */
import type { Clock } from "../../src/identity/core/clock";

interface Timer {
  id: number;
  at: number;
  fn: () => void;
}

/** A real turn of the event loop: what a woken Durable Object needs to read its storage and go on. */
const turn = () => new Promise((resolve) => setTimeout(resolve, 0));

export class ManualClock implements Clock {
  private at: number;
  private timers: Timer[] = [];
  private nextId = 1;

  constructor(start = Date.now()) {
    this.at = start;
  }

  now(): number {
    return this.at;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const timer = { id: this.nextId++, at: this.at + Math.max(0, ms), fn };
    this.timers.push(timer);
    return timer.id;
  }

  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((t) => t.id !== handle);
  }

  /** Timers not yet fired. */
  get pending(): number {
    return this.timers.length;
  }

  /** Waits (real time, bounded) until `n` timers are set: the object under test went to sleep. */
  async untilPending(n: number, timeoutMs = 5_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (this.timers.length < n) {
      if (Date.now() > until) throw new Error(`ManualClock: ${this.timers.length} timers set, not ${n}`);
      await turn();
    }
  }

  /** Moves the clock `ms` forward, firing every timer due by then. */
  async advance(ms: number): Promise<void> {
    const target = this.at + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.at = Math.max(this.at, due.at);
      due.fn();
      for (let i = 0; i < 5; i++) await turn();
    }
    this.at = target;
  }
}
