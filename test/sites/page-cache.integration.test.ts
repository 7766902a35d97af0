/**
 * Full-page cache invalidation: every site change purges the site's hosts through the outbox (recorded
 * in development), and a purge that fails is kept and retried by the cron until it gives up.
 */
import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { callLogger } from "../../src/lib/log";
import { RETRY_CRON, runCron } from "../../src/sites/core/cron";
import {
  MAX_PURGE_ATTEMPTS,
  outboxPageCache,
  type PagePurger,
  purgeRetryDelayMs,
} from "../../src/sites/core/page-cache";
import { api, makeSite, sitesEnv, uniqueDomain } from "../support/sites-helpers";

const log = callLogger("sites-test");

async function recordedPurges(siteId: string): Promise<string[][]> {
  const { results } = await sitesEnv.DB.prepare(
    "SELECT payload_json FROM outbound_effects WHERE site_id = ? AND kind = 'page_purge' ORDER BY created_at, id",
  )
    .bind(siteId)
    .all<{ payload_json: string }>();
  return results.map((r) => (JSON.parse(r.payload_json) as { hosts: string[] }).hosts);
}

async function outboxRows(siteId: string) {
  const { results } = await sitesEnv.DB.prepare("SELECT * FROM page_purges WHERE site_id = ?")
    .bind(siteId)
    .all<{
      id: string;
      attempts: number;
      next_attempt_at: string;
      gave_up_at: string | null;
      last_error: string | null;
    }>();
  return results;
}

function purger(fail: () => boolean): PagePurger & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    calls,
    async purgeHosts(_siteId, hosts) {
      calls.push(hosts);
      if (fail()) throw new Error("purge API answered HTTP 503");
    },
  };
}

describe("full-page cache invalidation", () => {
  it("a PATCH purges the hosts before and after the change; the delivered purge leaves no outbox row", async () => {
    const oldDomain = uniqueDomain();
    const newDomain = uniqueDomain();
    const { site, owner } = await makeSite({ primary_domain: oldDomain });
    const res = await api("PATCH", `/api/v1/sites/${site.id}`, {
      headers: owner,
      body: { primary_domain: newDomain },
    });
    expect(res.status).toBe(200);
    const purges = await recordedPurges(site.id);
    expect(purges.at(-1)).toEqual(
      expect.arrayContaining([oldDomain, newDomain, `${site.slug}.${sitesEnv.PLATFORM_DOMAIN}`]),
    );
    expect(await outboxRows(site.id)).toEqual([]);
  });

  it("a soft delete purges the site's hosts", async () => {
    const domain = uniqueDomain();
    const { site, owner } = await makeSite({ primary_domain: domain });
    const before = (await recordedPurges(site.id)).length;
    expect((await api("DELETE", `/api/v1/sites/${site.id}`, { headers: owner })).status).toBe(204);
    const purges = await recordedPurges(site.id);
    expect(purges).toHaveLength(before + 1);
    expect(purges.at(-1)).toContain(domain);
  });

  it("a failed purge is kept with its attempt and retried when due; delivered, the row goes", async () => {
    const siteId = newId();
    let down = true;
    const p = purger(() => down);
    const cache = outboxPageCache(sitesEnv.DB, p, log);
    const t0 = Date.now();
    await cache.invalidate(siteId, ["a.example.com", "a.example.com", "b.example.com"], "test");
    let [row] = await outboxRows(siteId);
    expect(row!.attempts).toBe(1);
    expect(row!.last_error).toContain("503");
    expect(Date.parse(row!.next_attempt_at) - t0).toBeGreaterThanOrEqual(purgeRetryDelayMs(1) - 1000);
    expect(p.calls).toEqual([["a.example.com", "b.example.com"]]);

    // Not due yet: the cron leaves it.
    expect(await cache.retryDue()).toBe(0);
    await sitesEnv.DB.prepare("UPDATE page_purges SET next_attempt_at = ? WHERE site_id = ?")
      .bind(new Date(Date.now() - 1000).toISOString(), siteId)
      .run();
    down = false;
    expect(await cache.retryDue()).toBeGreaterThanOrEqual(1);
    expect(await outboxRows(siteId)).toEqual([]);
    expect(p.calls).toHaveLength(2);
    [row] = await outboxRows(siteId);
    expect(row).toBeUndefined();
  });

  it(`after ${MAX_PURGE_ATTEMPTS} failed attempts the purge is given up: kept, never retried`, async () => {
    const siteId = newId();
    const p = purger(() => true);
    const cache = outboxPageCache(sitesEnv.DB, p, log);
    await cache.invalidate(siteId, ["c.example.com"], "test");
    for (let i = 1; i < MAX_PURGE_ATTEMPTS; i++) {
      await sitesEnv.DB.prepare("UPDATE page_purges SET next_attempt_at = ? WHERE site_id = ?")
        .bind(new Date(Date.now() - 1000).toISOString(), siteId)
        .run();
      await cache.retryDue();
    }
    const [row] = await outboxRows(siteId);
    expect(row!.attempts).toBe(MAX_PURGE_ATTEMPTS);
    expect(row!.gave_up_at).not.toBeNull();
    await sitesEnv.DB.prepare("UPDATE page_purges SET next_attempt_at = ? WHERE site_id = ?")
      .bind(new Date(Date.now() - 1000).toISOString(), siteId)
      .run();
    const calls = p.calls.length;
    await cache.retryDue();
    expect(p.calls).toHaveLength(calls);
  });

  it("the retry cron delivers a due purge through the configured purger", async () => {
    const siteId = newId();
    const at = new Date(Date.now() - 1000).toISOString();
    await sitesEnv.DB.prepare(
      "INSERT INTO page_purges (id, site_id, hosts_json, reason, attempts, next_attempt_at, created_at) VALUES (?, ?, ?, 'test', 1, ?, ?)",
    )
      .bind(newId(), siteId, JSON.stringify(["d.example.com"]), at, at)
      .run();
    await runCron(sitesEnv, RETRY_CRON);
    expect(await outboxRows(siteId)).toEqual([]);
    expect(await recordedPurges(siteId)).toEqual([["d.example.com"]]);
  });

  it("the retry schedule: 5 min, x4 each time, at most 12 h", () => {
    expect(purgeRetryDelayMs(1)).toBe(5 * 60_000);
    expect(purgeRetryDelayMs(2)).toBe(20 * 60_000);
    expect(purgeRetryDelayMs(3)).toBe(80 * 60_000);
    expect(purgeRetryDelayMs(10)).toBe(12 * 3600_000);
  });
});
