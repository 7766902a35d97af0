/**
 * Storage hops of `POST /v1/posts`, counted on the Worker's real bindings (test/support/storage-hops.ts),
 * as the read path's are, up to the answer: the key's fresh lookup (with its site, its author persona and
 * the post types in the same query), ONE call of the key's Durable Object (the write quota and, with an
 * Idempotency-Key, its reservation), and the post's one batch (row, outbox row, idempotency record). A
 * published post's outbox is delivered after the answer (`waitUntil`), its row deleted there.
 */
import { describe, expect, it } from "vitest";
import { contentDbOf } from "../support/content-groups";
import {
  call,
  contentRequest,
  countRows,
  createPost,
  paragraph,
  problem,
  type RequestOptions,
  tenant,
} from "../support/content-helpers";
import { countingContentEnv, fetchAnswered, type Hops } from "../support/storage-hops";
import { createWebhook, inbox, payloads, quiet, received, trustSecrets } from "../support/webhook-helpers";

/** The request's hops when it answered (`answered`) and once its background work finished (`hops`). */
async function counted(path: string, options: RequestOptions) {
  const { env, hops } = countingContentEnv();
  const { res, answered } = await fetchAnswered(env, hops, contentRequest("POST", path, options));
  return {
    res,
    hops,
    answered,
    body: (await res.json()) as { id: string; slug: string; author: { slug: string } },
  };
}

/** As `counted`, with the `content-events` queue's messages sent during the request (and its background work). */
async function countedWithQueue(path: string, options: RequestOptions) {
  const { env, hops } = countingContentEnv();
  const sent: { type: string; post_id: string }[] = [];
  const queue = env.CONTENT_EVENTS;
  const withQueue = {
    ...env,
    CONTENT_EVENTS: {
      send: (body: { type: string; post_id: string }, opts?: QueueSendOptions) => {
        sent.push({ type: body.type, post_id: body.post_id });
        return queue.send(body, opts);
      },
      sendBatch: (messages: Iterable<MessageSendRequest>, opts?: QueueSendBatchOptions) => {
        for (const m of messages) sent.push(m.body as { type: string; post_id: string });
        return queue.sendBatch(messages, opts);
      },
    } as Queue,
  };
  const { res, answered } = await fetchAnswered(withQueue, hops, contentRequest("POST", path, options));
  const body = (await res.json()) as { id: string; slug: string };
  return { res, hops, answered, body, sent };
}

async function outboxRows(siteId: string, postId: string): Promise<number> {
  const row = await (await contentDbOf(siteId))
    .prepare("SELECT COUNT(*) AS n FROM post_effects WHERE post_id = ?")
    .bind(postId)
    .first<{ n: number }>();
  return row!.n;
}

/** The development records (DEV_OUTBOX) of the post's events, by kind. */
async function eventRecords(siteId: string, postId: string): Promise<string[]> {
  const { results } = await (await contentDbOf(siteId))
    .prepare("SELECT kind FROM outbound_effects WHERE subject_id = ? AND kind LIKE 'event:%' ORDER BY kind")
    .bind(postId)
    .all<{ kind: string }>();
  return results.map((r) => r.kind);
}

const storageOf = (hops: Hops) => ({
  d1: hops.d1,
  durableObject: hops.durableObject,
  kv: hops.kv,
  r2: hops.r2,
});

/** A site whose key has written once: its author persona exists (made by the first post). */
async function writingSite() {
  const t = await tenant();
  await createPost(t.ck, { title: "First of the key", blocks_json: paragraph("One") });
  return t;
}

