/**
 * The `site-transferred` consumer through the real queue (sent as identity sends it): the site's posts,
 * media and API keys are restamped for the new organization, a redelivery changes nothing more, an older
 * transfer arriving after a newer one does not roll back, and a transfer content has not converged to is
 * reported (RPC `stalledConvergence`, /metrics).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { contentDbOf } from "../support/content-groups";
import { call, content, createKey, createPost, seedMedia, tenant } from "../support/content-helpers";

const queue = (env as unknown as { TEST_SITE_TRANSFERRED: Queue }).TEST_SITE_TRANSFERRED;
const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000).toISOString();

function transferred(siteId: string, from: string, to: string, at: string, mode = "transfer") {
  return {
    type: "site.transferred",
    transfer_id: newId(),
    site_id: siteId,
    from_org_id: from,
    to_org_id: to,
    mode,
    share_role: null,
    at,
  };
}

async function stamps(siteId: string): Promise<string[]> {
  const { results } = await (await contentDbOf(siteId))
    .prepare(
      `SELECT org_id FROM posts WHERE site_id = ?1 UNION ALL SELECT org_id FROM media WHERE site_id = ?1
     UNION ALL SELECT org_id FROM api_keys WHERE site_id = ?1`,
    )
    .bind(siteId)
    .all<{ org_id: string | null }>();
  return [...new Set(results.map((r) => r.org_id ?? "NULL"))];
}

async function until(check: () => Promise<boolean>, what: string) {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A sentinel site whose restamp, sent after `messages`, proves the queue has consumed them (in order). */
async function sendThenDrain(messages: unknown[]) {
  const sentinel = await tenant();
  const to = newId();
  for (const m of messages) await queue.send(m);
  await queue.send(transferred(sentinel.site.id, sentinel.site.org_id, to, new Date().toISOString()));
  await until(async () => (await stamps(sentinel.site.id)).join() === to, "the sentinel");
}

async function siteWithContent() {
  const t = await tenant({ updated_at: minutesAgo(30) });
  await createPost(t.ck, { title: "One", status: "published" });
  await createPost(t.ck, { title: "Two" });
  await seedMedia(t.site.id);
  return t;
}

describe("site-transferred consumer", () => {
  it("content is stamped for the site's organization when written", async () => {
    const t = await siteWithContent();
    expect(await stamps(t.site.id)).toEqual([t.site.org_id]);
  });

  it("restamps the site's posts, media and keys for the new organization; delivered twice, nothing more changes", async () => {
    const t = await siteWithContent();
    const other = await siteWithContent();
    const to = newId();
    const message = transferred(t.site.id, t.site.org_id, to, minutesAgo(1));
    await sendThenDrain([message, message]);
    expect(await stamps(t.site.id)).toEqual([to]);
    // Another site's content is untouched.
    expect(await stamps(other.site.id)).toEqual([other.site.org_id]);
    const row = await (await contentDbOf(t.site.id))
      .prepare("SELECT transfer_id, to_org_id FROM site_transfers WHERE site_id = ?")
      .bind(t.site.id)
      .first();
    expect(row).toEqual({ transfer_id: message.transfer_id, to_org_id: to });
    // The origin's key is carried over: refused like a revoked one (test/content/transfer-grants…).
    const refused = await call("POST", "/v1/posts", { key: t.ck, body: { title: "Three" } });
    expect(refused.status).toBe(401);
    // Content written after the transfer (the projection not yet pushed) by a key of the new owner is
    // stamped for it too.
    const fresh = await createKey({ ...t.site, org_id: to });
    await createPost(fresh.key, { title: "Three" });
    expect(await stamps(t.site.id)).toEqual([to]);
  });

  it("an older transfer arriving after a newer one does not roll back", async () => {
    const t = await siteWithContent();
    const b = newId();
    const c = newId();
    const older = transferred(t.site.id, t.site.org_id, b, minutesAgo(10));
    const newer = transferred(t.site.id, b, c, minutesAgo(5));
    await sendThenDrain([newer, older, older]);
    expect(await stamps(t.site.id)).toEqual([c]);
  });

  it("a share moves no stamp", async () => {
    const t = await siteWithContent();
    await sendThenDrain([transferred(t.site.id, t.site.org_id, newId(), minutesAgo(1), "share")]);
    expect(await stamps(t.site.id)).toEqual([t.site.org_id]);
  });

  it("a site whose owner changed without its content converging is reported after the grace period, and no longer once converged", async () => {
    const t = await siteWithContent();
    const to = newId();
    // Sites pushed the new owner 20 minutes ago; the site.transferred message has not arrived.
    await content.syncSite({ ...t.site, org_id: to, updated_at: minutesAgo(20) });
    const stalled = await content.stalledConvergence();
    expect(stalled.find((s) => s.site_id === t.site.id)).toEqual({
      site_id: t.site.id,
      expected_org_id: to,
      since: await sinceOf(t.site.id),
      stale_posts: 2,
      stale_media: 1,
      stale_keys: 2,
    });
    const metrics = await (await call("GET", "/metrics")).text();
    expect(
      Number(/content_convergence_stalled_sites\{grace_minutes="15"\} (\d+)/.exec(metrics)?.[1]),
    ).toBeGreaterThanOrEqual(1);

    await sendThenDrain([transferred(t.site.id, t.site.org_id, to, minutesAgo(19))]);
    expect((await content.stalledConvergence()).map((s) => s.site_id)).not.toContain(t.site.id);
  });

  it("a fresh owner change is not reported before the grace period", async () => {
    const t = await siteWithContent();
    await content.syncSite({ ...t.site, org_id: newId(), updated_at: minutesAgo(1) });
    expect((await content.stalledConvergence()).map((s) => s.site_id)).not.toContain(t.site.id);
  });
});

async function sinceOf(siteId: string): Promise<string> {
  const row = await (await contentDbOf(siteId))
    .prepare("SELECT org_since FROM sites WHERE id = ?")
    .bind(siteId)
    .first<{ org_since: string }>();
  return row!.org_since;
}
