/**
 * Issue 19: a transfer ends the origin's integrations in content. Before the site-transferred message is
 * consumed, a key stamped for an organization that no longer owns the site is refused on writes, lead reads
 * and exports at once (the projection names the owner), and on cached reads within the key cache's 30 s;
 * the origin's webhook hears nothing. The consumer carries the keys and webhooks over (suspended), the new
 * owner's administrators see them and keep or revoke each one. Site-scope grants are not honoured for key
 * administration for 30 s after content learns of a change of owner (the edge may still send them).
 */
import { afterEach, describe, expect, it } from "vitest";
import { setClockForTests } from "../../src/content/core/clock";
import { KEY_CONTEXT_TTL_MS } from "../../src/content/keys/key-cache";
import { SITE_GRANT_QUARANTINE_MS } from "../../src/content/keys/site-staff";
import { newId } from "../../src/lib/ids";
import type { SiteProjection } from "../../src/lib/rpc";
import { contentDbOf } from "../support/content-groups";
import {
  call,
  content,
  createKey,
  createPost,
  ownerHeaders,
  siteTransferredMessage,
  staffHeaders,
  tenant,
} from "../support/content-helpers";
import {
  createWebhook,
  eventually,
  inbox,
  received,
  trustSecrets,
  webhooksPath,
} from "../support/webhook-helpers";

afterEach(() => setClockForTests(null));

const transferQueue = (await import("cloudflare:workers")).env as unknown as { TEST_SITE_TRANSFERRED: Queue };

/** The site's keys as an administrator of `orgId` lists them (status and items). */
async function keysAs(site: SiteProjection, orgId: string) {
  const res = await call("GET", `/api/v1/sites/${site.id}/api-keys`, {
    headers: ownerHeaders({ ...site, org_id: orgId }),
  });
  const body =
    res.status === 200 ? ((await res.json()) as { items: { id: string; carried_over: unknown }[] }) : null;
  return { status: res.status, items: body?.items ?? [] };
}

async function integrationsKey(site: SiteProjection) {
  return createKey(site, { scopes: ["posts:write", "posts:read", "leads:read", "export"] });
}

async function revokedKeyBody(site: SiteProjection) {
  const k = await createKey(site);
  await call("DELETE", `/api/v1/sites/${site.id}/api-keys/${k.id}`, { headers: ownerHeaders(site) });
  const res = await call("POST", "/v1/posts", { key: k.key, body: { title: "x" } });
  return res.json();
}

