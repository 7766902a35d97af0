/**
 * Preview links (issue 22): a ck_ key makes a link to a draft or scheduled post that anyone can GET
 * without a key (no-store, noindex) until it expires (at most 24 h) or the post's preview secret is
 * rotated; every bad link answers the same 404.
 */
import { describe, expect, it, vi } from "vitest";
import {
  BASE,
  call,
  content,
  createKey,
  createPost,
  ORIGIN,
  paragraph,
  problem,
  tenant,
  testEnv,
} from "../support/content-helpers";

interface Link {
  url: string;
  expires_at: string;
}

async function link(key: string, ref: string, body?: unknown): Promise<Link> {
  const res = await call("POST", `/v1/posts/${ref}/preview`, { key, ...(body ? { body } : {}) });
  expect(res.status).toBe(200);
  return (await res.json()) as Link;
}

const open = (url: string) => content.fetch(new Request(url));

describe("preview links", () => {
  it("shows a draft as it is now, without a key, no-store and noindex; edits show at once", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "Secret draft", blocks_json: paragraph("draft body") });
    const before = Date.now();
    const { url, expires_at } = await link(t.ck, post.id);
    expect(url.startsWith(`${BASE}/v1/preview/`)).toBe(true);
    const life = Date.parse(expires_at) - before;
    expect(life).toBeGreaterThan(3500_000);
    expect(life).toBeLessThanOrEqual(3601_000);
    const res = await open(url);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("x-robots-tag")).toBe("noindex");
    const body = (await res.json()) as { id: string; status: string; content_html: string; title: string };
    expect(body).toMatchObject({ id: post.id, status: "draft", title: "Secret draft" });
    expect(body.content_html).toContain("draft body");
    await call("PATCH", `/v1/posts/${post.id}`, { key: t.ck, body: { title: "Edited draft" } });
    expect(((await (await open(url)).json()) as { title: string }).title).toBe("Edited draft");
    // The draft itself stays invisible to public reads.
    expect((await call("GET", `/v1/posts/${post.id}`, { key: t.pk, origin: ORIGIN })).status).toBe(404);
  });

  it("expires_in is 60..86400 (400 outside); a link past its expiry is 404", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, {
      title: "Scheduled",
      status: "scheduled",
      published_at: "2099-01-01T00:00:00Z",
    });
    for (const expires_in of [59, 86401, 1.5, "60"]) {
      const res = await call("POST", `/v1/posts/${post.id}/preview`, { key: t.ck, body: { expires_in } });
      expect(res.status).toBe(400);
    }
    const day = await link(t.ck, post.id, { expires_in: 86400 });
    expect(Date.parse(day.expires_at) - Date.now()).toBeGreaterThan(86390_000);
    const short = await link(t.ck, post.id, { expires_in: 60 });
    expect((await open(short.url)).status).toBe(200);
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 61_000 });
    try {
      const expired = await open(short.url);
      expect(expired.status).toBe(404);
      expect((await open(day.url)).status).toBe(200);
    } finally {
      vi.useRealTimers();
    }
  });

  it("DELETE rotates the secret: every earlier link is 404, a new one works", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "Rotate me" });
    const a = await link(t.ck, post.id);
    const b = await link(t.ck, post.id);
    expect((await open(a.url)).status).toBe(200);
    expect((await call("DELETE", `/v1/posts/${post.id}/preview`, { key: t.ck })).status).toBe(204);
    const gone = await open(a.url);
    expect(gone.status).toBe(404);
    expect((await open(b.url)).status).toBe(404);
    const c = await link(t.ck, post.id);
    expect((await open(c.url)).status).toBe(200);
  });

  it("tampered, foreign and garbage tokens are the same 404; a deleted post's link ends", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "Tamper" });
    const { url } = await link(t.ck, post.id);
    const missing = await open(`${BASE}/v1/preview/nothing`);
    expect(missing.status).toBe(404);
    const body = await missing.json();
    const [prefix, id, exp, mac] = url.split("/").at(-1)!.split(".");
    const tampered = [
      `${prefix}.${id}.${Number(exp) + 1}.${mac}`,
      `${prefix}.${id}.${exp}.${mac!.slice(0, -2)}AA`,
      `${prefix}.${id}.${Number(exp) + 200_000}.${mac}`,
    ];
    for (const token of tampered) {
      const res = await open(`${BASE}/v1/preview/${token}`);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual(body);
    }
    // Another post's secret does not sign this post.
    const other = await createPost(t.ck, { title: "Other" });
    const otherMac = (await link(t.ck, other.id)).url.split(".").at(-1);
    expect((await open(`${BASE}/v1/preview/${prefix}.${id}.${exp}.${otherMac}`)).status).toBe(404);
    // The post is soft-deleted in storage (the DELETE operation is built in parallel).
    await testEnv.DB.prepare("UPDATE posts SET status = 'deleted' WHERE id = ?").bind(post.id).run();
    expect((await open(url)).status).toBe(404);
  });

  it("another site's post is 404; pk_ keys and keys without posts:write are refused", async () => {
    const t = await tenant();
    const other = await tenant();
    const post = await createPost(t.ck, { title: "Walled" });
    expect((await call("POST", `/v1/posts/${post.id}/preview`, { key: other.ck })).status).toBe(404);
    expect((await call("DELETE", `/v1/posts/${post.id}/preview`, { key: other.ck })).status).toBe(404);
    const pk = await call("POST", `/v1/posts/${post.id}/preview`, { key: t.pk, origin: ORIGIN });
    expect((await problem(pk)).code).toBe("SECRET_KEY_REQUIRED");
    const reader = await createKey(t.site, { scopes: ["posts:read"] });
    const res = await call("POST", `/v1/posts/${post.id}/preview`, { key: reader.key });
    expect((await problem(res)).code).toBe("INSUFFICIENT_SCOPE");
    expect((await call("DELETE", `/v1/posts/${post.id}/preview`, { key: reader.key })).status).toBe(403);
  });
});
