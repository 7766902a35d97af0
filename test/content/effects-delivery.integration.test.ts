/**
 * The effects outbox against the real adapters: cache purge and IndexNow POSTed to fake hosts
 * (test/support/fakes/content.ts) that fail, then succeed. A row stays until its host answers 2xx, with
 * its attempt count, error and next attempt; the cron's redelivery retries it with backoff and gives up
 * after MAX_EFFECT_ATTEMPTS (visible in /metrics).
 */
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/content/core/bindings";
import {
  deliverEffects,
  MAX_EFFECT_ATTEMPTS,
  type PostEffect,
  postEffect,
  redeliverPendingEffects,
  retryDelayMs,
} from "../../src/content/core/effects/pending";
import { contentServices } from "../../src/content/core/services";
import { newId } from "../../src/lib/ids";
import { callLogger } from "../../src/lib/log";
import { contentDbOf } from "../support/content-groups";
import { call, createPost, recordedEffects, tenant, testEnv } from "../support/content-helpers";

const MINUTE = 60_000;

/**
 * The worker's env routed to the site's group (docs/decisions/site-groups.md), with the real adapters (no
 * dev outbox) pointed at the fake hosts.
 */
async function realEnv(siteId: string, overrides: Record<string, string>): Promise<Env> {
  return {
    ...(testEnv as unknown as Env),
    DB: await contentDbOf(siteId),
    DEV_OUTBOX: "false",
    CACHE_PURGE_TOKEN: "purge-token",
    INDEXNOW_KEY: "indexnow-key",
    ...overrides,
  } as Env;
}

/** Outbox rows of effects as a change's batch writes them (created `ageMinutes` ago). */
async function writeEffects(effects: PostEffect[], ageMinutes = 0) {
  const at = new Date(Date.now() - ageMinutes * MINUTE).toISOString();
  const db = await contentDbOf(effects[0]!.site_id);
  await db.batch(
    effects.map((e) =>
      db
        .prepare(
          "INSERT INTO post_effects (id, site_id, post_id, kind, payload_json, created_at) VALUES (?, ?, ?, ?, ?, ?)",
        )
        .bind(e.id, e.site_id, e.post_id, e.kind, JSON.stringify(e.payload), at),
    ),
  );
}

interface OutboxRow {
  attempts: number;
  next_attempt_at: string | null;
  last_error: string | null;
  gave_up_at: string | null;
}

async function outboxRow(siteId: string, id: string) {
  return (await contentDbOf(siteId))
    .prepare("SELECT attempts, next_attempt_at, last_error, gave_up_at FROM post_effects WHERE id = ?")
    .bind(id)
    .first<OutboxRow>();
}

/**
 * What the fake host received at this test's token, only the requests that carry `url`: a redelivery pass
 * covers the whole group, and other files' due effects (same runtime) go out with this test's env too.
 */
async function receivedBy(host: string, token: string, url: string) {
  const res = await fetch(`https://${host}/__received/${token}`);
  const all = (await res.json()) as { authorization: string | null; body: unknown; answered: number }[];
  return all.filter((r) => JSON.stringify(r.body).includes(JSON.stringify(url)));
}

const recorded = (siteId: string, kind: string) => recordedEffects<{ urls: string[] }>(siteId, kind);

describe("effects of a site without a custom domain", () => {
  it("unpublish purges and a date change notifies the platform host {slug}.{PLATFORM_DOMAIN}", async () => {
    const t = await tenant({ primary_domain: null });
    const post = await createPost(t.ck, { title: "Platform hosted", status: "published" });
    const moved = await call("PATCH", `/v1/posts/${post.id}`, {
      key: t.ck,
      body: { published_at: new Date(Date.now() - 3600_000).toISOString() },
    });
    expect(moved.status).toBe(200);
    const url = `https://${t.site.slug}.sites.localhost/platform-hosted`;
    expect(await recorded(t.site.id, "indexnow")).toEqual([{ urls: [url] }]);
    expect((await call("POST", `/v1/posts/${post.id}/unpublish`, { key: t.ck })).status).toBe(200);
    expect(await recorded(t.site.id, "cache_purge")).toEqual([{ urls: [url] }]);
  });
});

