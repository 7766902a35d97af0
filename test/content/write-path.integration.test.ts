/**
 * Storage hops of `POST /v1/posts`, counted on the Worker's real bindings (test/support/storage-hops.ts),
 * as the read path's are: the key's fresh lookup (with its site, its author persona and the post types in
 * the same query), the key's Durable Object (the write quota), and the post's one batch (row, outbox row,
 * idempotency record). A published post adds the outbox's own bookkeeping once its effects are delivered.
 */
import { describe, expect, it } from "vitest";
import {
  contentRequest,
  createPost,
  paragraph,
  type RequestOptions,
  tenant,
  testEnv,
} from "../support/content-helpers";
import { countingContentEnv, fetchThrough, type Hops } from "../support/storage-hops";

async function counted(path: string, options: RequestOptions) {
  const { env, hops } = countingContentEnv();
  const res = await fetchThrough(env, contentRequest("POST", path, options));
  return { res, hops, body: (await res.json()) as { id: string; slug: string; author: { slug: string } } };
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

  it("with an Idempotency-Key: the record is read once, reserved in the same object, written in the post's batch", async () => {
    const t = await writingSite();
    const first = await counted("/v1/posts", {
      key: t.ck,
      body: { title: "Once only", blocks_json: paragraph("Three") },
      headers: { "idempotency-key": "write-path-1" },
    });
    expect(first.res.status).toBe(201);
    // key, record lookup, batch (D1); take and reserve (the key's object); nothing in KV.
    expect(storageOf(first.hops)).toEqual({ d1: 3, durableObject: 2, kv: 0, r2: 0 });
    const replay = await counted("/v1/posts", {
      key: t.ck,
      body: { title: "Once only", blocks_json: paragraph("Three") },
      headers: { "idempotency-key": "write-path-1" },
    });
    expect(replay.res.headers.get("idempotency-replayed")).toBe("true");
    expect(replay.body.id).toBe(first.body.id);
    expect(storageOf(replay.hops)).toEqual({ d1: 2, durableObject: 1, kv: 0, r2: 0 });
  });

  it("a published post: the same three, and the outbox row deleted once its effects were delivered", async () => {
    const t = await writingSite();
    const { res, hops, body } = await counted("/v1/posts", {
      key: t.ck,
      body: { title: "Out now", status: "published", blocks_json: paragraph("Four") },
    });
    expect(res.status).toBe(201);
    expect(storageOf(hops)).toEqual({ d1: 3, durableObject: 1, kv: 0, r2: 0 });
    const left = await testEnv.DB.prepare("SELECT COUNT(*) AS n FROM post_effects WHERE post_id = ?")
      .bind(body.id)
      .first<{ n: number }>();
    expect(left?.n).toBe(0);
  });

  it("the folded reads stay exact: a revoked key stops at once; a disabled type and an unknown author are refused", async () => {
    const t = await writingSite();
    await testEnv.DB.prepare("UPDATE post_types SET disabled_at = ? WHERE site_id = ? AND slug = 'post'")
      .bind(new Date().toISOString(), t.site.id)
      .run();
    const disabled = await counted("/v1/posts", { key: t.ck, body: { title: "No type" } });
    expect(disabled.res.status).toBe(422);
    await testEnv.DB.prepare("UPDATE post_types SET disabled_at = NULL WHERE site_id = ? AND slug = 'post'")
      .bind(t.site.id)
      .run();
    const unknown = await counted("/v1/posts", {
      key: t.ck,
      body: { title: "Who", author_slug: "nobody-here" },
    });
    expect(unknown.res.status).toBe(422);
    await testEnv.DB.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ?")
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
