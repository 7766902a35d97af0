/**
 * Beyond the spec: domain ownership proof (docs/decisions/sites.md). A host held unverified moves to a
 * site that proves it with the TXT record `_platform-verify.<host>`; a verified holder is never displaced.
 */
import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { runCron } from "../../src/sites/core/cron";
import { proofValue } from "../../src/sites/health/domain-proof";
import { HEALTH_CRON } from "../../src/sites/health/health";
import { newRun, recordZone } from "../support/dns-answers";
import { BEYOND_SPEC_BY_ID_OPERATIONS } from "../support/site-operations";
import { api, makeSite, type SiteBody, siteMember, sitesEnv, storedRow } from "../support/sites-helpers";

interface VerifyBody {
  host: string;
  txt_name: string;
  txt_value: string;
  txt_seen: boolean | null;
  holder: string;
  verified: boolean;
  attached: boolean;
  site: SiteBody;
}

const verify = (site: SiteBody, host: string, headers: Record<string, string>) =>
  api<VerifyBody>("POST", `/api/v1/sites/${site.id}/domains/verify`, { headers, body: { host } });

/** Publishes the TXT proof strings of `host` (each a site id whose value it carries). */
async function publishProof(host: string, siteIds: string[]) {
  const values = await Promise.all(siteIds.map((id) => proofValue(id, host)));
  await recordZone(`_platform-verify.${host}`, values.length ? { TXT: values } : { rcode: 3 });
}

async function holding(host: string) {
  return sitesEnv.DB.prepare("SELECT site_id, kind, verified_at FROM site_hosts WHERE host = ?")
    .bind(host)
    .first<{ site_id: string; kind: string; verified_at: string | null }>();
}

const healthCodes = async (site: SiteBody, headers: Record<string, string>) => {
  const res = await api<{ issues: { code: string; host?: string }[] }>(
    "GET",
    `/api/v1/sites/${site.id}/health`,
    {
      headers,
    },
  );
  return res.body.issues.map((i) => `${i.code}${i.host ? ` ${i.host}` : ""}`);
};