describe("effects outbox: delivery to the real hosts", () => {
  it("a purge answered 503 twice stays in the outbox with its attempts and error, and the cron delivers it with backoff", async () => {
    const t = await tenant();
    const token = newId();
    const env = await realEnv(t.site.id, { CACHE_PURGE_URL: `https://purge.test/flaky/${token}/2` });
    const services = contentServices(env, callLogger("content"));
    const url = `https://${t.site.primary_domain}/flaky`;
    const effect = postEffect(t.site.id, newId(), "cache_purge", { urls: [url] });
    await writeEffects([effect]);

    const start = Date.now();
    await deliverEffects(env, services, [effect]);
    const first = await outboxRow(t.site.id, effect.id);
    expect(first).toMatchObject({
      attempts: 1,
      gave_up_at: null,
      last_error: "Cache purge answered HTTP 503",
    });
    expect(Date.parse(first!.next_attempt_at!)).toBeGreaterThanOrEqual(start + retryDelayMs(1));

    // Not due yet: the cron leaves it alone. The pass covers the whole group, which the other files of this
    // runtime share (their due effects are delivered too), so its count is not this test's: each assertion
    // reads this effect's own row and the requests that carry this test's token.
    await redeliverPendingEffects(env, services, start + 6 * MINUTE - retryDelayMs(1));
    expect((await outboxRow(t.site.id, effect.id))!.attempts).toBe(1);

    await redeliverPendingEffects(env, services, start + 6 * MINUTE);
    const second = await outboxRow(t.site.id, effect.id);
    expect(second).toMatchObject({ attempts: 2, last_error: "Cache purge answered HTTP 503" });
    expect(Date.parse(second!.next_attempt_at!)).toBeGreaterThanOrEqual(
      Date.now() + retryDelayMs(2) - MINUTE,
    );

    expect(
      await redeliverPendingEffects(env, services, start + 6 * MINUTE + retryDelayMs(2) + MINUTE),
    ).toBeGreaterThanOrEqual(1);
    expect(await outboxRow(t.site.id, effect.id)).toBeNull();
    const got = await receivedBy("purge.test", token, url);
    expect(got.map((r) => r.answered)).toEqual([503, 503, 200]);
    expect(got[2]).toMatchObject({ authorization: "Bearer purge-token", body: { files: [url] } });
  });

  it("IndexNow answered 503 once is retried and then sent with the site's host and key", async () => {
    const t = await tenant({ primary_domain: null });
    const token = newId();
    const env = await realEnv(t.site.id, { INDEXNOW_ENDPOINT: `https://indexnow.test/flaky/${token}/1` });
    const services = contentServices(env, callLogger("content"));
    const url = `https://${t.site.slug}.sites.localhost/moved`;
    const effect = postEffect(t.site.id, newId(), "indexnow", { urls: [url] });
    await writeEffects([effect], 10);
    await deliverEffects(env, services, [effect]);
    expect(await outboxRow(t.site.id, effect.id)).toMatchObject({
      attempts: 1,
      last_error: "IndexNow answered HTTP 503",
    });
    // At least this one (the group's other due effects go in the same pass).
    expect(
      await redeliverPendingEffects(env, services, Date.now() + retryDelayMs(1) + MINUTE),
    ).toBeGreaterThanOrEqual(1);
    expect(await outboxRow(t.site.id, effect.id)).toBeNull();
    const got = await receivedBy("indexnow.test", token, url);
    expect(got.map((r) => r.answered)).toEqual([503, 200]);
    expect(got[1]!.body).toEqual({
      host: `${t.site.slug}.sites.localhost`,
      key: "indexnow-key",
      urlList: [url],
    });
  });

  it("an unreachable host, a 4xx and a missing configuration are failures, never silent successes", async () => {
    const t = await tenant();
    const url = `https://${t.site.primary_domain}/x`;
    for (const [overrides, error] of [
      [{ CACHE_PURGE_URL: "https://nowhere.test/purge" }, "Cache purge answered HTTP 599"],
      [{ CACHE_PURGE_URL: "https://purge.test/status/403" }, "Cache purge answered HTTP 403"],
      [{ CACHE_PURGE_URL: "" }, "CACHE_PURGE_URL or CACHE_PURGE_TOKEN is not set"],
    ] as const) {
      const env = await realEnv(t.site.id, overrides);
      const effect = postEffect(t.site.id, newId(), "cache_purge", { urls: [url] });
      await writeEffects([effect]);
      await deliverEffects(env, contentServices(env, callLogger("content")), [effect]);
      expect(await outboxRow(t.site.id, effect.id), error).toMatchObject({
        attempts: 1,
        last_error: error,
        gave_up_at: null,
      });
    }
  });

  it(`gives up after ${MAX_EFFECT_ATTEMPTS} attempts: kept, never retried again, counted in /metrics`, async () => {
    const t = await tenant();
    const env = await realEnv(t.site.id, { INDEXNOW_ENDPOINT: "https://indexnow.test/status/500" });
    const services = contentServices(env, callLogger("content"));
    const effect = postEffect(t.site.id, newId(), "indexnow", {
      urls: [`https://${t.site.primary_domain}/y`],
    });
    await writeEffects([effect], 10);
    // Only this tenant's notifications: the pass also redelivers other tests' due effects (one runtime).
    const mine = async () =>
      (await receivedBy("indexnow.test", "status-500", `https://${t.site.primary_domain}/y`)).length;
    const before = await mine();
    let clock = Date.now();
    for (let i = 0; i < MAX_EFFECT_ATTEMPTS + 2; i++) {
      clock += 13 * 3600_000;
      await redeliverPendingEffects(env, services, clock);
    }
    const row = await outboxRow(t.site.id, effect.id);
    expect(row).toMatchObject({ attempts: MAX_EFFECT_ATTEMPTS, next_attempt_at: null });
    expect(row!.gave_up_at).toEqual(expect.any(String));
    const sent = (await mine()) - before;
    expect(sent).toBe(MAX_EFFECT_ATTEMPTS);
    const metrics = await (await call("GET", "/metrics")).text();
    const givenUp = /content_effects_given_up\{kind="indexnow"\} (\d+)/.exec(metrics);
    expect(Number(givenUp?.[1])).toBeGreaterThanOrEqual(1);
    expect(metrics).toMatch(/content_effects_pending\{kind="cache_purge"\} \d+/);
  });

  it("backoff: 5 minutes, x4 per failure, at most 12 hours", () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => retryDelayMs(n) / MINUTE)).toEqual([5, 20, 80, 320, 720, 720]);
  });
});
