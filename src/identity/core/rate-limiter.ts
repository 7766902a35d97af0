import { DurableObject } from "cloudflare:workers";
import { Mutex } from "./mutex";

interface Window {
  start: number;
  count: number;
}

export interface RateDecision {
  allowed: boolean;
  retryAfter: number;
}

/**
 * One instance per quota key (`signup_ip:203.0.113.7`): a fixed-window counter in the object's own
 * storage, updated under a lock so concurrent hits are counted exactly.
 */
export class RateLimiter extends DurableObject<IdentityEnv> {
  private readonly lock = new Mutex();

  hit(limit: number, windowSeconds: number): Promise<RateDecision> {
    return this.lock.run(() => this.hitLocked(limit, windowSeconds));
  }

  private async hitLocked(limit: number, windowSeconds: number): Promise<RateDecision> {
    const now = Date.now();
    let w = await this.ctx.storage.get<Window>("w");
    if (!w || now >= w.start + windowSeconds * 1000) w = { start: now, count: 0 };
    if (w.count >= limit) {
      return {
        allowed: false,
        retryAfter: Math.max(1, Math.ceil((w.start + windowSeconds * 1000 - now) / 1000)),
      };
    }
    w.count += 1;
    await this.ctx.storage.put("w", w);
    if (w.count === 1) await this.ctx.storage.setAlarm(w.start + windowSeconds * 1000);
    return { allowed: true, retryAfter: 0 };
  }

  async ping(): Promise<string> {
    return "pong";
  }

  override async alarm(): Promise<void> {
    await this.ctx.storage.deleteAll();
  }
}