describe("a squatter holding a host unverified loses it to the site that proves it", () => {
  it("DOMAIN_TAKEN tells how to prove; the proof moves the host; the squatter learns it through health", async () => {
    const host = `brand-${newRun()}.test`;
    const squatter = await makeSite({ primary_domain: host, aliases: [`keep-${newRun()}.test`] });
    const owner = await makeSite();
    await publishProof(host, []);
    await runCron(sitesEnv, HEALTH_CRON);
    expect(await healthCodes(squatter.site, squatter.owner)).toContain(`domain_unverified ${host}`);

    const patch = await api("PATCH", `/api/v1/sites/${owner.site.id}`, {
      headers: owner.owner,
      body: { primary_domain: host },
    });
    expect(patch.status).toBe(409);
    expect(patch.body).toMatchObject({
      code: "DOMAIN_TAKEN",
      details: {
        host,
        txt_name: `_platform-verify.${host}`,
        txt_value: await proofValue(owner.site.id, host),
        how: expect.stringContaining(`/v1/sites/${owner.site.id}/domains/verify`),
      },
    });
    const create = await api("POST", "/api/v1/sites", {
      headers: owner.owner,
      body: { org_id: owner.orgId, name: "Again", slug: `again-${newRun()}`, aliases: [host] },
    });
    expect(create.status).toBe(409);
    expect(create.body).toMatchObject({
      code: "DOMAIN_TAKEN",
      details: { host, txt_name: `_platform-verify.${host}` },
    });
    expect((create.body.details as Record<string, unknown>).txt_value).toBeUndefined();

    // Not proven yet: the state, nothing moves.
    const early = await verify(owner.site, host, owner.owner);
    expect(early.status).toBe(200);
    expect(early.body).toMatchObject({
      txt_seen: false,
      holder: "another_site",
      verified: false,
      attached: false,
    });
    expect((await holding(host))?.site_id).toBe(squatter.site.id);

    const squatterBefore = await storedRow(squatter.site.id);
    await publishProof(host, [owner.site.id]);
    const proven = await verify(owner.site, host, owner.owner);
    expect(proven.status, proven.text).toBe(200);
    expect(proven.body).toMatchObject({
      txt_seen: true,
      holder: "this_site",
      verified: true,
      attached: true,
    });
    expect(proven.body.site).toMatchObject({ primary_domain: host, canonical_host: host });
    expect(await holding(host)).toMatchObject({
      site_id: owner.site.id,
      kind: "primary",
      verified_at: expect.any(String),
    });

    const squatterAfter = await storedRow(squatter.site.id);
    expect(squatterAfter?.primary_domain).toBeNull();
    expect(squatterAfter?.aliases).toBe(squatterBefore?.aliases);
    expect(squatterAfter?.updated_at).not.toBe(squatterBefore?.updated_at);
    // Served by host: the new holder, at once (both sites' host caches were dropped).
    const byHost = await api("GET", `/api/v1/sites/by-host?host=${host}`);
    expect(byHost.body).toMatchObject({ id: owner.site.id });
    // At once in the squatter's cached health, and from then on in every sweep.
    expect(await healthCodes(squatter.site, squatter.owner)).toContain(`domain_lost ${host}`);
    await runCron(sitesEnv, HEALTH_CRON);
    const squatterIssues = await healthCodes(squatter.site, squatter.owner);
    expect(squatterIssues).toContain(`domain_lost ${host}`);
    expect(squatterIssues).not.toContain(`domain_unverified ${host}`);
    expect(await healthCodes(owner.site, owner.owner)).not.toContain(`domain_unverified ${host}`);

    // Kept 30 days, then no longer reported.
    await sitesEnv.DB.prepare("UPDATE domain_losses SET lost_at = ? WHERE site_id = ?")
      .bind(new Date(Date.now() - 31 * 86_400_000).toISOString(), squatter.site.id)
      .run();
    await runCron(sitesEnv, HEALTH_CRON);
    expect(await healthCodes(squatter.site, squatter.owner)).not.toContain(`domain_lost ${host}`);
  });

  it("a verified holder is never displaced, even by a site whose proof is published too", async () => {
    const host = `verified-${newRun()}.test`;
    const holder = await makeSite({ primary_domain: host });
    const rival = await makeSite();
    await publishProof(host, [holder.site.id, rival.site.id]);
    const own = await verify(holder.site, host, holder.owner);
    expect(own.body).toMatchObject({ holder: "this_site", verified: true, attached: false });

    const res = await verify(rival.site, host, rival.owner);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: "DOMAIN_TAKEN", details: { host } });
    expect(await holding(host)).toMatchObject({ site_id: holder.site.id });
    expect((await storedRow(holder.site.id))?.primary_domain).toBe(host);
  });

  it("a free host is attached to the site that proves it, as an alias when it has a primary", async () => {
    const host = `free-${newRun()}.test`;
    const { site, owner } = await makeSite({ primary_domain: `main-${newRun()}.test` });
    await publishProof(host, [site.id]);
    const res = await verify(site, host, owner);
    expect(res.body).toMatchObject({ attached: true, verified: true });
    expect(res.body.site.aliases).toEqual([host]);
    expect(await holding(host)).toMatchObject({ site_id: site.id, kind: "alias" });
  });

  it("a PATCH that keeps a host keeps its proof; removing it and adding it back starts unverified", async () => {
    const host = `kept-${newRun()}.test`;
    const { site, owner } = await makeSite({ primary_domain: host });
    await publishProof(host, [site.id]);
    await verify(site, host, owner);
    await publishProof(host, []);
    const other = `other-${newRun()}.test`;
    await api("PATCH", `/api/v1/sites/${site.id}`, { headers: owner, body: { aliases: [other] } });
    expect((await holding(host))?.verified_at).not.toBeNull();
    await api("PATCH", `/api/v1/sites/${site.id}`, {
      headers: owner,
      body: { primary_domain: other, aliases: [host] },
    });
    expect(await holding(host)).toMatchObject({ kind: "alias", verified_at: expect.any(String) });
    await api("PATCH", `/api/v1/sites/${site.id}`, { headers: owner, body: { aliases: [] } });
    await api("PATCH", `/api/v1/sites/${site.id}`, { headers: owner, body: { aliases: [host] } });
    expect((await holding(host))?.verified_at).toBeNull();
  });
});

