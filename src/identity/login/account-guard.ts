import { DurableObject } from "cloudflare:workers";
import { type Clock, systemClock } from "../core/clock";
import { LOCKOUT } from "../core/config";
import { Mutex } from "../core/mutex";

interface GuardState {
  /** Confirmed failures since the last lock, completed sign-in or decay. */
  failures: number;
  level: number;
  lockedUntil: number;
  lastFailure: number;
  /** Reservations in flight: lease id -> expiry (ms). Stored, so a restarted object still honours them. */
  leases: Record<string, number>;
}

export interface GuardDecision {
  locked: boolean;
  retryAfter: number;
}

/*
 * Threat and sources: online password guessing against one account (NIST SP 800-63B §5.2.2 "Rate
 * Limiting (Throttling)": at most 100 consecutive failures, throttling that never locks the owner out
 * for good; OWASP Authentication Cheat Sheet, "Account lockout"; OWASP "Blocking Brute Force Attacks").
 * Two attacks the naive counter lets through, both answered here: parallel guesses that each pass a
 * limit checked in one statement and counted in another (a check-then-act race: CWE-367), answered by
 * evaluation slots handed out and counted in one Durable Object call; and a stranger locking the owner
 * out (denial of service through the lockout, OWASP: "lockout ... can be abused"), answered by counting
 * only confirmed failures and by device cookies (`devices.ts`) that give the owner's browsers their own
 * guard.
 */

/**
 * The answer to `reserve()`: a lease on one evaluation slot, the lock (armed by confirmed failures), or
 * "busy" when the wait for a slot ran out (never a lock: the caller answers 503 SIGN_IN_BUSY).
 */
export type Reservation =
  | { kind: "granted"; lease: string }
  | { kind: "locked"; retryAfter: number }
  | { kind: "busy"; retryAfter: number };

/** What one confirmed failure did: the count it reached, and whether it armed the lock (and for how long). */
export interface FailureOutcome {
  failures: number;
  lockedFor: number;
}

const fresh = (): GuardState => ({ failures: 0, level: 0, lockedUntil: 0, lastFailure: 0, leases: {} });

/**
 * Lockout against online guessing of a sign-in proof, one instance per guard key (guards.ts). Protocol:
 * `reserve()` before the proof is evaluated, then exactly one of `fail(lease)` (a confirmed failure) or
 * `release(lease)` (the proof was right, or was never evaluated). Confirmed failures plus leases in flight
 * never exceed `LOCKOUT.threshold`, so concurrent guesses cannot outrun the counter; only confirmed
 * failures arm the lock, so right proofs never count. A reservation that finds every slot taken waits (FIFO,
 * bounded: see `reserve`) for one; a lease that is never settled (crashed request) expires after
 * `LOCKOUT.leaseSeconds`. `clear()` is a completed sign-in. Policy: config.ts `LOCKOUT`.
 */
export class AccountGuard extends DurableObject<IdentityEnv> {
  /** What the guard reads the time from and sleeps by (tests swap it to cross the 10 s and 20 s bounds). */
  clock: Clock = systemClock;
  private readonly lock = new Mutex();
  private readonly waiters: Array<() => void> = [];
  /** Bumped by every settlement, after its write: a waiter compares it across its look and its sleep. */
  private moves = 0;
  private wakeTimer: unknown;
  /** When the line last moved (a slot granted or settled): a waiter gives up after a stall, not a queue. */
  private progressAt = 0;

  private async load(now: number): Promise<GuardState> {
    const s = { ...fresh(), ...((await this.ctx.storage.get<GuardState>("s")) ?? {}) };
    for (const [id, expiry] of Object.entries(s.leases)) if (expiry <= now) delete s.leases[id];
    if (s.lastFailure && now - s.lastFailure > LOCKOUT.decaySeconds * 1000 && now >= s.lockedUntil) {
      return { ...fresh(), leases: s.leases };
    }
    return s;
  }

  private async save(s: GuardState, now: number): Promise<void> {
    await this.ctx.storage.put("s", s);
    await this.ctx.storage.setAlarm(now + (LOCKOUT.decaySeconds + LOCKOUT.maxSeconds) * 1000);
  }

  async check(): Promise<GuardDecision> {
    const now = this.clock.now();
    const s = await this.load(now);
    return now < s.lockedUntil
      ? { locked: true, retryAfter: Math.ceil((s.lockedUntil - now) / 1000) }
      : { locked: false, retryAfter: 0 };
  }

