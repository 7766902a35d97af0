import { describe, expect, it } from "vitest";
import { MAX_BLOCKS_DEPTH } from "../../src/content/posts/input";
import { call, createKey, createPost, ORIGIN, tenant } from "../support/content-helpers";

/** A paragraph block whose data nests `depth` arrays deep (inside data, where the renderer never looks). */
function deepDocument(depth: number) {
  let deep: unknown = 1;
  for (let i = 0; i < depth; i++) deep = [deep];
  return { blocks: [{ type: "paragraph", data: { text: "x", deep } }] };
}

async function expectProblem(res: Response, label: string, status?: number) {
  expect(res.status, label).toBeGreaterThanOrEqual(400);
  expect(res.status, label).toBeLessThan(500);
  if (status !== undefined) expect(res.status, label).toBe(status);
  expect(res.headers.get("content-type"), label).toContain("application/problem+json");
  const body = (await res.json()) as { status: number; code: string };
  expect(body.status, label).toBe(res.status);
  expect(body.code, label).toMatch(/^[A-Z_]+$/);
  return body;
}

describe("hostile input never reaches a 500", () => {
  it("blocks_json nested deeper than the limit is 400 on create (with or without Idempotency-Key) and edit", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "Target" });
    // The limit itself is accepted (documents are stored and read back).
    const atLimit = deepDocument(MAX_BLOCKS_DEPTH - 4);
    const ok = await call("POST", "/v1/posts", {
      key: t.ck,
      body: { title: "deep ok", blocks_json: atLimit },
    });
    expect(ok.status).toBe(201);
    for (const depth of [MAX_BLOCKS_DEPTH + 1, 200_000]) {
      const body = { title: "deep", blocks_json: deepDocument(depth) };
      await expectProblem(await call("POST", "/v1/posts", { key: t.ck, body }), `create ${depth}`, 400);
      await expectProblem(
        await call("POST", "/v1/posts", { key: t.ck, body, headers: { "idempotency-key": `deep-${depth}` } }),
        `create idempotent ${depth}`,
        400,
      );
      await expectProblem(
        await call("PATCH", `/v1/posts/${post.id}`, {
          key: t.ck,
          body: { blocks_json: deepDocument(depth) },
        }),
        `patch ${depth}`,
        400,
      );
    }
  });

  it("an import line nested too deep fails its line, the import answers 200", async () => {
    const t = await tenant();
    const key = await createKey(t.site, { scopes: ["import", "posts:write"] });
    const lines = [
      JSON.stringify({ title: "fine" }),
      JSON.stringify({ title: "deep", blocks_json: deepDocument(200_000) }),
    ].join("\n");
    const res = await call("POST", "/v1/import", {
      key: key.key,
      body: lines,
      headers: { "content-type": "application/x-ndjson" },
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('"created"');
    expect(text).toContain('"failed"');
  });

  it("malformed parameters and bodies on every post route are 4xx problems", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "P", status: "published" });
    const cases: [string, string, unknown, Record<string, string>?][] = [
      ["GET", "/v1/posts?limit=1&limit=2", undefined],
      ["GET", "/v1/posts?cursor=%00", undefined],
      ["GET", `/v1/posts?cursor=${"A".repeat(5000)}`, undefined],
      ["GET", "/v1/posts?category=a%00b", undefined],
      ["GET", `/v1/posts?tag=${Array.from({ length: 30 }, (_, i) => `t${i}`).join(",")}`, undefined],
      ["GET", "/v1/posts?language=%00", undefined],
      ["GET", `/v1/posts?language=${"a".repeat(40)}`, undefined],
      ["GET", "/v1/posts?post_type=%00", undefined],
      ["GET", "/v1/posts?author=%E2%80%AE", undefined],
      ["GET", "/v1/posts?status=draft,,", undefined],
      ["GET", "/v1/posts?since=2024-01-01T00:00:00.0000000001Z", undefined],
      ["GET", "/v1/posts?since=9999-99-99T99:99:99Z", undefined],
      ["GET", `/v1/posts/${post.id}?language=%00`, undefined],
      ["POST", "/v1/posts", "{not json"],
      ["POST", "/v1/posts", "null"],
      ["POST", "/v1/posts", "[1]"],
      ["POST", "/v1/posts", '"x"'],
      ["POST", "/v1/posts", { title: "" }],
      ["POST", "/v1/posts", { title: "x".repeat(301) }],
      ["POST", "/v1/posts", { title: 5 }],
      ["POST", "/v1/posts", { title: "x", category_slugs: "news" }],
      ["POST", "/v1/posts", { title: "x", category_slugs: ["a\u0000b"] }],
      ["POST", "/v1/posts", { title: "x", tag_slugs: Array.from({ length: 51 }, (_, i) => `t${i}`) }],
      ["POST", "/v1/posts", { title: "x", published_at: "2024-01-01T00:00:00+99:99" }],
      ["POST", "/v1/posts", { title: "x", blocks_json: { blocks: [{ type: "paragraph", data: null }] } }],
      ["POST", "/v1/posts", { title: "x", blocks_json: { blocks: "no" } }],
      ["POST", "/v1/posts", { title: "x", featured_image_id: "not-an-id" }],
      ["POST", "/v1/posts", { title: "x", access: "secret" }],
      ["POST", "/v1/posts", { title: "x", slug: "a".repeat(201) }],
      ["POST", "/v1/posts", { title: "x" }, { "idempotency-key": "tab\there" }],
      ["PATCH", `/v1/posts/${post.id}`, "null"],
      ["PATCH", `/v1/posts/${post.id}`, "[]"],
      ["PATCH", `/v1/posts/${post.id}`, { title: null }],
      ["PATCH", `/v1/posts/${post.id}`, { status: "deleted" }],
      ["PATCH", `/v1/posts/${post.id}`, { language: "%%" }],
      ["PATCH", `/v1/posts/${post.id}?language=%00`, { title: "x" }],
      ["PATCH", `/v1/posts/${post.id}/seo`, "null"],
      ["PATCH", `/v1/posts/${post.id}/seo`, { meta_title: 5 }],
      ["PATCH", `/v1/posts/${post.id}/seo`, { og_image: "javascript:alert(1)" }],
      ["PATCH", `/v1/posts/${post.id}/seo`, { twitter_card: "huge" }],
      ["PATCH", `/v1/posts/${post.id}/seo`, {}],
      ["GET", `/v1/posts/${post.id}/source?language=!!`, undefined],
      ["POST", `/v1/posts/${post.id}/unpublish?language=!!`, undefined],
    ];
    for (const [method, path, body, headers] of cases) {
      const res = await call(method, path, { key: t.ck, body, headers });
      await expectProblem(res, `${method} ${path} ${JSON.stringify(body)?.slice(0, 80)}`);
    }
  });

  it("odd references (percent junk, NUL, very long, unicode) are the plain 404", async () => {
    const t = await tenant();
    const missing = await call("GET", "/v1/posts/no-such-post", { key: t.ck });
    const missingBody = await missing.text();
    for (const ref of ["%ZZ", "a%00b", "a".repeat(3000), "%E2%80%AE", "..%2F..%2Fsite", "%20"]) {
      for (const [method, suffix, body] of [
        ["GET", "", undefined],
        ["GET", "/source", undefined],
        ["GET", "/seo", undefined],
        ["PATCH", "", { title: "x" }],
        ["PATCH", "/seo", { meta_title: "x" }],
        ["POST", "/unpublish", undefined],
      ] as const) {
        const res = await call(method, `/v1/posts/${ref}${suffix}`, { key: t.ck, body });
        expect(res.status, `${method} ${ref.slice(0, 20)}${suffix}`).toBe(404);
        expect(await res.text()).toBe(missingBody);
      }
    }
    const pk = await call("GET", "/v1/posts/a%00b", { key: t.pk, origin: ORIGIN });
    expect(pk.status).toBe(404);
  });
});
