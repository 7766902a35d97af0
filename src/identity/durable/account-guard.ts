import { DurableObject } from "cloudflare:workers";
import { LOCKOUT } from "../config";
import { Mutex } from "./mutex";

interface GuardState {
  failures: number;
  level: number;
  lockedUntil: number;
  lastFailure: number;
}

export interface GuardDecision {
  locked: boolean;
  retryAfter: number;
}

/**
 * Lockout against online password guessing, one instance per normalized e-mail (known or not, so the
 * guard reveals nothing). Policy in config.ts `LOCKOUT`: exponential lock windows with a cap, nothing
 * counted while locked, decay after a quiet day, cleared by any successful authentication.
 */
export class AccountGuard extends DurableObject<IdentityEnv> {
  private readonly lock = new Mutex();

  private async load(now: number): Promise<GuardState> {
    const s = (await this.ctx.storage.get<GuardState>("s")) ?? {
      failures: 0,
      level: 0,
      lockedUntil: 0,
      lastFailure: 0,
    };
    if (s.lastFailure && now - s.lastFailure > LOCKOUT.decaySeconds * 1000 && now >= s.lockedUntil) {
      return { failures: 0, level: 0, lockedUntil: 0, lastFailure: 0 };
    }
    return s;
  }

  async check(): Promise<GuardDecision> {
    const now = Date.now();
    const s = await this.load(now);
    return now < s.lockedUntil
      ? { locked: true, retryAfter: Math.ceil((s.lockedUntil - now) / 1000) }
      : { locked: false, retryAfter: 0 };
  }

  /**
   * Reserves one password attempt before the password is checked: every attempt counts as a failure
   * until `succeed()` clears the state, so concurrent guesses cannot outrun the counter. The attempt that
   * reaches the threshold still runs (and arms the lock for the next ones).
   */
  attempt(): Promise<GuardDecision> {
    return this.lock.run(() => this.attemptLocked());
  }

  private async attemptLocked(): Promise<GuardDecision> {
    const now = Date.now();
    const s = await this.load(now);
    if (now < s.lockedUntil) return { locked: true, retryAfter: Math.ceil((s.lockedUntil - now) / 1000) };
    s.failures += 1;
    s.lastFailure = now;
    if (s.failures >= LOCKOUT.threshold) {
      const seconds = Math.min(LOCKOUT.baseSeconds * 2 ** s.level, LOCKOUT.maxSeconds);
      s.level += 1;
      s.failures = 0;
      s.lockedUntil = now + seconds * 1000;
    }
    await this.ctx.storage.put("s", s);
    await this.ctx.storage.setAlarm(now + (LOCKOUT.decaySeconds + LOCKOUT.maxSeconds) * 1000);
    return { locked: false, retryAfter: 0 };
  }

  succeed(): Promise<void> {
    return this.lock.run(() => this.ctx.storage.deleteAll());
  }

  override async alarm(): Promise<void> {
    const s = await this.load(Date.now());
    if (s.level === 0 && s.failures === 0) await this.ctx.storage.deleteAll();
  }
}
