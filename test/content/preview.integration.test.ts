/**
 * Preview links (issue 22): a ck_ key makes a link to a draft or scheduled post that anyone can GET
 * without a key (no-store, noindex) until it expires (at most 24 h) or every link of the post is ended
 * (DELETE …/preview); every bad link answers the same 404. Issue 31: a link also ends when what granted it
 * ends (docs/decisions/previews.md): the post is deleted, the site is transferred, deleted, archived or
 * deactivated, the key that made it is revoked or carried over, or the key's creator loses the grant.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { setClockForTests } from "../../src/content/core/clock";
import { newId } from "../../src/lib/ids";
import type { SiteProjection } from "../../src/lib/rpc";
import { contentDbOf } from "../support/content-groups";
import {
  BASE,
  call,
  content,
  createKey,
  createPost,
  makeSite,
  ORIGIN,
  ownerHeaders,
  paragraph,
  problem,
  siteTransferredMessage,
  tenant,
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

const transferQueue = (env as unknown as { TEST_SITE_TRANSFERRED: Queue }).TEST_SITE_TRANSFERRED;

/** What a link that never existed answers: every ended link must answer exactly this (no oracle). */
async function missingAnswer(): Promise<{ status: number; body: string }> {
  const res = await open(`${BASE}/v1/preview/p3.${newId()}.${"A".repeat(43)}`);
  return { status: res.status, body: await res.text() };
}

/** The link answers as a missing one: same status, same body. */
async function expectEnded(url: string) {
  const res = await open(url);
  expect({ status: res.status, body: await res.text() }).toEqual(await missingAnswer());
  expect(res.status).toBe(404);
}

/** A draft of a fresh site (its projection pushed 30 minutes ago) and a live link to it. */
async function livePreview() {
  const t = await tenant({ updated_at: new Date(Date.now() - 30 * 60_000).toISOString() });
  const post = await createPost(t.ck, {
    title: "Confidential draft",
    blocks_json: paragraph("buyer's edits"),
  });
  const { url } = await link(t.ck, post.id);
  expect((await open(url)).status).toBe(200);
  return { ...t, post, url };
}

/** The site as sites pushes it after a change (a newer `updated_at` than any push before). */
let pushes = 0;
async function push(site: SiteProjection, change: Partial<SiteProjection>) {
  pushes += 1;
  await content.syncSite({
    ...site,
    ...change,
    updated_at: new Date(Date.now() + pushes * 1000).toISOString(),
  });
}

