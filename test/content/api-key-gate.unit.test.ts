import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ApiKeyGate, BucketSpec } from "../../src/content/keys/gate";
import { newId } from "../../src/lib/ids";
import { testEnv } from "../support/content-helpers";

const reads: BucketSpec = { name: "read", policy: "reads", capacity: 600, windowSeconds: 60 };
const writes: BucketSpec = { name: "write", policy: "writes", capacity: 60, windowSeconds: 60 };
const perIp: BucketSpec = {
  name: "ip:1.2.3.4",
  policy: "public-reads-per-ip",
  capacity: 60,
  windowSeconds: 60,
};

function gate() {
  const ns = testEnv.KEY_GATE as unknown as DurableObjectNamespace<ApiKeyGate>;
  return ns.get(ns.idFromName(newId()));
}

describe("ApiKeyGate token buckets (clock controlled)", () => {
  it("allows exactly the capacity at one instant, then refuses with Retry-After until a token refills", async () => {
    await runInDurableObject(gate(), (instance: ApiKeyGate) => {
      const t0 = 1_000_000;
      for (let i = 0; i < 60; i++) expect(instance.take([writes], t0).allowed).toBe(true);
      const denied = instance.take([writes], t0);
      expect(denied.allowed).toBe(false);
      if (!denied.allowed) expect(denied.retryAfterSeconds).toBe(1);
      expect(instance.take([writes], t0 + 999).allowed).toBe(false);
      expect(instance.take([writes], t0 + 1000).allowed).toBe(true);
      expect(instance.take([writes], t0 + 1000).allowed).toBe(false);
    });
  });

  it("reads: exactly 600 at one instant", async () => {
    await runInDurableObject(gate(), (instance: ApiKeyGate) => {
      const t0 = 5_000_000;
      let allowed = 0;
      for (let i = 0; i < 700; i++) if (instance.take([reads], t0).allowed) allowed++;
      expect(allowed).toBe(600);
    });
  });

  it("takes from all buckets or none: a refused per-IP bucket does not drain the per-key bucket", async () => {
    await runInDurableObject(gate(), (instance: ApiKeyGate) => {
      const t0 = 9_000_000;
      for (let i = 0; i < 60; i++) expect(instance.take([reads, perIp], t0).allowed).toBe(true);
      const denied = instance.take([reads, perIp], t0);
      expect(denied.allowed).toBe(false);
      expect(denied.buckets.map((b) => b.remaining)).toEqual([540, 0]);
      const other = { ...perIp, name: "ip:5.6.7.8" };
      const ok = instance.take([reads, other], t0);
      expect(ok.allowed).toBe(true);
      expect(ok.buckets.map((b) => b.remaining)).toEqual([539, 59]);
    });
  });

  it("leads:read: 10 per minute on top of the per-key quota", async () => {
    const leads: BucketSpec = { name: "leads", policy: "leads", capacity: 10, windowSeconds: 60 };
    await runInDurableObject(gate(), (instance: ApiKeyGate) => {
      const t0 = 12_000_000;
      for (let i = 0; i < 10; i++) expect(instance.take([reads, leads], t0).allowed).toBe(true);
      const denied = instance.take([reads, leads], t0);
      expect(denied.allowed).toBe(false);
      if (!denied.allowed) expect(denied.retryAfterSeconds).toBe(6);
      // The refused lead read spent no read token, and the key's other reads go on.
      expect(denied.buckets.map((b) => b.remaining)).toEqual([590, 0]);
      expect(instance.take([reads], t0).buckets.map((b) => b.remaining)).toEqual([589]);
      // One leads token is back after 6 s.
      expect(instance.take([reads, leads], t0 + 6000).allowed).toBe(true);
    });
  });
});

describe("ApiKeyGate idempotency reservations", () => {
  it("one reservation per key: in progress, then done (replay), other body = mismatch, release frees it", async () => {
    await runInDurableObject(gate(), (instance: ApiKeyGate) => {
      const t0 = 20_000_000;
      expect(instance.reserve("k1", "h1", t0)).toEqual({ kind: "reserved" });
      expect(instance.reserve("k1", "h1", t0)).toEqual({ kind: "in_progress" });
      expect(instance.reserve("k1", "h2", t0)).toEqual({ kind: "mismatch" });
      instance.complete("k1", "h1", 201, "body", t0);
      expect(instance.reserve("k1", "h1", t0 + 1000)).toEqual({ kind: "done", status: 201, body: "body" });
      expect(instance.reserve("k1", "h1", t0 + 24 * 3600 * 1000 + 1)).toEqual({ kind: "reserved" });
      expect(instance.reserve("k2", "h1", t0)).toEqual({ kind: "reserved" });
      instance.release("k2", "h1");
      expect(instance.reserve("k2", "h9", t0)).toEqual({ kind: "reserved" });
    });
  });
});