describe("concurrent verify calls for one host", () => {
  for (const squatted of [true, false]) {
    it(`two proven sites, 20 calls each way: one winner (${squatted ? "held unverified" : "free"})`, async () => {
      const host = `race-${newRun()}.test`;
      const squatter = squatted ? await makeSite({ primary_domain: host }) : null;
      const a = await makeSite();
      const b = await makeSite();
      await publishProof(host, [a.site.id, b.site.id]);
      const calls = Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b)).map((s) =>
        verify(s.site, host, s.owner),
      );
      const results = await Promise.all(calls);
      const attached = results.filter((r) => r.status === 200 && r.body.attached);
      expect(attached).toHaveLength(1);
      for (const r of results) expect([200, 409]).toContain(r.status);
      const winner = attached[0]!.body.site.id;
      const loser = winner === a.site.id ? b.site.id : a.site.id;
      expect(await holding(host)).toMatchObject({ site_id: winner, verified_at: expect.any(String) });
      const rows = await Promise.all([winner, loser, ...(squatter ? [squatter.site.id] : [])].map(storedRow));
      const holds = rows.map((r) => r?.primary_domain === host || String(r?.aliases).includes(`"${host}"`));
      expect(holds).toEqual([true, false, ...(squatter ? [false] : [])]);
    });
  }
});

describe("POST /v1/sites/{id}/domains/verify: walls, permission, input", () => {
  const op = BEYOND_SPEC_BY_ID_OPERATIONS["POST /v1/sites/{id}/domains/verify"]!;

  it("another tenant's site answers exactly like a missing one", async () => {
    const { site } = await makeSite();
    const stranger = await makeSite();
    const body = op.body;
    const missing = await api("POST", `/api/v1/sites/${newId()}/domains/verify`, {
      headers: stranger.owner,
      body,
    });
    const other = await api("POST", `/api/v1/sites/${site.id}/domains/verify`, {
      headers: stranger.owner,
      body,
    });
    expect(missing.status).toBe(404);
    expect(other.text).toBe(missing.text);
  });

  it(`needs the "${op.permission}" permission: a member who only reads gets 403 FORBIDDEN`, async () => {
    const { site } = await makeSite();
    const res = await api("POST", `/api/v1/sites/${site.id}/domains/verify`, {
      headers: siteMember(site.id, "site_author"),
      body: op.body,
    });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: "FORBIDDEN" });
    const editor = await api("POST", `/api/v1/sites/${site.id}/domains/verify`, {
      headers: siteMember(site.id, "site_editor"),
      body: op.body,
    });
    expect(editor.status).toBe(200);
  });

  it("400 for a non-id segment, a missing or malformed host, or a platform host", async () => {
    const { site, owner } = await makeSite();
    const path = `/api/v1/sites/${site.id}/domains/verify`;
    expect(
      (await api("POST", "/api/v1/sites/nope/domains/verify", { headers: owner, body: op.body })).status,
    ).toBe(400);
    for (const body of [
      {},
      { host: "" },
      { host: "https://x.example.com" },
      { host: "x" },
      { host: `${site.slug}.sites.localhost` },
      { host: "a.example.com", extra: 1 },
    ]) {
      const res = await api("POST", path, { headers: owner, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
  });
});