describe("POST /v1/posts in the common case spends at most three storage hops", () => {
  it("a draft: the key's lookup, the key's Durable Object, the post's batch", async () => {
    const t = await writingSite();
    const { res, hops, body } = await counted("/v1/posts", {
      key: t.ck,
      body: { title: "A new draft", blocks_json: paragraph("Two") },
    });
    expect(res.status).toBe(201);
    expect(body.slug).toBe("a-new-draft");
    expect(storageOf(hops)).toEqual({ d1: 2, durableObject: 1, kv: 0, r2: 0 });
  });

  it("with an Idempotency-Key: the record is read once, reserved in the same call as the quota, written in the post's batch", async () => {
    const t = await writingSite();
    const first = await counted("/v1/posts", {
      key: t.ck,
      body: { title: "Once only", blocks_json: paragraph("Three") },
      headers: { "idempotency-key": "write-path-1" },
    });
    expect(first.res.status).toBe(201);
    // key, record lookup, batch (D1); one call of the key's object (quota and reservation); nothing in KV.
    expect(storageOf(first.hops)).toEqual({ d1: 3, durableObject: 1, kv: 0, r2: 0 });
    const replay = await counted("/v1/posts", {
      key: t.ck,
      body: { title: "Once only", blocks_json: paragraph("Three") },
      headers: { "idempotency-key": "write-path-1" },
    });
    expect(replay.res.headers.get("idempotency-replayed")).toBe("true");
    expect(replay.body.id).toBe(first.body.id);
    expect(storageOf(replay.hops)).toEqual({ d1: 2, durableObject: 1, kv: 0, r2: 0 });
  });

  it("a published post: the same three before the answer; its outbox delivered after it, the row deleted", async () => {
    const t = await writingSite();
    await createWebhook(t.site, { url: inbox().url, events: ["post.published"] });
    const { res, hops, answered, body, sent } = await countedWithQueue("/v1/posts", {
      key: t.ck,
      body: { title: "Out now", status: "published", blocks_json: paragraph("Four") },
    });
    expect(res.status).toBe(201);
    expect(answered).toEqual({ d1: 2, durableObject: 1, kv: 0, r2: 0 });
    // After the answer: the event queued, then the outbox row's deletion.
    expect(storageOf(hops)).toEqual({ d1: 3, durableObject: 1, kv: 0, r2: 0 });
    expect(sent).toEqual([{ type: "post.published", post_id: body.id }]);
    expect(await outboxRows(t.site.id, body.id)).toBe(0);
  });

  it("a published post no webhook subscribes to: three hops and nothing after the answer, no outbox row, no queue message", async () => {
    const t = await writingSite();
    // Subscribed to other events only, or carried over from another owner: not a receiver of this one.
    await createWebhook(t.site, { url: inbox().url, events: ["post.updated", "post.deleted"] });
    const carried = await createWebhook(t.site, { url: inbox().url, events: ["post.published"] });
    await (await contentDbOf(t.site.id))
      .prepare("UPDATE webhooks SET carried_over_at = ? WHERE id = ?")
      .bind(new Date().toISOString(), carried.id)
      .run();
    // Another tenant's site listening to the same event: a wall, not a receiver of this site's posts.
    await createWebhook((await tenant()).site, { url: inbox().url, events: ["post.published"] });
    const { res, hops, answered, body, sent } = await countedWithQueue("/v1/posts", {
      key: t.ck,
      body: { title: "Nobody listens", status: "published", blocks_json: paragraph("Five") },
    });
    expect(res.status).toBe(201);
    expect(answered).toEqual({ d1: 2, durableObject: 1, kv: 0, r2: 0 });
    expect(storageOf(hops)).toEqual({ d1: 2, durableObject: 1, kv: 0, r2: 0 });
    expect(sent).toEqual([]);
    expect(await outboxRows(t.site.id, body.id)).toBe(0);
    // Development (DEV_OUTBOX): the event is still recorded once, in the post's own batch.
    expect(await eventRecords(t.site.id, body.id)).toEqual(["event:post.published"]);
  });

  it("an event with a receiver is recorded once in development: by the consumer, not by the batch", async () => {
    const t = await writingSite();
    const hook = inbox();
    const webhook = await createWebhook(t.site, { url: hook.url, events: ["post.published"] });
    await trustSecrets(hook.box, [webhook.secret]);
    const post = await createPost(t.ck, {
      title: "Heard",
      status: "published",
      blocks_json: paragraph("Six"),
    });
    await quiet(t.site);
    expect(await eventRecords(t.site.id, post.id)).toEqual(["event:post.published"]);
    expect(payloads(await received(hook.box)).map((p) => p.type)).toEqual(["post.published"]);
  });

  it("the folded reads stay exact: a revoked key stops at once; a disabled type and an unknown author are refused", async () => {
    const t = await writingSite();
    await (await contentDbOf(t.site.id))
      .prepare("UPDATE post_types SET disabled_at = ? WHERE site_id = ? AND slug = 'post'")
      .bind(new Date().toISOString(), t.site.id)
      .run();
    const disabled = await counted("/v1/posts", { key: t.ck, body: { title: "No type" } });
    expect(disabled.res.status).toBe(422);
    await (await contentDbOf(t.site.id))
      .prepare("UPDATE post_types SET disabled_at = NULL WHERE site_id = ? AND slug = 'post'")
      .bind(t.site.id)
      .run();
    const unknown = await counted("/v1/posts", {
      key: t.ck,
      body: { title: "Who", author_slug: "nobody-here" },
    });
    expect(unknown.res.status).toBe(422);
    await (await contentDbOf(t.site.id))
      .prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ?")
      .bind(new Date().toISOString(), t.secretKey.id)
      .run();
    const revoked = await counted("/v1/posts", { key: t.ck, body: { title: "After revocation" } });
    expect(revoked.res.status).toBe(401);
  });

  it("the first post of a key makes its persona (more hops, once); a taken title slug costs the candidates query", async () => {
    const t = await tenant();
    const first = await counted("/v1/posts", { key: t.ck, body: { title: "Same title" } });
    expect(first.res.status).toBe(201);
    expect(first.hops.d1).toBeGreaterThan(2);
    const again = await counted("/v1/posts", { key: t.ck, body: { title: "Same title" } });
    expect(again.res.status).toBe(201);
    expect(again.body.slug).toBe("same-title-2");
    expect(again.body.author.slug).toBe(first.body.author.slug);
  });
});