  /**
   * Reserves one evaluation slot. Answers at once when a slot is free or the guard is locked; otherwise
   * waits in line (FIFO) until a lease is settled or expires. "busy" only when the line stalled for
   * `LOCKOUT.waitSeconds` (no slot granted or settled: holders that died without settling, whose leases
   * expire after `leaseSeconds`) or this waiter has waited `LOCKOUT.maxWaitSeconds` in all (a queue too
   * long to serve).
   */
  async reserve(): Promise<Reservation> {
    const began = this.clock.now();
    let first = true;
    for (;;) {
      // A newcomer queues behind earlier waiters (decided under the lock, when the slots are counted).
      const newcomer = first;
      let seen = 0;
      const outcome = await this.lock.run(() => {
        seen = this.moves;
        return this.tryReserve(!newcomer || this.waiters.length === 0);
      });
      if (outcome) {
        this.progressAt = this.clock.now();
        this.wakeNext();
        return outcome;
      }
      const now = this.clock.now();
      const left = Math.min(
        Math.max(began, this.progressAt) + LOCKOUT.waitSeconds * 1000,
        began + LOCKOUT.maxWaitSeconds * 1000,
      );
      if (left <= now) {
        this.wakeNext();
        return { kind: "busy", retryAfter: 1 };
      }
      // A settlement that landed after the slots were counted and before this waiter queued woke nobody
      // for it (it was in no line): look again instead of sleeping through a free slot (a lost wake-up).
      if (this.moves !== seen) continue;
      await this.waitTurn(left - now, first);
      first = false;
    }
  }

  private async tryReserve(mayTake: boolean): Promise<Reservation | null> {
    const now = this.clock.now();
    const s = await this.load(now);
    if (now < s.lockedUntil) return { kind: "locked", retryAfter: Math.ceil((s.lockedUntil - now) / 1000) };
    const expiries = Object.values(s.leases);
    if (!mayTake || s.failures + expiries.length >= LOCKOUT.threshold) {
      this.armWakeTimer(Math.min(...expiries, now + LOCKOUT.leaseSeconds * 1000) - now);
      return null;
    }
    const lease = crypto.randomUUID();
    s.leases[lease] = now + LOCKOUT.leaseSeconds * 1000;
    await this.save(s, now);
    return { kind: "granted", lease };
  }

  /** Waits for a wake-up (a settled or expired lease, a lock) or the deadline; FIFO among waiters. */
  private waitTurn(ms: number, first: boolean): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        this.clock.clearTimeout(timer);
        const at = this.waiters.indexOf(done);
        if (at >= 0) this.waiters.splice(at, 1);
        resolve();
      };
      const timer = this.clock.setTimeout(done, ms);
      if (first) this.waiters.push(done);
      else this.waiters.unshift(done);
    });
  }

  private wakeNext(): void {
    this.waiters[0]?.();
  }

  private armWakeTimer(ms: number): void {
    if (this.wakeTimer !== undefined) this.clock.clearTimeout(this.wakeTimer);
    this.wakeTimer = this.clock.setTimeout(() => {
      this.wakeTimer = undefined;
      this.wakeNext();
    }, Math.max(ms, 0) + 5);
  }

  /**
   * A confirmed failure of the proof evaluated under `lease`. Counted even when the lease already expired
   * (a failure is a failure); the failure that reaches the threshold arms the lock.
   */
  fail(lease: string): Promise<FailureOutcome> {
    return this.settle(lease, (s, now) => {
      s.failures += 1;
      s.lastFailure = now;
      if (s.failures < LOCKOUT.threshold) return { failures: s.failures, lockedFor: 0 };
      const seconds = Math.min(LOCKOUT.baseSeconds * 2 ** s.level, LOCKOUT.maxSeconds);
      const reached = s.failures;
      s.level += 1;
      s.failures = 0;
      s.lockedUntil = now + seconds * 1000;
      return { failures: reached, lockedFor: seconds };
    });
  }

  /** Gives the slot back without counting anything: the proof was right or was never evaluated. */
  async release(lease: string): Promise<void> {
    await this.settle(lease, () => undefined);
  }

  private async settle<T>(lease: string, apply: (s: GuardState, now: number) => T): Promise<T> {
    const result = await this.lock.run(async () => {
      const now = this.clock.now();
      const s = await this.load(now);
      delete s.leases[lease];
      const out = apply(s, now);
      await this.save(s, now);
      this.moves += 1;
      return out;
    });
    this.progressAt = this.clock.now();
    this.wakeNext();
    return result;
  }

  /**
   * A completed sign-in (every factor proven) on this key: forgets its confirmed failures and lock level.
   * Leases in flight stay (their holders still settle them).
   */
  clear(): Promise<void> {
    return this.lock.run(async () => {
      const now = this.clock.now();
      const s = await this.load(now);
      if (Object.keys(s.leases).length === 0) await this.ctx.storage.deleteAll();
      else await this.save({ ...fresh(), leases: s.leases }, now);
    });
  }

  /** Test and diagnostics view: confirmed failures and leases in flight. */
  async counts(): Promise<{ failures: number; inFlight: number; lockedUntil: number }> {
    const s = await this.load(this.clock.now());
    return { failures: s.failures, inFlight: Object.keys(s.leases).length, lockedUntil: s.lockedUntil };
  }

  override async alarm(): Promise<void> {
    const s = await this.load(this.clock.now());
    if (s.level === 0 && s.failures === 0 && Object.keys(s.leases).length === 0) {
      await this.ctx.storage.deleteAll();
    }
  }
}
