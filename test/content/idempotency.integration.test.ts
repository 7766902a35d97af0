import { describe, expect, it } from "vitest";
import { contentDbOf } from "../support/content-groups";
import { call, content, countRows, createKey, problem, tenant, testEnv } from "../support/content-helpers";

describe("POST /v1/posts with Idempotency-Key", () => {
  it("a replay with the same body returns the original 201 with Idempotency-Replayed: true and creates nothing", async () => {
    const t = await tenant();
    const body = { title: "Once", status: "published", tag_slugs: ["a"] };
    const first = await call("POST", "/v1/posts", {
      key: t.ck,
      body,
      headers: { "idempotency-key": "abc-1" },
    });
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotency-replayed")).toBeNull();
    const firstBody = await first.text();
    // Same body, keys in another order: the same request.
    const replay = await call("POST", "/v1/posts", {
      key: t.ck,
      body: { tag_slugs: ["a"], status: "published", title: "Once" },
      headers: { "idempotency-key": "abc-1" },
    });
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotency-replayed")).toBe("true");
    expect(replay.headers.get("location")).toBe(first.headers.get("location"));
    expect(await replay.text()).toBe(firstBody);
    expect(await countRows("posts", t.site.id)).toBe(1);
  });

  it("the same key with another body is 422 IDEMPOTENCY_KEY_REUSED", async () => {
    const t = await tenant();
    await call("POST", "/v1/posts", { key: t.ck, body: { title: "A" }, headers: { "idempotency-key": "k" } });
    const res = await call("POST", "/v1/posts", {
      key: t.ck,
      body: { title: "B" },
      headers: { "idempotency-key": "k" },
    });
    expect(res.status).toBe(422);
    expect((await problem(res)).code).toBe("IDEMPOTENCY_KEY_REUSED");
    expect(await countRows("posts", t.site.id)).toBe(1);
  });

  it("is scoped per API key: another key with the same Idempotency-Key creates its own post", async () => {
    const t = await tenant();
    const second = await createKey(t.site, { scopes: ["posts:write"] });
    const a = await call("POST", "/v1/posts", {
      key: t.ck,
      body: { title: "X" },
      headers: { "idempotency-key": "same" },
    });
    const b = await call("POST", "/v1/posts", {
      key: second.key,
      body: { title: "X" },
      headers: { "idempotency-key": "same" },
    });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.headers.get("idempotency-replayed")).toBeNull();
    expect(await countRows("posts", t.site.id)).toBe(2);
  });

  it("20 concurrent requests with one key create exactly one post", async () => {
    const t = await tenant();
    const body = { title: "Race", status: "published" };
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        call("POST", "/v1/posts", { key: t.ck, body, headers: { "idempotency-key": "race" } }),
      ),
    );
    const statuses = responses.map((r) => r.status);
    const fresh = responses.filter((r) => r.status === 201 && r.headers.get("idempotency-replayed") === null);
    expect(fresh).toHaveLength(1);
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    for (const r of responses.filter((r) => r.status === 409))
      expect((await problem(r)).code).toBe("IDEMPOTENCY_IN_PROGRESS");
    expect(await countRows("posts", t.site.id)).toBe(1);
    const created = (await fresh[0]!.json()) as { id: string };
    const later = await call("POST", "/v1/posts", {
      key: t.ck,
      body,
      headers: { "idempotency-key": "race" },
    });
    expect(later.headers.get("idempotency-replayed")).toBe("true");
    expect(((await later.json()) as { id: string }).id).toBe(created.id);
  });

  it("a failed request is not recorded: the client may retry with the same key", async () => {
    const t = await tenant();
    const bad = await call("POST", "/v1/posts", {
      key: t.ck,
      body: { title: "T", post_type: "recipe" },
      headers: { "idempotency-key": "retry" },
    });
    expect(bad.status).toBe(422);
    const good = await call("POST", "/v1/posts", {
      key: t.ck,
      body: { title: "T" },
      headers: { "idempotency-key": "retry" },
    });
    expect(good.status).toBe(201);
    expect(good.headers.get("idempotency-replayed")).toBeNull();
  });

  it("finished responses are kept in D1 only (24 h), written with the post, and replay from there", async () => {
    const t = await tenant();
    const first = await call("POST", "/v1/posts", {
      key: t.ck,
      body: { title: "Durable" },
      headers: { "idempotency-key": "d1" },
    });
    const id = ((await first.json()) as { id: string }).id;
    // No second copy: a first request spends no storage hop on one (test/content/write-path).
    const kv = await testEnv.CACHE.getWithMetadata(`idem:${t.secretKey.id}:d1`);
    expect(kv.value).toBeNull();
    const row = await (await contentDbOf(t.site.id))
      .prepare(
        "SELECT created_at, expires_at FROM idempotency_records WHERE key_id = ? AND idempotency_key = 'd1'",
      )
      .bind(t.secretKey.id)
      .first<{ created_at: string; expires_at: string }>();
    expect(Date.parse(row!.expires_at) - Date.parse(row!.created_at)).toBe(24 * 3600 * 1000);
    const replay = await call("POST", "/v1/posts", {
      key: t.ck,
      body: { title: "Durable" },
      headers: { "idempotency-key": "d1" },
    });
    expect(replay.headers.get("idempotency-replayed")).toBe("true");
    expect(((await replay.json()) as { id: string }).id).toBe(id);
  });

  it("the cron removes expired idempotency rows", async () => {
    const t = await tenant();
    await call("POST", "/v1/posts", {
      key: t.ck,
      body: { title: "Old" },
      headers: { "idempotency-key": "old" },
    });
    await call("POST", "/v1/posts", {
      key: t.ck,
      body: { title: "New" },
      headers: { "idempotency-key": "new" },
    });
    await (await contentDbOf(t.site.id))
      .prepare("UPDATE idempotency_records SET expires_at = ? WHERE key_id = ? AND idempotency_key = 'old'")
      .bind(new Date(Date.now() - 1000).toISOString(), t.secretKey.id)
      .run();
    await content.scheduled({ cron: "30 * * * *" });
    const rows = await (await contentDbOf(t.site.id))
      .prepare("SELECT idempotency_key FROM idempotency_records WHERE key_id = ?")
      .bind(t.secretKey.id)
      .all<{ idempotency_key: string }>();
    expect(rows.results.map((r) => r.idempotency_key)).toEqual(["new"]);
  });

  it("an Idempotency-Key that is empty, too long or not visible ASCII is 400", async () => {
    const t = await tenant();
    for (const k of ["x".repeat(256), "with space", ""]) {
      const res = await call("POST", "/v1/posts", {
        key: t.ck,
        body: { title: "T" },
        headers: { "idempotency-key": k },
      });
      expect(res.status, k).toBe(400);
    }
    expect(await countRows("posts", t.site.id)).toBe(0);
  });
});