describe("POST /v1/posts: the merged quota and reservation under races", () => {
  it("50 concurrent requests with one Idempotency-Key create one post; the others replay it or wait", async () => {
    const t = await tenant();
    const body = { title: "Fifty at once", status: "published", blocks_json: paragraph("Race") };
    const responses = await Promise.all(
      Array.from({ length: 50 }, () =>
        call("POST", "/v1/posts", { key: t.ck, body, headers: { "idempotency-key": "fifty" } }),
      ),
    );
    const fresh = responses.filter((r) => r.status === 201 && r.headers.get("idempotency-replayed") === null);
    expect(fresh).toHaveLength(1);
    const created = (await fresh[0]!.json()) as { id: string };
    for (const r of responses) {
      expect([201, 409]).toContain(r.status);
      if (r.status === 409) expect((await problem(r)).code).toBe("IDEMPOTENCY_IN_PROGRESS");
      else if (r !== fresh[0]) expect(((await r.json()) as { id: string }).id).toBe(created.id);
    }
    expect(await countRows("posts", t.site.id)).toBe(1);
  });

  it("80 concurrent writes of one key: no more accepted than its quota; each accepted one is a post, the rest 429", async () => {
    const t = await tenant();
    const started = Date.now();
    const responses = await Promise.all(
      Array.from({ length: 80 }, (_, i) =>
        call("POST", "/v1/posts", {
          key: t.ck,
          body: { title: `Quota ${i}` },
          headers: { "idempotency-key": `quota-${i}` },
        }),
      ),
    );
    const seconds = (Date.now() - started) / 1000;
    const accepted = responses.filter((r) => r.status === 201).length;
    const limited = responses.filter((r) => r.status === 429);
    expect(accepted + limited.length).toBe(80);
    // 60 a minute per key, plus what refilled (one a second) while the burst ran.
    expect(accepted).toBeGreaterThanOrEqual(60);
    expect(accepted).toBeLessThanOrEqual(60 + Math.ceil(seconds) + 1);
    expect(await countRows("posts", t.site.id)).toBe(accepted);
    // A refused request reserved nothing: its Idempotency-Key runs once a token is back.
    const refused = limited[0]!;
    const index = responses.indexOf(refused);
    await new Promise((r) => setTimeout(r, Number(refused.headers.get("retry-after")) * 1000 + 50));
    const retry = await call("POST", "/v1/posts", {
      key: t.ck,
      body: { title: `Quota ${index}` },
      headers: { "idempotency-key": `quota-${index}` },
    });
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotency-replayed")).toBeNull();
  });

  it("a refused body still spends a write token (the quota is answered first: 429 wins over 400)", async () => {
    const t = await tenant();
    const bad = await call("POST", "/v1/posts", {
      key: t.ck,
      body: { title: "" },
      headers: { "idempotency-key": "bad-body" },
    });
    expect(bad.status).toBe(400);
    expect(bad.headers.get("ratelimit")).toBe('"writes";r=59;t=1');
  });
});
