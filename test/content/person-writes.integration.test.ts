/**
 * Issue 34, endings: a person's dashboard write re-reads their grant from identity, uncached
 * (`IdentityRpc.siteGrant`: one RPC, which also brings the byline), while reads keep the edge headers'
 * bound (the gateway caches them up to 30 s). Here the edge headers keep saying the old role, as a cached
 * edge would, while identity's rows change. Then: a person's preview links (`preview_links.user_id`) and
 * their end with the person's grant (`endMemberGrants`), and a person's lead reads audited as the person.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/content/core/bindings";
import { newId } from "../../src/lib/ids";
import type { IdentityRpc, MemberGrantEnding, SiteProjection } from "../../src/lib/rpc";
import { contentDbOf } from "../support/content-groups";
import { call, content, contentRequest, createKey, makeSite } from "../support/content-helpers";
import { type SeededPerson, seedPerson, setSiteRole } from "../support/identity-people";
import { auditRows, createForm, formsSite, seedLeads } from "../support/leads-helpers";
import { fetchThrough } from "../support/storage-hops";

const identityDb = (env as unknown as { TEST_IDENTITY_DB: D1Database }).TEST_IDENTITY_DB;

const base = (site: SiteProjection) => `/api/v1/sites/${site.id}`;

async function onSite(site: SiteProjection, role: string, displayName?: string) {
  return seedPerson({
    ...(displayName ? { displayName } : {}),
    site: [{ site_id: site.id, org_id: site.org_id, role }],
  });
}

async function as(person: SeededPerson, method: string, path: string, body?: unknown) {
  const res = await call(method, path, { headers: person.headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as Record<string, unknown> };
}

/** The content Worker over the real identity binding, each RPC to identity counted by name. */
function countingIdentity() {
  const real = (env as unknown as Env).IDENTITY as unknown as IdentityRpc;
  const calls: string[] = [];
  const identity: Partial<IdentityRpc> = {
    siteGrant: (q) => {
      calls.push("siteGrant");
      return real.siteGrant(q);
    },
    edgeContext: (q) => {
      calls.push("edgeContext");
      return real.edgeContext(q);
    },
  };
  const workerEnv = { ...(env as unknown as Env), IDENTITY: identity as unknown as Fetcher };
  return { workerEnv, calls };
}

describe("a person's write re-reads the grant from identity", () => {
  it("costs exactly one identity RPC (the grant, with the byline); a read none", async () => {
    const site = await makeSite();
    const ada = await onSite(site, "site_author", "Ada Writer");
    const { workerEnv, calls } = countingIdentity();
    const send = (method: string, path: string, body?: unknown) =>
      fetchThrough(
        workerEnv,
        contentRequest(method, path, { headers: ada.headers, ...(body !== undefined ? { body } : {}) }),
      );
    const made = await send("POST", `${base(site)}/posts`, { title: "Counted", status: "draft" });
    expect(made.status, await made.clone().text()).toBe(201);
    expect(calls).toEqual(["siteGrant"]);
    const id = ((await made.json()) as { id: string }).id;
    calls.length = 0;
    const patched = await send("PATCH", `${base(site)}/posts/${id}`, { title: "Counted again" });
    expect(patched.status, await patched.clone().text()).toBe(200);
    expect(calls).toEqual(["siteGrant"]);
    calls.length = 0;
    const source = await send("GET", `${base(site)}/posts/${id}`);
    expect(source.status).toBe(200);
    expect(calls).toEqual([]);
    // The byline came with the grant.
    expect(await source.json()).toMatchObject({ created_by: { kind: "person", name: "Ada Writer" } });
  });

  it("a demoted person's next write is 403 naming what the new role lacks, at once; reads keep the edge's bound", async () => {
    const site = await makeSite();
    const eddie = await onSite(site, "site_editor");
    const guest = () => ({ name: `Guest ${newId().slice(-6)}` });
    expect((await as(eddie, "POST", `${base(site)}/authors`, guest())).status).toBe(201);
    await setSiteRole(eddie, site.id, "site_contributor");
    // The edge headers still say site_editor (a cached edge context): identity's word decides the write.
    const refused = await as(eddie, "POST", `${base(site)}/authors`, guest());
    expect(refused.status, JSON.stringify(refused.body)).toBe(403);
    expect(refused.body).toMatchObject({ code: "FORBIDDEN", details: { missing: "authors:manage" } });
    const publish = await as(eddie, "POST", `${base(site)}/posts`, { title: "Live", status: "published" });
    expect(publish.body).toMatchObject({ code: "FORBIDDEN", details: { missing: "posts:publish" } });
    // A contributor still writes its drafts.
    expect((await as(eddie, "POST", `${base(site)}/posts`, { title: "Draft" })).status).toBe(201);
    expect((await as(eddie, "GET", `${base(site)}/authors`)).status).toBe(200);
  });

  it("a removed person's next write is the missing site's 404, at once; a read within the edge's bound still answers", async () => {
    const site = await makeSite();
    const gone = await onSite(site, "site_author");
    expect((await as(gone, "POST", `${base(site)}/posts`, { title: "Before" })).status).toBe(201);
    await setSiteRole(gone, site.id, null);
    const write = await as(gone, "POST", `${base(site)}/posts`, { title: "After" });
    expect(write.status, JSON.stringify(write.body)).toBe(404);
    const missing = await as(gone, "POST", `/api/v1/sites/${newId()}/posts`, { title: "After" });
    expect(write.body).toEqual(missing.body);
    expect((await as(gone, "GET", `${base(site)}/posts`)).status).toBe(200);
  });

  it("a write of a session that ended (signed out everywhere) is 401; of an erased account too", async () => {
    const site = await makeSite();
    const out = await onSite(site, "site_author");
    await identityDb
      .prepare("UPDATE sessions SET revoked_at = ?, revoked_reason = 'logout_all' WHERE id = ?")
      .bind(new Date().toISOString(), out.sessionId)
      .run();
    const write = await as(out, "POST", `${base(site)}/posts`, { title: "After" });
    expect(write.status, JSON.stringify(write.body)).toBe(401);
    const erased = await onSite(site, "site_author");
    await identityDb.prepare("DELETE FROM users WHERE id = ?").bind(erased.userId).run();
    expect((await as(erased, "POST", `${base(site)}/posts`, { title: "After" })).status).toBe(401);
  });
});

