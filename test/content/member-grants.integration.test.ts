/**
 * The credential rule (docs/decisions/grant-endings.md): content's side of an ended grant (`ContentRpc.endMemberGrants`, which identity calls through
 * sites when a person is removed, demoted or leaves). What the person created up to the end is revoked
 * (keys) or deleted (webhooks) in one batch; what others created, what the person created on a site they
 * still own (`except_site_ids`), on another organization's site, or after the end stays. For 30 s the
 * person's cached edge headers administer nothing on the site; then a new grant works as usual.
 */
import { afterEach, describe, expect, it } from "vitest";
import { setClockForTests } from "../../src/content/core/clock";
import { newId } from "../../src/lib/ids";
import type { MemberGrantEnding } from "../../src/lib/rpc";
import { allContentDbs } from "../support/content-groups";
import { call, content, makeSite, staffHeaders } from "../support/content-helpers";
import { inbox } from "../support/webhook-helpers";

afterEach(() => setClockForTests(null));

const admin = (userId: string, orgId: string) =>
  staffHeaders(userId, { org: [{ org_id: orgId, role: "org_admin" }] });

async function mint(siteId: string, headers: Record<string, string>, name: string) {
  const res = await call("POST", `/api/v1/sites/${siteId}/api-keys`, {
    headers,
    body: { name, kind: "secret", scopes: ["posts:write"] },
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; key: string };
}

async function hook(siteId: string, headers: Record<string, string>) {
  const res = await call("POST", `/api/v1/sites/${siteId}/webhooks`, {
    headers,
    body: { url: inbox().url, events: ["post.published", "lead.created"] },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

const writes = async (key: string) =>
  (await call("POST", "/v1/posts", { key, body: { title: "t", status: "draft" } })).status;

const orgEnding = (
  userId: string,
  orgId: string,
  extra: Partial<MemberGrantEnding> = {},
): MemberGrantEnding => ({
  user_id: userId,
  scope: "org",
  org_id: orgId,
  site_id: null,
  except_site_ids: [],
  ended_at: new Date().toISOString(),
  ...extra,
});

describe("endMemberGrants", () => {
  it("ends only the person's keys and webhooks made under the grant, once; the tenant wall and the person's own sites hold", async () => {
    const orgId = newId();
    const a = await makeSite({ org_id: orgId });
    const owned = await makeSite({ org_id: orgId });
    const elsewhere = await makeSite();
    const person = `user-${crypto.randomUUID()}`;
    const colleague = `user-${crypto.randomUUID()}`;
    const mine = await mint(a.id, admin(person, orgId), "person's");
    const myHook = await hook(a.id, admin(person, orgId));
    const kept = await mint(owned.id, admin(person, orgId), "on a site the person owns");
    const theirs = await mint(a.id, admin(colleague, orgId), "colleague's");
    const otherOrg = await mint(elsewhere.id, admin(person, elsewhere.org_id), "other organization");

    const ended = await content.endMemberGrants(orgEnding(person, orgId, { except_site_ids: [owned.id] }));
    expect(ended).toEqual({
      api_keys: [{ id: mine.id, site_id: a.id, name: "person's" }],
      webhooks: [{ id: myHook, site_id: a.id, url: expect.stringMatching(/^https:\/\/hooks\.test\//) }],
    });
    expect(await writes(mine.key)).toBe(401);
    for (const key of [kept, theirs, otherOrg]) expect(await writes(key.key)).toBe(201);
    // Idempotent: a redelivered ending ends nothing more.
    expect(await content.endMemberGrants(orgEnding(person, orgId))).toEqual({
      api_keys: [{ id: kept.id, site_id: owned.id, name: "on a site the person owns" }],
      webhooks: [],
    });
    expect(await content.endMemberGrants(orgEnding(person, orgId))).toEqual({ api_keys: [], webhooks: [] });
  });

  it("a key made after the end stays; a site-scope ending touches one site", async () => {
    const orgId = newId();
    const a = await makeSite({ org_id: orgId });
    const b = await makeSite({ org_id: orgId });
    const person = `user-${crypto.randomUUID()}`;
    const onA = await mint(a.id, admin(person, orgId), "a");
    const onB = await mint(b.id, admin(person, orgId), "b");
    const endedAt = new Date(Date.now() - 60_000).toISOString();
    const before = await content.endMemberGrants({
      ...orgEnding(person, orgId),
      scope: "site",
      site_id: a.id,
      ended_at: endedAt,
    });
    // Both keys were made after `ended_at`: granted afresh, they stay.
    expect(before.api_keys).toEqual([]);
    const now = await content.endMemberGrants({ ...orgEnding(person, orgId), scope: "site", site_id: a.id });
    expect(now.api_keys.map((k) => k.id)).toEqual([onA.id]);
    expect(await writes(onA.key)).toBe(401);
    expect(await writes(onB.key)).toBe(201);
  });

  it("for 30 s the person's cached edge headers mint nothing on the site; then they may again", async () => {
    const orgId = newId();
    const site = await makeSite({ org_id: orgId });
    const person = `user-${crypto.randomUUID()}`;
    const start = Date.now();
    setClockForTests(() => start);
    await content.endMemberGrants(orgEnding(person, orgId));
    const body = { name: "backdoor", kind: "secret", scopes: ["posts:write"] };
    const headers = admin(person, orgId);
    setClockForTests(() => start + 29_999);
    expect((await call("POST", `/api/v1/sites/${site.id}/api-keys`, { headers, body })).status).toBe(404);
    const hookRes = await call("POST", `/api/v1/sites/${site.id}/webhooks`, {
      headers,
      body: { url: inbox().url, events: ["post.published"] },
    });
    expect(hookRes.status).toBe(404);
    setClockForTests(() => start + 30_001);
    expect((await call("POST", `/api/v1/sites/${site.id}/api-keys`, { headers, body })).status).toBe(201);
  });

  it("a malformed ending ends and records nothing", async () => {
    const bad = { user_id: "", scope: "org", org_id: null } as unknown as MemberGrantEnding;
    expect(await content.endMemberGrants(bad)).toEqual({ api_keys: [], webhooks: [] });
    // Endings are kept in every group (a person's grants span sites in any of them): none anywhere.
    let recorded = 0;
    for (const db of allContentDbs()) {
      const row = await db
        .prepare("SELECT count(*) AS n FROM ended_member_grants WHERE user_id = ''")
        .first<{ n: number }>();
      recorded += row!.n;
    }
    expect(recorded).toBe(0);
  });
});
