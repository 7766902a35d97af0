/**
 * Webhook deliveries through the real content-events queue (and its dead-letter queue) to the fake
 * receiver, which verifies each Standard Webhooks signature with the secret shown at creation. In tests a
 * failed attempt is retried at once (WEBHOOK_RETRY_BASE_SECONDS=0), the queue hands a batch over at once
 * (no 1 s batch wait) and an attempt gives up after 1 s; the retry schedule itself is checked on a message
 * batch below and in webhooks.unit.test.ts. Nothing sleeps: an exact list of what a receiver got is
 * asserted after `quiet` (nothing of the test still on its way), and a scheduled post's time comes by
 * moving content's clock.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Env } from "../../src/content/core/bindings";
import { setClockForTests } from "../../src/content/core/clock";
import { contentServices } from "../../src/content/core/services";
import { deliverContentEvents } from "../../src/content/webhooks/delivery";
import { isUlid, newId } from "../../src/lib/ids";
import { callLogger } from "../../src/lib/log";
import type { SiteProjection } from "../../src/lib/rpc";
import { contentDbOf } from "../support/content-groups";
import {
  BASE,
  call,
  content,
  createKey,
  createPost,
  ownerHeaders,
  paragraph,
  tenant,
  testEnv,
} from "../support/content-helpers";
import {
  type CreatedWebhook,
  createWebhook,
  type DeliveryOut,
  defineReceiverHost,
  deliveriesOf,
  eventually,
  inbox,
  payloads,
  quiet,
  received,
  trustSecrets,
  webhooksPath,
} from "../support/webhook-helpers";

/** A webhook of `site` to a fresh inbox of the receiver (`kind` path), which trusts the secret shown. */
async function hookTo(site: SiteProjection, kind = "inbox", events?: string[]) {
  const { box, url } = inbox(kind);
  const hook = await createWebhook(site, { url, ...(events ? { events } : {}) });
  await trustSecrets(box, [hook.secret]);
  return { box, hook };
}

const settled = (ds: DeliveryOut[]) => ds.length > 0 && ds.every((d) => d.status !== "pending");

async function removeHook(site: SiteProjection, hook: CreatedWebhook) {
  await call("DELETE", `${webhooksPath(site.id)}/${hook.id}`, { headers: ownerHeaders(site) });
}

