/**
 * Operator console, purge (spec: `DELETE /v1/platform/sites/{site_id}`): the record is removed, domain
 * and slug released, the host-keyed and full-page caches invalidated, the purge audited with the actor in
 * the same batch as the delete; content's data stays (its projection only learns the site is gone).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { contentDbOf } from "../support/content-groups";
import { fetchSigned } from "../support/edge-signing";
import {
  api,
  legacyUuidSite,
  makeSite,
  orgMember,
  proveHosts,
  sitesEnv,
  storedRow,
  uniqueDomain,
} from "../support/sites-helpers";

const contentService = (env as unknown as { CONTENT: Fetcher }).CONTENT;

const actor = newId();
const admin = { "x-platform-operator": "operator_admin", "x-user-id": actor };

function purge(id: string, headers: Record<string, string> = admin) {
  return api("DELETE", `/api/v1/platform/sites/${id}`, { headers });
}

function byHost(host: string) {
  return api<{ id: string }>("GET", `/api/v1/sites/by-host?host=${encodeURIComponent(host)}`);
}

async function auditOf(siteId: string) {
  const { results } = await sitesEnv.DB.prepare(
    "SELECT * FROM site_audit WHERE site_id = ? AND action = 'purge'",
  )
    .bind(siteId)
    .all<Record<string, unknown>>();
  return results;
}

async function count(db: D1Database, sql: string, ...params: string[]): Promise<number> {
  return (await db
    .prepare(sql)
    .bind(...params)
    .first<{ n: number }>())!.n;
}

/** A post written through content's API with a key of the site (as a customer's integration would). */
async function contentPost(site: { id: string; org_id: string }, owner: Record<string, string>) {
  const keyRes = await fetchSigned(contentService, `http://content.test/api/v1/sites/${site.id}/api-keys`, {
    method: "POST",
    headers: { ...owner, "content-type": "application/json" },
    body: JSON.stringify({ name: "k", kind: "secret", scopes: ["posts:write", "posts:read"] }),
  });
  expect(keyRes.status, await keyRes.clone().text()).toBe(201);
  const { key } = (await keyRes.json()) as { key: string };
  const postRes = await contentService.fetch("http://content.test/v1/posts", {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ title: "Kept after purge", summary: "s" }),
  });
  expect(postRes.status, await postRes.clone().text()).toBe(201);
  return key;
}