/** The transfer as identity queues it, consumed: the site's content restamped for `to`. */
async function transfer(site: SiteProjection, to: string, mode: "transfer" | "share" = "transfer") {
  const message = siteTransferredMessage(site, to, mode);
  await transferQueue.send(message);
  // A share records nothing: a transfer of a sentinel site sent after it proves the queue consumed it.
  const sentinel = mode === "share" ? await makeSite() : site;
  const awaited =
    mode === "share" ? { ...message, transfer_id: newId(), site_id: sentinel.id, mode: "transfer" } : message;
  if (mode === "share") await transferQueue.send(awaited);
  for (let i = 0; i < 100; i++) {
    const row = await (await contentDbOf(sentinel.id))
      .prepare("SELECT transfer_id FROM site_transfers WHERE site_id = ?")
      .bind(sentinel.id)
      .first<{ transfer_id: string }>();
    if (row?.transfer_id === awaited.transfer_id) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("timed out waiting for the transfer's consumer");
}

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

  it("DELETE ends every link of the post, whichever key made it; a new one works", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "Rotate me" });
    const other = await createKey(t.site, { scopes: ["posts:write"] });
    const a = await link(t.ck, post.id);
    const b = await link(other.key, post.id);
    const elsewhere = await createPost(t.ck, { title: "Another post" });
    const kept = await link(t.ck, elsewhere.id);
    expect((await open(a.url)).status).toBe(200);
    expect((await call("DELETE", `/v1/posts/${post.id}/preview`, { key: t.ck })).status).toBe(204);
    await expectEnded(a.url);
    await expectEnded(b.url);
    expect((await open(kept.url)).status).toBe(200);
    const c = await link(t.ck, post.id);
    expect((await open(c.url)).status).toBe(200);
  });

  it("tampered, old-format and garbage tokens are the same 404; the link's row names the key that made it and holds no token", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "Tamper" });
    const { url } = await link(t.ck, post.id);
    const token = url.split("/").at(-1)!;
    // The token names its site (issue 38: the read finds the site's group by it).
    expect(token).toMatch(new RegExp(`^p3\\.${t.site.id}\\.[A-Za-z0-9_-]{43}$`));
    const other = await tenant();
    const missing = await missingAnswer();
    expect(missing.status).toBe(404);
    const flipped = token.at(-1) === "A" ? "B" : "A";
    const tampered = [
      "nothing",
      `${token.slice(0, -1)}${flipped}`,
      token.slice(0, -1),
      `${token}A`,
      token.toUpperCase(),
      `p1.${post.id}.${Math.floor(Date.now() / 1000) + 600}.${"A".repeat(22)}`,
      encodeURIComponent(`${token}'--`),
      // The site id is covered by the hash: another site's (another group, maybe), or none, is no link.
      token.replace(t.site.id, other.site.id),
      token.replace(t.site.id, newId()),
      token.replace(`${t.site.id}.`, ""),
      `p2.${token.split(".").at(-1)}`,
    ];
    for (const bad of tampered) {
      const res = await open(`${BASE}/v1/preview/${bad}`);
      expect({ status: res.status, body: await res.text() }).toEqual(missing);
    }
    const rows = await (await contentDbOf(t.site.id))
      .prepare("SELECT * FROM preview_links WHERE post_id = ?")
      .bind(post.id)
      .all();
    expect(rows.results).toHaveLength(1);
    expect(rows.results[0]).toMatchObject({
      site_id: t.site.id,
      org_id: t.site.org_id,
      key_id: t.secretKey.id,
      user_id: null,
      ended_at: null,
    });
    expect(JSON.stringify(rows.results[0])).not.toContain(token.slice(3));
    // The post is soft-deleted in storage.
    await (await contentDbOf(t.site.id))
      .prepare("UPDATE posts SET status = 'deleted' WHERE id = ?")
      .bind(post.id)
      .run();
    await expectEnded(url);
  });

  it("the hourly run purges links a week past their expiry, not before", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "Purged" });
    const start = Date.now();
    // Links made 8 and 6 days ago (content's clock moved back while each is made), each living 60 s.
    const madeAt = async (daysAgo: number) => {
      setClockForTests(() => start - daysAgo * 86_400_000);
      try {
        return await link(t.ck, post.id, { expires_in: 60 });
      } finally {
        setClockForTests(null);
      }
    };
    await madeAt(8);
    const recent = await madeAt(6);
    const expiries = async () =>
      (
        await (
          await contentDbOf(t.site.id)
        )
          .prepare("SELECT expires_at FROM preview_links WHERE post_id = ?")
          .bind(post.id)
          .all<{ expires_at: string }>()
      ).results.map((r) => r.expires_at);
    expect(await expiries()).toHaveLength(2);
    await content.scheduled({ cron: "30 * * * *" });
    expect(await expiries()).toEqual([recent.expires_at]);
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