describe("a transfer ends the origin's integrations in content", () => {
  it("before the message is consumed, a key of the old owner writes, reads leads and exports nothing once the projection names the new owner", async () => {
    const t = await tenant({ forms_enabled: true });
    const key = await integrationsKey(t.site);
    expect((await call("GET", "/v1/leads", { key: key.key })).status).toBe(200);
    expect((await call("GET", "/v1/export?resource=posts", { key: key.key })).status).toBe(200);
    const to = newId();
    await content.syncSite({ ...t.site, org_id: to, updated_at: new Date(Date.now() + 1000).toISOString() });
    const write = await call("POST", "/v1/posts", { key: key.key, body: { title: "After" } });
    expect(write.status).toBe(401);
    expect(await write.json()).toEqual(await revokedKeyBody({ ...t.site, org_id: to }));
    expect((await call("GET", "/v1/leads", { key: key.key })).status).toBe(401);
    expect((await call("GET", "/v1/export?resource=posts", { key: key.key })).status).toBe(401);
    // A key the new owner makes works at once.
    const theirs = await createKey({ ...t.site, org_id: to });
    expect((await call("POST", "/v1/posts", { key: theirs.key, body: { title: "Ours" } })).status).toBe(201);
  });

  it("a cached read may answer until the key's context is 30 s old, then is refused; writes are refused at once", async () => {
    const t = await tenant();
    const start = Date.now();
    setClockForTests(() => start);
    expect((await call("GET", "/v1/posts", { key: t.ck })).status).toBe(200);
    // As another isolate learns of the new owner: in D1, not in this isolate's key cache.
    await (await contentDbOf(t.site.id))
      .prepare("UPDATE sites SET org_id = ? WHERE id = ?")
      .bind(newId(), t.site.id)
      .run();
    setClockForTests(() => start + KEY_CONTEXT_TTL_MS - 1);
    expect((await call("GET", "/v1/posts", { key: t.ck })).status).toBe(200);
    expect((await call("POST", "/v1/posts", { key: t.ck, body: { title: "No" } })).status).toBe(401);
    setClockForTests(() => start + KEY_CONTEXT_TTL_MS);
    expect((await call("GET", "/v1/posts", { key: t.ck })).status).toBe(401);
  });

  it("the consumer carries keys and webhooks over; the new owner sees, keeps and revokes them, the origin cannot", async () => {
    const t = await tenant();
    const { url } = inbox();
    const hook = await createWebhook(t.site, { url, events: ["post.published"] });
    expect(await content.siteIntegrations([t.site.id, newId()])).toEqual([
      { site_id: t.site.id, api_keys: 2, webhooks: 1 },
      { site_id: expect.any(String), api_keys: 0, webhooks: 0 },
    ]);
    const to = newId();
    await transferQueue.TEST_SITE_TRANSFERRED.send(siteTransferredMessage(t.site, to));
    const listed = await eventually(
      () => keysAs(t.site, to),
      (r) => r.items.length === 2 && r.items.every((k) => k.carried_over !== null),
    );
    expect(listed.items.map((k) => k.carried_over)).toEqual([
      { from_org_id: t.site.org_id, at: expect.any(String) },
      { from_org_id: t.site.org_id, at: expect.any(String) },
    ]);
    expect(await content.siteIntegrations([t.site.id])).toEqual([
      { site_id: t.site.id, api_keys: 0, webhooks: 0 },
    ]);
    // The origin's administrators no longer reach the site's keys (the missing site's 404).
    expect((await keysAs(t.site, t.site.org_id)).status).toBe(404);
    expect((await call("POST", "/v1/posts", { key: t.ck, body: { title: "No" } })).status).toBe(401);

    const newOwner = ownerHeaders({ ...t.site, org_id: to });
    const keep = `/api/v1/sites/${t.site.id}/api-keys/${t.secretKey.id}/keep`;
    expect((await call("POST", keep, { headers: ownerHeaders(t.site) })).status).toBe(404);
    const kept = await call("POST", keep, { headers: newOwner });
    expect(kept.status).toBe(200);
    expect(await kept.json()).toMatchObject({ id: t.secretKey.id, carried_over: null });
    expect((await call("POST", keep, { headers: newOwner })).status).toBe(404);
    expect(
      (await call("POST", `/api/v1/sites/${t.site.id}/api-keys/nope/keep`, { headers: newOwner })).status,
    ).toBe(404);
    expect((await call("POST", "/v1/posts", { key: t.ck, body: { title: "Kept" } })).status).toBe(201);
    const revoked = await call("DELETE", `/api/v1/sites/${t.site.id}/api-keys/${t.publicKey.id}`, {
      headers: newOwner,
    });
    expect(revoked.status).toBe(204);

    // The id in any case (ids are parsed case-insensitively): the answer is the kept webhook all the same.
    const keepHook = await call("POST", `${webhooksPath(t.site.id)}/${hook.id.toLowerCase()}/keep`, {
      headers: newOwner,
    });
    expect(keepHook.status).toBe(200);
    expect(await keepHook.json()).toMatchObject({ id: hook.id, carried_over: null });
  });

  it("keeping races: of 20 concurrent keeps exactly one answers 200; another site's key, an active key and an unknown id answer the same 404", async () => {
    const t = await tenant();
    const other = await tenant();
    const to = newId();
    await transferQueue.TEST_SITE_TRANSFERRED.send(siteTransferredMessage(t.site, to));
    await eventually(
      () => keysAs(t.site, to),
      (r) => r.items.length === 2 && r.items.every((k) => k.carried_over !== null),
    );
    const newOwner = ownerHeaders({ ...t.site, org_id: to });
    const keep = (siteId: string, keyId: string, headers = newOwner) =>
      call("POST", `/api/v1/sites/${siteId}/api-keys/${keyId}/keep`, { headers });
    const unknown = await keep(t.site.id, newId());
    const unknownBody = await unknown.json();
    expect(unknown.status).toBe(404);
    // Another site's carried-over key through this site's path: the wall answers like a missing id.
    const wall = await keep(t.site.id, other.secretKey.id);
    expect(wall.status).toBe(404);
    expect(await wall.json()).toEqual(unknownBody);
    const results = await Promise.all(Array.from({ length: 20 }, () => keep(t.site.id, t.secretKey.id)));
    expect(results.map((r) => r.status).sort()).toEqual([200, ...Array(19).fill(404)]);
    // Already active now: the same 404 as an unknown id.
    const active = await keep(t.site.id, t.secretKey.id);
    expect(await active.json()).toEqual(unknownBody);
  });

  it("before the message is consumed, the old owner's webhook hears none of the new owner's posts", async () => {
    const t = await tenant();
    const old = inbox();
    const oldHook = await createWebhook(t.site, { url: old.url, events: ["post.published"] });
    await trustSecrets(old.box, [oldHook.secret]);
    const to = newId();
    const moved = { ...t.site, org_id: to };
    await content.syncSite({ ...moved, updated_at: new Date().toISOString() });
    const fresh = inbox();
    const freshHook = await createWebhook(moved, { url: fresh.url, events: ["post.published"] });
    await trustSecrets(fresh.box, [freshHook.secret]);
    const theirs = await createKey(moved);
    await createPost(theirs.key, { title: "Theirs", status: "published" });
    await eventually(
      () => received(fresh.box),
      (ds) => ds.length === 1,
    );
    expect(await received(old.box)).toEqual([]);
  });

  it("a share carries nothing over", async () => {
    const t = await tenant();
    await transferQueue.TEST_SITE_TRANSFERRED.send(siteTransferredMessage(t.site, newId(), "share"));
    // A sentinel transfer behind it proves the share was consumed.
    const sentinel = await tenant();
    const to = newId();
    await transferQueue.TEST_SITE_TRANSFERRED.send(siteTransferredMessage(sentinel.site, to));
    await eventually(
      () => keysAs(sentinel.site, to),
      (r) => r.items.length === 2 && r.items.every((k) => k.carried_over !== null),
    );
    expect((await keysAs(t.site, t.site.org_id)).items.map((k) => k.carried_over)).toEqual([null, null]);
    expect((await call("POST", "/v1/posts", { key: t.ck, body: { title: "Still ours" } })).status).toBe(201);
  });

  it("for 30 s after content learns of a new owner, a site membership does not administer keys; org admins do", async () => {
    const t = await tenant();
    const siteOwner = staffHeaders(newId(), { site: [{ site_id: t.site.id, role: "site_owner" }] });
    const list = (headers: Record<string, string>) =>
      call("GET", `/api/v1/sites/${t.site.id}/api-keys`, { headers });
    // A site that never changed owner: its site owners administer keys at once.
    expect((await list(siteOwner)).status).toBe(200);
    const to = newId();
    const learned = Date.now();
    await content.syncSite({ ...t.site, org_id: to, updated_at: new Date().toISOString() });
    const changedAt = Date.parse(
      (await (
        await contentDbOf(t.site.id)
      )
        .prepare("SELECT org_changed_at FROM sites WHERE id = ?")
        .bind(t.site.id)
        .first<{
          org_changed_at: string;
        }>())!.org_changed_at,
    );
    expect(changedAt).toBeGreaterThanOrEqual(learned - 1);
    setClockForTests(() => changedAt + SITE_GRANT_QUARANTINE_MS - 1);
    const refused = await list(siteOwner);
    expect(refused.status).toBe(404);
    const missing = await call("GET", `/api/v1/sites/${newId()}/api-keys`, { headers: siteOwner });
    expect(await refused.json()).toEqual(await missing.json());
    expect((await list(ownerHeaders({ ...t.site, org_id: to }))).status).toBe(200);
    setClockForTests(() => changedAt + SITE_GRANT_QUARANTINE_MS);
    expect((await list(siteOwner)).status).toBe(200);
  });
});
