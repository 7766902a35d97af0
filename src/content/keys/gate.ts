/**
 * One Durable Object per API key: serializes what must never race for that key.
 * - Token buckets (quotas): every request takes one token from each of its buckets, all or nothing.
 * - Idempotency reservations: of concurrent POSTs with one Idempotency-Key exactly one runs.
 * - `admit`: both in one call (a post's create: its write token and its reservation, one round trip).
 * State lives in the object's SQLite-backed synchronous KV storage, so an eviction loses nothing.
 */
import { DurableObject } from "cloudflare:workers";
import { clockNow } from "../core/clock";

export interface BucketSpec {
  /** Bucket id within the key, e.g. "write", "read", "ip:203.0.113.9". */
  name: string;
  /** Policy name shown in RateLimit headers. */
  policy: string;
  capacity: number;
  windowSeconds: number;
}

export interface BucketState {
  policy: string;
  capacity: number;
  windowSeconds: number;
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
}

export type TakeResult =
  | { allowed: true; buckets: BucketState[] }
  | { allowed: false; retryAfterSeconds: number; buckets: BucketState[] };

export type ReserveResult =
  | { kind: "reserved" }
  | { kind: "in_progress" }
  | { kind: "mismatch" }
  | { kind: "done"; status: number; body: string };

export interface AdmitResult {
  taken: TakeResult;
  /** The reservation's outcome; null when none was asked for or the quota refused the request. */
  reservation: ReserveResult | null;
}

interface StoredBucket {
  tokens: number;
  at: number;
}

interface StoredReservation {
  hash: string;
  state: "pending" | "done";
  status?: number;
  body?: string;
  expiresAt: number;
}

/** A reservation whose request died (isolate crash) stops blocking retries after this long. */
const PENDING_TTL_MS = 60_000;
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

/** The key's own object (one per API key id). */
export function keyGate(env: { KEY_GATE: ContentEnv["KEY_GATE"] }, keyId: string) {
  return env.KEY_GATE.get(env.KEY_GATE.idFromName(keyId));
}

export class ApiKeyGate extends DurableObject<ContentEnv> {
  take(specs: BucketSpec[], nowMs: number = clockNow()): TakeResult {
    const kv = this.ctx.storage.kv;
    const current = specs.map((spec) => {
      const stored = kv.get<StoredBucket>(`bucket:${spec.name}`);
      const rate = spec.capacity / spec.windowSeconds;
      const tokens = stored
        ? Math.min(spec.capacity, stored.tokens + (Math.max(0, nowMs - stored.at) / 1000) * rate)
        : spec.capacity;
      return { spec, tokens, rate };
    });
    const denied = current.filter((b) => b.tokens < 1);
    const allowed = denied.length === 0;
    const after = current.map((b) => ({ ...b, tokens: allowed ? b.tokens - 1 : b.tokens }));
    if (allowed) {
      for (const b of after)
        kv.put(`bucket:${b.spec.name}`, { tokens: b.tokens, at: nowMs } satisfies StoredBucket);
    }
    this.scheduleSweep(nowMs);
    const buckets = after.map((b) => ({
      policy: b.spec.policy,
      capacity: b.spec.capacity,
      windowSeconds: b.spec.windowSeconds,
      remaining: Math.max(0, Math.floor(b.tokens)),
      resetSeconds: Math.ceil((b.spec.capacity - b.tokens) / b.rate),
    }));
    if (allowed) return { allowed: true, buckets };
    const retryAfterSeconds = Math.max(...denied.map((b) => Math.ceil((1 - b.tokens) / b.rate)), 1);
    return { allowed: false, retryAfterSeconds, buckets };
  }

  /**
   * The write quota and, when the request carries an Idempotency-Key, its reservation, in one call (one
   * storage round trip for `POST /v1/posts`). The reservation is made only when the quota allowed the
   * request; a refused request reserves nothing. Atomic: the object runs one call at a time.
   */
  admit(
    specs: BucketSpec[],
    reservation: { idempotencyKey: string; requestHash: string } | null,
    nowMs: number = clockNow(),
  ): AdmitResult {
    const taken = this.take(specs, nowMs);
    if (!taken.allowed || reservation === null) return { taken, reservation: null };
    return { taken, reservation: this.reserve(reservation.idempotencyKey, reservation.requestHash, nowMs) };
  }

  reserve(idempotencyKey: string, requestHash: string, nowMs: number = clockNow()): ReserveResult {
    const kv = this.ctx.storage.kv;
    const name = `idem:${idempotencyKey}`;
    const existing = kv.get<StoredReservation>(name);
    if (existing && existing.expiresAt > nowMs) {
      if (existing.hash !== requestHash) return { kind: "mismatch" };
      if (existing.state === "pending") return { kind: "in_progress" };
      return { kind: "done", status: existing.status ?? 201, body: existing.body ?? "" };
    }
    kv.put(name, {
      hash: requestHash,
      state: "pending",
      expiresAt: nowMs + PENDING_TTL_MS,
    } satisfies StoredReservation);
    this.scheduleSweep(nowMs);
    return { kind: "reserved" };
  }

  /** Records the finished response so later racers replay it instead of running again. */
  complete(
    idempotencyKey: string,
    requestHash: string,
    status: number,
    body: string,
    nowMs: number = clockNow(),
  ) {
    this.ctx.storage.kv.put(`idem:${idempotencyKey}`, {
      hash: requestHash,
      state: "done",
      status,
      body,
      expiresAt: nowMs + IDEMPOTENCY_TTL_MS,
    } satisfies StoredReservation);
  }

  /** Drops a reservation whose request failed, so the client may retry with the same key. */
  release(idempotencyKey: string, requestHash: string) {
    const kv = this.ctx.storage.kv;
    const existing = kv.get<StoredReservation>(`idem:${idempotencyKey}`);
    if (existing && existing.state === "pending" && existing.hash === requestHash)
      kv.delete(`idem:${idempotencyKey}`);
  }

  private scheduleSweep(nowMs: number) {
    void this.ctx.storage.getAlarm().then((alarm) => {
      if (alarm === null) return this.ctx.storage.setAlarm(nowMs + SWEEP_INTERVAL_MS);
    });
  }

  /** Deletes expired reservations and buckets that have refilled (a full bucket equals an absent one). */
  override async alarm() {
    const kv = this.ctx.storage.kv;
    const now = clockNow();
    let left = 0;
    for (const [name, value] of kv.list<StoredBucket | StoredReservation>()) {
      if (name.startsWith("idem:")) {
        if ((value as StoredReservation).expiresAt <= now) kv.delete(name);
        else left++;
      } else if (name.startsWith("bucket:")) {
        // Buckets refill in at most their window (<= 60 s here); older than that is full.
        if (now - (value as StoredBucket).at > 120_000) kv.delete(name);
        else left++;
      }
    }
    if (left > 0) await this.ctx.storage.setAlarm(now + SWEEP_INTERVAL_MS);
  }
}