describe("a preview link ends when what granted it ends", () => {
  it("the post is deleted: the link answers as a missing one", async () => {
    const p = await livePreview();
    expect((await call("DELETE", `/v1/posts/${p.post.id}`, { key: p.ck })).status).toBe(204);
    await expectEnded(p.url);
  });

  it("the site is transferred: the buyer's edits no longer reach the seller's link, before and after the content is restamped, and a transfer back does not revive it", async () => {
    const p = await livePreview();
    const buyer = newId();
    // Sites pushes the new owner first (the site-transferred message may come later).
    await push(p.site, { org_id: buyer });
    await call("PATCH", `/v1/posts/${p.post.id}`, { key: p.ck, body: { title: "Buyer's secret" } });
    await expectEnded(p.url);
    await transfer(p.site, buyer);
    await expectEnded(p.url);
    // The site goes back to the seller: the link stays ended.
    await push(p.site, { org_id: p.site.org_id });
    await transfer({ ...p.site, org_id: buyer }, p.site.org_id);
    await expectEnded(p.url);
  });

  it("the site is transferred (the message before the projection): the link ends, even when the buyer keeps the key that made it", async () => {
    const p = await livePreview();
    const buyer = newId();
    await transfer(p.site, buyer);
    await expectEnded(p.url);
    const kept = await call("POST", `/api/v1/sites/${p.site.id}/api-keys/${p.secretKey.id}/keep`, {
      headers: ownerHeaders({ ...p.site, org_id: buyer }),
    });
    expect(kept.status).toBe(200);
    await expectEnded(p.url);
    // The kept key makes links for the buyer.
    const fresh = await link(p.ck, p.post.id);
    expect((await open(fresh.url)).status).toBe(200);
  });

  it("a share of the site (the owner unchanged) ends no link", async () => {
    const p = await livePreview();
    await transfer(p.site, newId(), "share");
    expect((await open(p.url)).status).toBe(200);
  });

  it("the site is deleted: the link ends, and restoring the site does not revive it", async () => {
    const p = await livePreview();
    await push(p.site, { status: "deleted" });
    await expectEnded(p.url);
    await push(p.site, { status: "active" });
    await expectEnded(p.url);
    const fresh = await link(p.ck, p.post.id);
    expect((await open(fresh.url)).status).toBe(200);
  });

  it("the site is archived or deactivated: the link ends", async () => {
    for (const status of ["archived", "inactive"]) {
      const p = await livePreview();
      await push(p.site, { status });
      await expectEnded(p.url);
      await push(p.site, { status: "active" });
      await expectEnded(p.url);
    }
  });

  it("the key that made it is revoked: its links end, another key's link to the same post stays", async () => {
    const p = await livePreview();
    const other = await createKey(p.site, { scopes: ["posts:write"] });
    const others = await link(other.key, p.post.id);
    const res = await call("DELETE", `/api/v1/sites/${p.site.id}/api-keys/${p.secretKey.id}`, {
      headers: ownerHeaders(p.site),
    });
    expect(res.status).toBe(204);
    await expectEnded(p.url);
    expect((await open(others.url)).status).toBe(200);
  });

  it("the key's creator loses the grant: the links of the keys they made end, a colleague's stay", async () => {
    const p = await livePreview();
    const colleague = `user-${crypto.randomUUID()}`;
    const made = await call("POST", `/api/v1/sites/${p.site.id}/api-keys`, {
      headers: ownerHeaders(p.site, colleague),
      body: { name: "colleague's", kind: "secret", scopes: ["posts:write"] },
    });
    expect(made.status).toBe(201);
    const colleagues = await link(((await made.json()) as { key: string }).key, p.post.id);
    const ended = await content.endMemberGrants({
      user_id: `user-${p.site.id}`,
      scope: "site",
      org_id: null,
      site_id: p.site.id,
      except_site_ids: [],
      ended_at: new Date().toISOString(),
    });
    expect(ended.api_keys.map((k) => k.id)).toContain(p.secretKey.id);
    await expectEnded(p.url);
    expect((await open(colleagues.url)).status).toBe(200);
  });

  it("an ending on one site ends no link of another site", async () => {
    const p = await livePreview();
    const q = await livePreview();
    await push(p.site, { status: "deleted" });
    await transfer(p.site, newId());
    await expectEnded(p.url);
    expect((await open(q.url)).status).toBe(200);
  });
});