describe("a person's preview links", () => {
  function siteEnding(person: SeededPerson, site: SiteProjection, at: string): MemberGrantEnding {
    const fields = { user_id: person.userId, org_id: site.org_id, site_id: site.id, except_site_ids: [] };
    return { ...fields, scope: "site", ended_at: at };
  }

  async function linkOf(person: SeededPerson, site: SiteProjection, postId: string): Promise<string> {
    const made = await as(person, "POST", `${base(site)}/posts/${postId}/preview`, { expires_in: 600 });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    return new URL(made.body.url as string).pathname;
  }

  const read = async (path: string) => (await call("GET", path)).status;

  it("name the person and end with the person's grant on the site; the key's links of the post and later grants' links stay", async () => {
    const site = await makeSite();
    const other = await makeSite({ org_id: site.org_id });
    const ada = await seedPerson({
      site: [
        { site_id: site.id, org_id: site.org_id, role: "site_author" },
        { site_id: other.id, org_id: other.org_id, role: "site_author" },
      ],
    });
    const post = await as(ada, "POST", `${base(site)}/posts`, { title: "Mine", status: "draft" });
    const otherPost = await as(ada, "POST", `${base(other)}/posts`, { title: "Elsewhere", status: "draft" });
    const mine = await linkOf(ada, site, post.body.id as string);
    const elsewhere = await linkOf(ada, other, otherPost.body.id as string);
    const key = await createKey(site, { scopes: ["posts:write"] });
    const byKey = await call("POST", `/v1/posts/${post.body.id}/preview`, { key: key.key, body: {} });
    const keyLink = new URL(((await byKey.json()) as { url: string }).url).pathname;
    expect([await read(mine), await read(elsewhere), await read(keyLink)]).toEqual([200, 200, 200]);
    const row = await (await contentDbOf(site.id))
      .prepare("SELECT key_id, user_id FROM preview_links WHERE post_id = ? AND user_id IS NOT NULL")
      .bind(post.body.id)
      .first();
    expect(row).toEqual({ key_id: null, user_id: ada.userId });

    await content.endMemberGrants(siteEnding(ada, site, new Date().toISOString()));
    expect([await read(mine), await read(elsewhere), await read(keyLink)]).toEqual([404, 200, 200]);
    // A link made after the ending stands on a grant identity holds now: it answers.
    const later = await linkOf(ada, site, post.body.id as string);
    expect(await read(later)).toBe(200);
  });

  it("an organization-scope ending ends them on the organization's sites but those it excepts", async () => {
    const site = await makeSite();
    const kept = await makeSite({ org_id: site.org_id });
    const admin = await seedPerson({ org: [{ org_id: site.org_id, role: "org_admin" }] });
    const a = await as(admin, "POST", `${base(site)}/posts`, { title: "A", status: "draft" });
    const b = await as(admin, "POST", `${base(kept)}/posts`, { title: "B", status: "draft" });
    const ended = await linkOf(admin, site, a.body.id as string);
    const stays = await linkOf(admin, kept, b.body.id as string);
    await content.endMemberGrants({
      user_id: admin.userId,
      scope: "org",
      org_id: site.org_id,
      site_id: null,
      except_site_ids: [kept.id],
      ended_at: new Date().toISOString(),
    });
    expect([await read(ended), await read(stays)]).toEqual([404, 200]);
  });
});