describe("events as signed webhooks", () => {
  it("post.published, post.updated and post.unpublished reach the receiver signed as Standard Webhooks say", async () => {
    const t = await tenant();
    const { box, hook } = await hookTo(t.site);
    const post = await createPost(t.ck, {
      title: "Hello hooks",
      status: "published",
      blocks_json: paragraph("x"),
    });
    await call("PATCH", `/v1/posts/${post.id}`, { key: t.ck, body: { title: "Hello again" } });
    await call("POST", `/v1/posts/${post.id}/unpublish`, { key: t.ck });

    const got = await eventually(
      () => received(box),
      (ds) => ds.length >= 3,
    );
    expect(got.map((d) => d.verified)).toEqual([true, true, true]);
    const bodies = payloads(got);
    expect(bodies.map((b) => b.type).sort()).toEqual(["post.published", "post.unpublished", "post.updated"]);
    const url = `https://${t.site.primary_domain}/hello-hooks`;
    const published = bodies.find((b) => b.type === "post.published")!;
    expect(Object.keys(published).sort()).toEqual(["data", "timestamp", "type"]);
    expect(published.data).toEqual({
      site_id: t.site.id,
      post_id: post.id,
      slug: "hello-hooks",
      language: "en",
      url,
      post_type: "post",
      title: "Hello hooks",
      status: "published",
      published_at: post.published_at,
      updated_at: expect.any(String),
    });
    expect(bodies.find((b) => b.type === "post.updated")!.data).toMatchObject({ title: "Hello again", url });
    expect(bodies.find((b) => b.type === "post.unpublished")!.data).toMatchObject({
      post_id: post.id,
      status: "archived",
      url,
    });
    for (const d of got) {
      expect(d.content_type).toBe("application/json");
      expect(isUlid(d.id!)).toBe(true);
      expect(Math.abs(Number(d.timestamp) - Date.now() / 1000)).toBeLessThan(60);
      expect(d.signature).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    }
    // The log: one delivery per event, each delivered at its first attempt; webhook-id is the event id.
    const log = await eventually(
      () => deliveriesOf(t.site, hook.id),
      (ds) => ds.length === 3 && settled(ds),
    );
    expect(log.map((d) => d.status)).toEqual(["delivered", "delivered", "delivered"]);
    expect(log.map((d) => d.attempt_log.map((a) => a.status_code))).toEqual([[204], [204], [204]]);
    expect(log.map((d) => d.event_id).sort()).toEqual(got.map((d) => d.id).sort());
  });

  it("a draft is silent; publishing it by PATCH is post.published; taking it out of view by PATCH is post.unpublished", async () => {
    const t = await tenant();
    const { box } = await hookTo(t.site);
    const post = await createPost(t.ck, { title: "Quiet" });
    await call("PATCH", `/v1/posts/${post.id}`, { key: t.ck, body: { summary: "still a draft" } });
    await call("PATCH", `/v1/posts/${post.id}`, { key: t.ck, body: { status: "published" } });
    await call("PATCH", `/v1/posts/${post.id}`, { key: t.ck, body: { access: "restricted" } });
    const got = await eventually(
      () => received(box),
      (ds) => ds.length >= 2,
    );
    await quiet(t.site);
    expect(payloads(await received(box)).map((b) => b.type)).toEqual(["post.published", "post.unpublished"]);
    expect(got.every((d) => d.verified)).toBe(true);
  });

  it("concurrent plain PATCHes of a published post all apply and each is announced once; a stale If-Match announces nothing", async () => {
    const t = await tenant();
    const { box } = await hookTo(t.site);
    const post = await createPost(t.ck, { title: "Racing", status: "published", slug: "racing" });
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        call("PATCH", `/v1/posts/${post.id}`, { key: t.ck, body: { title: `Racing ${i}` } }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const stale = await call("PATCH", `/v1/posts/${post.id}`, {
      key: t.ck,
      body: { title: "Stale" },
      headers: { "if-match": '"rev-0"' },
    });
    expect(stale.status).toBe(412);
    const got = await eventually(
      () => received(box),
      (ds) => ds.length >= 7,
    );
    await quiet(t.site);
    const updated = payloads(await received(box)).filter((b) => b.type === "post.updated");
    expect(got.length).toBeGreaterThanOrEqual(7);
    expect(updated).toHaveLength(6);
    expect(updated.map((b) => b.data.title).sort()).toEqual([0, 1, 2, 3, 4, 5].map((i) => `Racing ${i}`));
    expect(updated.every((b) => b.data.url === `https://${t.site.primary_domain}/racing`)).toBe(true);
  });

  it("PATCH /seo of a published post is post.updated; of a draft, nothing", async () => {
    const t = await tenant();
    const { box } = await hookTo(t.site);
    const draft = await createPost(t.ck, { title: "Draft seo" });
    await call("PATCH", `/v1/posts/${draft.id}/seo`, { key: t.ck, body: { meta_title: "x" } });
    const live = await createPost(t.ck, { title: "Live seo", status: "published" });
    const seo = await call("PATCH", `/v1/posts/${live.id}/seo`, {
      key: t.ck,
      body: { meta_title: "Better" },
    });
    expect(seo.status).toBe(200);
    await eventually(
      () => received(box),
      (ds) => ds.length >= 2,
    );
    await quiet(t.site);
    const bodies = payloads(await received(box));
    expect(bodies.map((b) => [b.type, b.data.post_id])).toEqual([
      ["post.published", live.id],
      ["post.updated", live.id],
    ]);
  });

  it("imported published lines are post.published", async () => {
    const t = await tenant();
    const key = await createKey(t.site, { scopes: ["import", "posts:write"] });
    const { box } = await hookTo(t.site);
    const lines = [
      JSON.stringify({ title: "Imported live", status: "published" }),
      JSON.stringify({ title: "Imported draft" }),
    ].join("\n");
    const res = await content.fetch(
      new Request(`${BASE}/v1/import`, {
        method: "POST",
        headers: { authorization: `Bearer ${key.key}`, "content-type": "application/x-ndjson" },
        body: lines,
      }),
    );
    expect(res.status).toBe(200);
    const got = await eventually(
      () => received(box),
      (ds) => ds.length >= 1,
    );
    await quiet(t.site);
    expect(payloads(await received(box)).map((b) => [b.type, b.data.title])).toEqual([
      ["post.published", "Imported live"],
    ]);
    expect(got[0]!.verified).toBe(true);
  });

  it("media.ready when the asset's variants are ready", async () => {
    const t = await tenant();
    const key = await createKey(t.site, { scopes: ["media:write", "media:read"] });
    const { box } = await hookTo(t.site, "inbox", ["media.ready"]);
    const png = Uint8Array.from(
      atob(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
      ),
      (ch) => ch.charCodeAt(0),
    );
    const form = new FormData();
    form.append("file", new File([png], "a.png"));
    const res = await content.fetch(
      new Request(`${BASE}/v1/media`, {
        method: "POST",
        headers: { authorization: `Bearer ${key.key}` },
        body: form,
      }),
    );
    const asset = (await res.json()) as { id: string; url: string };
    const got = await eventually(
      () => received(box),
      (ds) => ds.length >= 1,
    );
    expect(got[0]!.verified).toBe(true);
    const [ready] = payloads(got);
    expect(ready).toMatchObject({
      type: "media.ready",
      data: {
        site_id: t.site.id,
        media_id: asset.id,
        content_type: "image/png",
        size_bytes: png.length,
        folder_id: null,
        url: asset.url,
        variants: [{ name: "original", url: asset.url }],
      },
    });
    const media = (await (await call("GET", `/v1/media/${asset.id}`, { key: key.key })).json()) as {
      status: string;
    };
    expect(media.status).toBe("ready");
  });

  it("a webhook gets only the events it subscribed to; another site's events never reach it", async () => {
    const t = await tenant();
    const other = await tenant();
    const { box } = await hookTo(t.site, "inbox", ["post.unpublished"]);
    const mine = await createPost(t.ck, { title: "Mine", status: "published" });
    await createPost(other.ck, { title: "Theirs", status: "published" });
    const theirs = await createPost(other.ck, { title: "Theirs too", status: "published" });
    await call("POST", `/v1/posts/${theirs.id}/unpublish`, { key: other.ck });
    await call("POST", `/v1/posts/${mine.id}/unpublish`, { key: t.ck });
    await eventually(
      () => received(box),
      (ds) => ds.length >= 1,
    );
    // The other site's events went through the same queue: quiet for both.
    await quiet(t.site);
    await quiet(other.site);
    expect(payloads(await received(box)).map((b) => [b.type, b.data.post_id])).toEqual([
      ["post.unpublished", mine.id],
    ]);
  });
});

describe("scheduled posts", () => {
  afterEach(() => setClockForTests(null));

  it("a scheduled post is announced once when its time has come (the every-minute cron stores it as published)", async () => {
    const t = await tenant();
    const { box } = await hookTo(t.site);
    const soon = new Date(Date.now() + 60_000).toISOString();
    const post = await createPost(t.ck, { title: "Later", status: "published", published_at: soon });
    expect(post.status).toBe("scheduled");
    await content.scheduled({ cron: "* * * * *" });
    await quiet(t.site);
    expect(await received(box)).toEqual([]);
    // Its minute has passed (content's clock moved, not waited for).
    setClockForTests(() => Date.now() + 61_000);
    await content.scheduled({ cron: "* * * * *" });
    await content.scheduled({ cron: "* * * * *" });
    const got = await eventually(
      () => received(box),
      (ds) => ds.length >= 1,
    );
    await quiet(t.site);
    expect(payloads(await received(box)).map((b) => [b.type, b.data.post_id, b.data.status])).toEqual([
      ["post.published", post.id, "published"],
    ]);
    expect(got[0]!.verified).toBe(true);
    const row = await (await contentDbOf(t.site.id))
      .prepare("SELECT status, updated_at FROM posts WHERE id = ?")
      .bind(post.id)
      .first<{ status: string; updated_at: string }>();
    expect(row!.status).toBe("published");
    expect(row!.updated_at >= soon).toBe(true);
  });

  it("a due scheduled post edited before the cron is announced by the edit, and only once", async () => {
    const t = await tenant();
    const { box } = await hookTo(t.site);
    const post = await createPost(t.ck, {
      title: "Due",
      status: "published",
      published_at: new Date(Date.now() + 60_000).toISOString(),
    });
    // Its time has come (content's clock moved past it), and the cron has not run yet.
    setClockForTests(() => Date.now() + 61_000);
    await call("PATCH", `/v1/posts/${post.id}`, { key: t.ck, body: { summary: "now live" } });
    await content.scheduled({ cron: "* * * * *" });
    await call("PATCH", `/v1/posts/${post.id}`, { key: t.ck, body: { summary: "edited live" } });
    await eventually(
      () => received(box),
      (ds) => ds.length >= 2,
    );
    await quiet(t.site);
    expect(payloads(await received(box)).map((b) => b.type)).toEqual(["post.published", "post.updated"]);
  });
});

describe("retries, backoff and the dead-letter queue", () => {
  it("a receiver that fails twice gets the third attempt: same webhook-id, fresh timestamps, all logged", async () => {
    const t = await tenant();
    const { box, hook } = await hookTo(t.site, "flaky/2");
    await createPost(t.ck, { title: "Flaky", status: "published" });
    const [delivery] = await eventually(() => deliveriesOf(t.site, hook.id), settled);
    expect(delivery).toMatchObject({
      status: "delivered",
      attempts: 3,
      last_status_code: 204,
      next_attempt_at: null,
    });
    expect(delivery!.attempt_log.map((a) => [a.attempt, a.status_code, a.error])).toEqual([
      [1, 503, "http_503"],
      [2, 503, "http_503"],
      [3, 204, null],
    ]);
    const got = await received(box);
    expect(got).toHaveLength(3);
    expect(new Set(got.map((d) => d.id))).toEqual(new Set([delivery!.event_id]));
    expect(got.every((d) => d.verified)).toBe(true);
    expect(Number(got[2]!.timestamp)).toBeGreaterThanOrEqual(Number(got[0]!.timestamp));
  });

  it("one failing receiver never holds back another; after 8 attempts the failing one is dead-lettered", async () => {
    const t = await tenant();
    const good = await hookTo(t.site);
    const bad = await hookTo(t.site, "status/500");
    await createPost(t.ck, { title: "Fan out", status: "published" });
    const first = await eventually(
      () => received(good.box),
      (ds) => ds.length >= 1,
    );
    expect(first[0]!.verified).toBe(true);
    const [dead] = await eventually(() => deliveriesOf(t.site, bad.hook.id), settled, 30_000);
    expect(dead).toMatchObject({
      status: "failed",
      attempts: 8,
      last_status_code: 500,
      next_attempt_at: null,
    });
    expect(dead!.failed_at).toEqual(expect.any(String));
    expect(dead!.attempt_log.map((a) => a.status_code)).toEqual(Array(8).fill(500));
    expect(await received(bad.box)).toHaveLength(8);
    // The good receiver got the event once, at its first attempt.
    expect(await received(good.box)).toHaveLength(1);
    const [ok] = await deliveriesOf(t.site, good.hook.id);
    expect(ok).toMatchObject({ status: "delivered", attempts: 1 });
  }, 60_000);

  it("410 Gone fails the delivery at once (no retries)", async () => {
    const t = await tenant();
    const { box, hook } = await hookTo(t.site, "status/410");
    await createPost(t.ck, { title: "Gone", status: "published" });
    const [delivery] = await eventually(() => deliveriesOf(t.site, hook.id), settled);
    expect(delivery).toMatchObject({
      status: "failed",
      attempts: 1,
      last_status_code: 410,
      last_error: "http_410",
    });
    await quiet(t.site);
    expect(await received(box)).toHaveLength(1);
  });

  it("a redirect is a failed attempt and is never followed", async () => {
    const t = await tenant();
    const { box, hook } = await hookTo(t.site, "redirect");
    await createPost(t.ck, { title: "Moved", status: "published" });
    const [delivery] = await eventually(
      () => deliveriesOf(t.site, hook.id),
      (ds) => ds.length === 1 && ds[0]!.attempts >= 2,
    );
    expect(delivery!.attempt_log[0]).toMatchObject({ status_code: 302, error: "http_302" });
    await removeHook(t.site, hook);
    expect((await received(box)).every((d) => d.path.startsWith("/redirect/"))).toBe(true);
  });

  it("a receiver slower than the timeout is a failed attempt (timeout), retried", async () => {
    const t = await tenant();
    const { hook } = await hookTo(t.site, "slow");
    await createPost(t.ck, { title: "Slow", status: "published" });
    const [delivery] = await eventually(
      () => deliveriesOf(t.site, hook.id),
      (ds) => ds.length === 1 && ds[0]!.attempts >= 1,
    );
    await removeHook(t.site, hook);
    expect(delivery!.attempt_log[0]).toMatchObject({ status_code: null, error: "timeout" });
    expect(delivery!.attempt_log[0]!.at).toEqual(expect.any(String));
  });

  it("retries back off exponentially and honour Retry-After (message batch)", async () => {
    const t = await tenant();
    const { hook } = await hookTo(t.site, "status/503");
    const slowDown = await createWebhook(t.site, { url: `${inbox("status/429").url}?retry_after=600` });
    // Routed to the site's group, as the queue handler routes a batch (docs/decisions/site-groups.md).
    const env: Env = {
      ...(testEnv as unknown as Env),
      DB: await contentDbOf(t.site.id),
      WEBHOOK_RETRY_BASE_SECONDS: "5",
    };
    const services = contentServices(env, callLogger("content"));
    const delivery = async (webhookId: string, attempts: number) => {
      const id = newId();
      await (await contentDbOf(t.site.id))
        .prepare(
          `INSERT INTO webhook_deliveries (id, webhook_id, site_id, event_id, event_type, body, status, attempts, created_at)
         VALUES (?, ?, ?, ?, 'post.updated', '{"type":"post.updated"}', 'pending', ?, ?)`,
        )
        .bind(id, webhookId, t.site.id, newId(), attempts, new Date().toISOString())
        .run();
      return { kind: "webhook_delivery", delivery_id: id, webhook_id: webhookId, site_id: t.site.id };
    };
    const messages = [
      { id: "first", body: await delivery(hook.id, 0) },
      { id: "third", body: await delivery(hook.id, 2) },
      { id: "seventh", body: await delivery(hook.id, 6) },
      { id: "after", body: await delivery(slowDown.id, 0) },
    ];
    // A batch as the Queues runtime hands it over, recording each message's own ack or retry (the
    // plugin's createMessageBatch does not keep the delay of a retry).
    const settledAs: Record<string, { ack?: true; retry?: { delaySeconds?: number } }> = {};
    const batch = {
      queue: "content-events",
      messages: messages.map((m) => ({
        ...m,
        timestamp: new Date(),
        attempts: 1,
        ack: () => {
          settledAs[m.id] = { ack: true };
        },
        retry: (options?: { delaySeconds?: number }) => {
          settledAs[m.id] = { retry: options ?? {} };
        },
      })),
      ackAll: () => {
        throw new Error("a content-events batch settles its messages one by one");
      },
      retryAll: () => {
        throw new Error("a content-events batch settles its messages one by one");
      },
    } as unknown as MessageBatch<unknown>;
    await deliverContentEvents(env, services, batch);
    const delays = Object.fromEntries(
      Object.entries(settledAs).map(([id, outcome]) => [id, outcome.retry?.delaySeconds]),
    );
    // 5 s × 6^(n−1), ±10% jitter, capped at 12 h; at least the receiver's Retry-After.
    expect(delays.first).toBeGreaterThanOrEqual(4);
    expect(delays.first).toBeLessThanOrEqual(6);
    expect(delays.third).toBeGreaterThanOrEqual(162);
    expect(delays.third).toBeLessThanOrEqual(198);
    expect(delays.seventh).toBe(43_200);
    expect(delays.after).toBeGreaterThanOrEqual(600);
    const log = await deliveriesOf(t.site, hook.id);
    const first = log.find((d) => d.id === messages[0]!.body.delivery_id)!;
    expect(first.status).toBe("pending");
    const wait = Date.parse(first.next_attempt_at!) - Date.now();
    expect(wait).toBeGreaterThan(2_000);
    expect(wait).toBeLessThan(7_000);
  });
});

describe("destinations", () => {
  it("a host that turns private after registration is refused at delivery, never contacted", async () => {
    const t = await tenant();
    const name = `flip-${newId().toLowerCase()}.test`;
    await defineReceiverHost(name, ["93.184.216.34"]);
    const box = newId().toLowerCase();
    const hook = await createWebhook(t.site, { url: `https://${name}/inbox/${box}` });
    await trustSecrets(box, [hook.secret]);
    await defineReceiverHost(name, ["10.0.0.5"]);
    await createPost(t.ck, { title: "Rebound", status: "published" });
    const [delivery] = await eventually(() => deliveriesOf(t.site, hook.id), settled);
    expect(delivery).toMatchObject({
      status: "failed",
      attempts: 1,
      last_status_code: null,
      last_error: "destination_not_public",
    });
    expect(await received(box)).toEqual([]);
  });
});

describe("secret rotation", () => {
  it("after rotation the old secret stops verifying and the new one works", async () => {
    const t = await tenant();
    const { box, hook } = await hookTo(t.site);
    const rotated = (await (
      await call("POST", `${webhooksPath(t.site.id)}/${hook.id}/rotate-secret`, {
        headers: ownerHeaders(t.site),
      })
    ).json()) as { secret: string };
    // The receiver still knows only the old secret: the attempt fails its check (401), so it is retried.
    // The integrator installs the new secret once it has seen a refusal (however soon the retry comes).
    await trustSecrets(box, [hook.secret], { afterRefusals: 1, secrets: [rotated.secret] });
    await createPost(t.ck, { title: "Rotated", status: "published" });
    const refused = await eventually(
      () => received(box),
      (ds) => ds.length >= 1,
    );
    expect(refused[0]!.verified).toBe(false);
    // The next attempt verifies.
    const [delivery] = await eventually(() => deliveriesOf(t.site, hook.id), settled);
    expect(delivery!.status).toBe("delivered");
    const got = await received(box);
    expect(got.at(-1)!.verified).toBe(true);
    expect(got.slice(0, -1).every((d) => !d.verified)).toBe(true);
    expect(delivery!.attempt_log.slice(0, -1).every((a) => a.status_code === 401)).toBe(true);
  });
});