describe("DELETE /v1/platform/sites/{site_id}", () => {
  it("removes the site: 204, gone for operators and customers, slug and domains released for another site", async () => {
    const domain = uniqueDomain();
    const alias = uniqueDomain("alias");
    const { site, owner } = await makeSite({ primary_domain: domain, aliases: [alias] });
    await api("DELETE", `/api/v1/sites/${site.id}`, { headers: owner });
    const res = await purge(site.id);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect(await storedRow(site.id)).toBeNull();
    expect(await count(sitesEnv.DB, "SELECT count(*) AS n FROM site_hosts WHERE site_id = ?", site.id)).toBe(
      0,
    );
    expect((await api("GET", `/api/v1/platform/sites/${site.id}`, { headers: admin })).status).toBe(404);
    expect((await api("GET", `/api/v1/sites/${site.id}`, { headers: owner })).status).toBe(404);
    const again = await purge(site.id);
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ code: "NOT_FOUND" });

    const taker = await makeSite({ slug: site.slug, primary_domain: alias, aliases: [domain] });
    expect(taker.site).toMatchObject({ slug: site.slug, primary_domain: alias, aliases: [domain] });
  });

  it("writes the audit row with the actor, the capability and what the site was", async () => {
    const domain = uniqueDomain();
    const { site } = await makeSite({ primary_domain: domain });
    const before = Date.now();
    expect((await purge(site.id)).status).toBe(204);
    const [row, ...more] = await auditOf(site.id);
    expect(more).toEqual([]);
    expect(row).toMatchObject({
      action: "purge",
      site_id: site.id,
      site_slug: site.slug,
      org_id: site.org_id,
      from_status: "active",
      to_status: null,
      actor_user_id: actor,
      actor_capability: "operator_admin",
    });
    expect(JSON.parse(row!.hosts_json as string)).toEqual([
      `${site.slug}.${sitesEnv.PLATFORM_DOMAIN}`,
      domain,
    ]);
    expect(Date.parse(row!.created_at as string)).toBeGreaterThanOrEqual(before - 1000);
  });

  it("invalidates the host-keyed cache and the full-page cache of every host", async () => {
    const domain = uniqueDomain();
    const { site, owner } = await makeSite({ primary_domain: domain });
    await proveHosts(owner, domain);
    const platformHost = `${site.slug}.${sitesEnv.PLATFORM_DOMAIN}`;
    expect((await byHost(domain)).body.id).toBe(site.id);
    expect((await byHost(platformHost)).body.id).toBe(site.id);
    expect((await purge(site.id)).status).toBe(204);
    expect((await byHost(domain)).status).toBe(404);
    expect((await byHost(platformHost)).status).toBe(404);
    const purges = await sitesEnv.DB.prepare(
      "SELECT payload_json FROM outbound_effects WHERE site_id = ? AND kind = 'page_purge' ORDER BY created_at DESC, id DESC LIMIT 1",
    )
      .bind(site.id)
      .first<{ payload_json: string }>();
    expect(JSON.parse(purges!.payload_json).hosts).toEqual(expect.arrayContaining([domain, platformHost]));
  });

  it("keeps content's data: the posts stay, the projection stays and reads deleted, so the site's keys stop", async () => {
    const { site, owner } = await makeSite();
    const key = await contentPost(site, owner);
    const posts = await count(
      await contentDbOf(site.id),
      "SELECT count(*) AS n FROM posts WHERE site_id = ?",
      site.id,
    );
    expect(posts).toBe(1);
    const listPosts = () =>
      contentService.fetch("http://content.test/v1/posts", { headers: { authorization: `Bearer ${key}` } });
    expect((await listPosts()).status).toBe(200);
    expect((await purge(site.id)).status).toBe(204);
    expect(
      await count(await contentDbOf(site.id), "SELECT count(*) AS n FROM posts WHERE site_id = ?", site.id),
    ).toBe(posts);
    const projected = await (await contentDbOf(site.id))
      .prepare("SELECT status, slug FROM sites WHERE id = ?")
      .bind(site.id)
      .first();
    expect(projected).toEqual({ status: "deleted", slug: site.slug });
    expect((await listPosts()).status).toBe(401);
  });

  it("a site in any state may be purged (soft delete first is the usual flow, not a requirement)", async () => {
    for (const setup of ["active", "inactive", "archived", "deleted"]) {
      const { site, owner } = await makeSite();
      if (setup === "deleted") await api("DELETE", `/api/v1/sites/${site.id}`, { headers: owner });
      else if (setup !== "active") {
        const action = setup === "inactive" ? "deactivate" : "archive";
        await api("POST", `/api/v1/platform/sites/${site.id}/${action}`, { headers: admin });
      }
      expect((await purge(site.id)).status, setup).toBe(204);
      expect((await auditOf(site.id))[0]).toMatchObject({ from_status: setup });
    }
  });

  it("a legacy UUID site, addressed in any case", async () => {
    const id = await legacyUuidSite();
    expect((await purge(id.toUpperCase())).status).toBe(204);
    expect(await storedRow(id)).toBeNull();
  });

  it("400 for an id that is neither ULID nor UUID; 404 for a missing site", async () => {
    for (const bad of ["nope", "1", "8ZZZZZZZZZZZZZZZZZZZZZZZZZ"]) {
      const res = await purge(bad);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: "BAD_REQUEST" });
    }
    for (const missing of [newId(), crypto.randomUUID()]) {
      const res = await purge(missing);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: "NOT_FOUND" });
    }
  });

  it("needs operator_admin: operator_read, a forged value, a customer or no header are 403 and the site stays", async () => {
    const { site, owner } = await makeSite();
    const refused: Record<string, string>[] = [
      { "x-platform-operator": "operator_read", "x-user-id": newId() },
      { "x-platform-operator": "operator_root" },
      {},
      owner,
      { ...orgMember(site.org_id, "org_owner"), "x-platform-operator": "" },
    ];
    for (const headers of refused) {
      for (const id of [site.id, "nope"]) {
        const res = await purge(id, headers);
        expect(res.status, JSON.stringify(headers)).toBe(403);
        expect(res.body).toMatchObject({ code: "FORBIDDEN" });
      }
    }
    expect(await storedRow(site.id)).not.toBeNull();
    expect(await auditOf(site.id)).toEqual([]);
  });

  it("a failing delete is a redacted 500 and nothing is half-written: site, hosts and no audit row", async () => {
    const domain = uniqueDomain();
    const { site } = await makeSite({ primary_domain: domain });
    const trigger = `t_${newId()}`;
    await sitesEnv.DB.prepare(
      `CREATE TRIGGER ${trigger} BEFORE DELETE ON sites WHEN OLD.id = '${site.id}' BEGIN SELECT RAISE(ABORT, 'purge-secret'); END`,
    ).run();
    try {
      const res = await purge(site.id);
      expect(res.status).toBe(500);
      expect(res.body).toMatchObject({ code: "INTERNAL_ERROR" });
      expect(res.text).not.toContain("purge-secret");
    } finally {
      await sitesEnv.DB.prepare(`DROP TRIGGER IF EXISTS ${trigger}`).run();
    }
    expect(await storedRow(site.id)).not.toBeNull();
    expect(await count(sitesEnv.DB, "SELECT count(*) AS n FROM site_hosts WHERE site_id = ?", site.id)).toBe(
      1,
    );
    expect(await auditOf(site.id)).toEqual([]);
  });

  it("racing a lifecycle transition: the site is purged once and the audit records the state it had", async () => {
    const { site } = await makeSite();
    const [purged, archived] = await Promise.all([
      purge(site.id),
      api("POST", `/api/v1/platform/sites/${site.id}/archive`, { headers: admin }),
    ]);
    expect(purged.status).toBe(204);
    expect([200, 404]).toContain(archived.status);
    expect(await storedRow(site.id)).toBeNull();
    const audit = await auditOf(site.id);
    expect(audit).toHaveLength(1);
    expect(audit[0]!.from_status).toBe(archived.status === 200 ? "archived" : "active");
  });
});