describe("a person's lead reads", () => {
  it("are audited as the person: actor_type person, actor_id their user id", async () => {
    const site = await formsSite();
    const form = await createForm(site);
    await seedLeads(site.id, form.id, 2);
    const owner = await onSite(site, "site_owner");
    const listed = await as(owner, "GET", `${base(site)}/leads?form_id=${form.id}`);
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    const rows = await auditRows(site.id);
    expect(rows.at(-1)).toMatchObject({
      actor_type: "person",
      actor_id: owner.userId,
      actor_user_id: owner.userId,
      action: "leads.list",
    });
  });
});

describe("a person's writes race like a key's: one gate per (person, site)", () => {
  it("50 concurrent creates with one Idempotency-Key make one post; the others replay it or wait", async () => {
    const site = await makeSite();
    const ada = await onSite(site, "site_author", "Ada Racer");
    const body = { title: "Raced once", status: "draft" };
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        call("POST", `${base(site)}/posts`, {
          headers: { ...ada.headers, "idempotency-key": "race-one" },
          body,
        }).then(async (r) => ({
          status: r.status,
          body: (await r.json()) as { id?: string; code?: string },
        })),
      ),
    );
    const made = answers.filter((a) => a.status === 201);
    expect(made.length).toBeGreaterThanOrEqual(1);
    expect(new Set(made.map((a) => a.body.id)).size).toBe(1);
    for (const a of answers.filter((x) => x.status !== 201)) {
      expect(a.status).toBe(409);
      expect(a.body.code).toBe("IDEMPOTENCY_IN_PROGRESS");
    }
    const rows = await (await contentDbOf(site.id))
      .prepare("SELECT COUNT(*) AS n FROM posts WHERE site_id = ?1 AND title = ?2")
      .bind(site.id, body.title)
      .first<{ n: number }>();
    expect(rows?.n).toBe(1);
  });

  it("70 concurrent writes: the write quota's 60 pass (plus what refills meanwhile), the rest are 429, nothing else is written", async () => {
    const site = await makeSite();
    const ada = await onSite(site, "site_author", "Ada Flood");
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 70 }, (_, i) =>
        call("POST", `${base(site)}/posts`, {
          headers: ada.headers,
          body: { title: `Flood ${i}`, status: "draft" },
        }).then((r) => r.status),
      ),
    );
    // The bucket holds 60 and refills one a second: a burst passes 60, plus what refilled while it ran.
    const refilled = Math.ceil((Date.now() - started) / 1000);
    const passed = answers.filter((s) => s === 201).length;
    expect(passed).toBeGreaterThanOrEqual(60);
    expect(passed).toBeLessThanOrEqual(60 + refilled);
    expect(answers.filter((s) => s === 429).length).toBe(70 - passed);
    const rows = await (await contentDbOf(site.id))
      .prepare("SELECT COUNT(*) AS n FROM posts WHERE site_id = ?1")
      .bind(site.id)
      .first<{ n: number }>();
    expect(rows?.n).toBe(passed);
    // Another person on the same site has a gate of their own.
    const bea = await onSite(site, "site_author", "Bea Calm");
    const own = await call("POST", `${base(site)}/posts`, { headers: bea.headers, body: { title: "Mine" } });
    expect(own.status).toBe(201);
  }, 60_000);
});
