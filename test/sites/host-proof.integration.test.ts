import { describe, expect, it } from "vitest";
import { readEdgeIdentity } from "../../src/lib/edge";
import { ApiError } from "../../src/lib/problem";
import { runCron } from "../../src/sites/core/cron";
import { proofValue } from "../../src/sites/health/domain-proof";
import { HEALTH_CRON } from "../../src/sites/health/health";
import { devProveHost, PROOF_GRACE_HOURS } from "../../src/sites/health/host-proof";
import { contentDbOf } from "../support/content-groups";
import { newRun, recordZone } from "../support/dns-answers";
import {
  api,
  apiUnsigned,
  type EdgeHeaders,
  makeSite,
  orgMember,
  reader,
  type SiteBody,
  servicesFor,
  siteMember,
  sitesEnv,
} from "../support/sites-helpers";

type Body = Record<string, unknown>;
const byHost = (host: string) => api<Body>("GET", `/api/v1/sites/by-host?host=${encodeURIComponent(host)}`);
const sweep = () => runCron(sitesEnv, HEALTH_CRON);

/** A host under .test (the fake DNS records only those), unique to the run. */
const testHost = (label = "blog") => `${label}.victim-${newRun()}.test`;

/** The 404 of by-host without what differs per request. */
async function notServed(host: string) {
  const res = await byHost(host);
  const { instance: _i, request_id: _r, ...body } = res.body;
  return { status: res.status, body };
}

/** The site's ownership issues (domain_*), DNS issues left aside. */
async function health(site: SiteBody, headers: EdgeHeaders) {
  const res = await api<{ issues: { code: string; host?: string; detail: string; data?: Body }[] }>(
    "GET",
    `/api/v1/sites/${site.id}/health`,
    { headers },
  );
  return res.body.issues.filter((i) => i.code.startsWith("domain_"));
}

const checkDns = (site: SiteBody, host: string, headers: EdgeHeaders) =>
  api<Body & { ownership: Body }>(
    "GET",
    `/api/v1/sites/${site.id}/domains/check-dns?host=${encodeURIComponent(host)}`,
    { headers },
  );

async function publishTxt(site: SiteBody, host: string) {
  await recordZone(`_platform-verify.${host}`, { TXT: [await proofValue(site.id, host)] });
}

const removeTxt = (host: string) => recordZone(`_platform-verify.${host}`, { rcode: 3 });

async function holding(host: string) {
  return sitesEnv.DB.prepare(
    "SELECT site_id, verified_at, proof_missing_since, proof_lost_at FROM site_hosts WHERE host = ?",
  )
    .bind(host)
    .first<{
      site_id: string;
      verified_at: string | null;
      proof_missing_since: string | null;
      proof_lost_at: string | null;
    }>();
}

describe("an unproved host is not served", () => {
  it("PATCH primary_domain to a host nobody proved: by-host answers exactly like an unknown host", async () => {
    const victim = testHost();
    const unknown = testHost("nobody");
    const { site, owner } = await makeSite();
    const patched = await api<SiteBody>("PATCH", `/api/v1/sites/${site.id}`, {
      headers: owner,
      body: { primary_domain: victim },
    });
    expect(patched.status, patched.text).toBe(200);
    // The site keeps its platform host.
    expect(patched.body).toMatchObject({
      primary_domain: victim,
      canonical_host: `${site.slug}.sites.localhost`,
    });
    const served = await notServed(victim);
    expect(served.status).toBe(404);
    expect(served).toEqual(await notServed(unknown));
    // Twice (the miss is cached the same way).
    expect(await notServed(victim)).toEqual(served);
    // The platform host shows no unproved host; content's projection neither.
    const platform = await byHost(`${site.slug}.sites.localhost`);
    expect(platform.body).toMatchObject({
      primary_domain: null,
      canonical_host: `${site.slug}.sites.localhost`,
    });
    const projection = await (await contentDbOf(site.id))
      .prepare("SELECT primary_domain FROM sites WHERE id = ?")
      .bind(site.id)
      .first<{ primary_domain: string | null }>();
    expect(projection?.primary_domain).toBeNull();
    // Health: pending, with the exact record to publish.
    await sweep();
    const issue = (await health(site, owner)).find((i) => i.host === victim);
    expect(issue).toMatchObject({
      code: "domain_unverified",
      data: {
        state: "pending",
        txt_name: `_platform-verify.${victim}`,
        txt_value: await proofValue(site.id, victim),
      },
    });
    expect(issue?.detail).toContain(await proofValue(site.id, victim));
    expect((await notServed(victim)).status).toBe(404);
  });

  it("aliases and the domains given at POST /v1/sites alike", async () => {
    const primary = testHost("www");
    const alias = testHost("shop");
    const later = testHost("later");
    const { site, owner } = await makeSite({ primary_domain: primary, aliases: [alias] });
    expect(site.canonical_host).toBe(`${site.slug}.sites.localhost`);
    await api("PATCH", `/api/v1/sites/${site.id}`, { headers: owner, body: { aliases: [alias, later] } });
    for (const host of [primary, alias, later]) {
      expect(await notServed(host)).toEqual(await notServed(testHost("nobody")));
    }
    // The alias proved: only it is served, and the public view names only it.
    await publishTxt(site, alias);
    expect((await checkDns(site, alias, owner)).body.ownership).toMatchObject({ verified: true });
    const res = await byHost(alias);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: site.id,
      primary_domain: null,
      aliases: [alias],
      canonical_host: `${site.slug}.sites.localhost`,
    });
    expect((await byHost(primary)).status).toBe(404);
    expect((await byHost(later)).status).toBe(404);
  });

  it("a host added by PATCH shows as pending in the cached health at once", async () => {
    const { site, owner } = await makeSite();
    await sweep();
    const host = testHost("fresh");
    await api("PATCH", `/api/v1/sites/${site.id}`, { headers: owner, body: { aliases: [host] } });
    expect((await health(site, owner)).find((i) => i.host === host)).toMatchObject({
      code: "domain_unverified",
      data: { state: "pending", txt_value: await proofValue(site.id, host) },
    });
  });
});

describe("what proves a host", () => {
  it("the TXT record: served at once (a cached miss is dropped), canonical host and content follow", async () => {
    const host = testHost();
    const { site, owner } = await makeSite({ primary_domain: host });
    expect((await byHost(host)).status).toBe(404);
    await publishTxt(site, host);
    const check = await checkDns(site, host, owner);
    expect(check.body.ownership).toMatchObject({ txt_seen: true, verified: true });
    const res = await byHost(host);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: site.id, primary_domain: host, canonical_host: host });
    const record = await api<SiteBody>("GET", `/api/v1/sites/${site.id}`, { headers: owner });
    expect(record.body.canonical_host).toBe(host);
    const projection = await (await contentDbOf(site.id))
      .prepare("SELECT primary_domain FROM sites WHERE id = ?")
      .bind(site.id)
      .first<{ primary_domain: string | null }>();
    expect(projection?.primary_domain).toBe(host);
  });

  it("50 concurrent checks of a published proof: all see it verified, recorded once", async () => {
    const host = testHost();
    const { site, owner } = await makeSite({ primary_domain: host });
    await publishTxt(site, host);
    const checks = await Promise.all(Array.from({ length: 50 }, () => checkDns(site, host, owner)));
    expect(checks.map((c) => c.status)).toEqual(Array(50).fill(200));
    expect(checks.every((c) => c.body.ownership.verified === true)).toBe(true);
    const first = (await holding(host))?.verified_at;
    expect(first).toEqual(expect.any(String));
    await checkDns(site, host, owner);
    expect((await holding(host))?.verified_at).toBe(first);
    expect((await byHost(host)).body).toMatchObject({ id: site.id });
  });

  it("the host points at the platform and a random sibling does not: proof (by the sweep too)", async () => {
    const host = testHost();
    const { site } = await makeSite({ primary_domain: host });
    await recordZone(host, { A: ["192.0.2.10"] });
    await sweep();
    expect((await holding(host))?.verified_at).toEqual(expect.any(String));
    expect((await byHost(host)).body).toMatchObject({ id: site.id });
  });

  it("a wildcard (the host and any sibling point at the platform) is never proof", async () => {
    const host = testHost();
    const { site, owner } = await makeSite({ primary_domain: host });
    const parent = host.split(".").slice(1).join(".");
    await recordZone(`*.${parent}`, { cname: `${site.slug}.sites.localhost` });
    const check = await checkDns(site, host, owner);
    expect(check.body).toMatchObject({ points_to_platform: true, form: "cname" });
    expect(check.body.ownership).toMatchObject({ verified: false });
    await sweep();
    expect((await holding(host))?.verified_at).toBeNull();
    expect((await byHost(host)).status).toBe(404);
    // A wildcard to the fleet's address, the same.
    await recordZone(`*.${parent}`, { A: ["192.0.2.11"] });
    await api("POST", `/api/v1/sites/${site.id}/domains/verify`, { headers: owner, body: { host } });
    expect((await holding(host))?.verified_at).toBeNull();
    expect((await byHost(host)).status).toBe(404);
  });

  it("a failed sibling lookup proves nothing", async () => {
    const host = testHost();
    const { site, owner } = await makeSite({ primary_domain: host });
    const parent = host.split(".").slice(1).join(".");
    await recordZone(host, { A: ["192.0.2.10"] });
    await recordZone(`*.${parent}`, { rcode: 2 });
    expect((await checkDns(site, host, owner)).body.ownership).toMatchObject({ verified: false });
    expect((await byHost(host)).status).toBe(404);
  });
});

describe("a proof that disappears", () => {
  it(`stays served ${PROOF_GRACE_HOURS} h, then 404 with the host cache purged and health telling why`, async () => {
    const host = testHost();
    const { site, owner } = await makeSite({ primary_domain: host });
    await publishTxt(site, host);
    await sweep();
    expect((await byHost(host)).status).toBe(200);
    expect(await sitesEnv.CACHE.get(`host:${host}`, "json")).toMatchObject({ site: { id: site.id } });

    await removeTxt(host);
    await sweep();
    const missing = await holding(host);
    expect(missing?.proof_missing_since).toEqual(expect.any(String));
    expect((await byHost(host)).status).toBe(200);
    const warned = (await health(site, owner)).find((i) => i.host === host);
    expect(warned).toMatchObject({
      code: "domain_proof_missing",
      data: { txt_value: await proofValue(site.id, host), missing_since: missing?.proof_missing_since },
    });

    // Just inside the grace period: still served (a lookup failure would decide nothing either).
    const setMissing = (ms: number) =>
      sitesEnv.DB.prepare("UPDATE site_hosts SET proof_missing_since = ? WHERE host = ?")
        .bind(new Date(Date.now() - ms).toISOString(), host)
        .run();
    await setMissing(PROOF_GRACE_HOURS * 3_600_000 - 60_000);
    await sweep();
    expect((await byHost(host)).status).toBe(200);
    expect((await holding(host))?.verified_at).toEqual(expect.any(String));

    // Past it: not served, the cache entry is gone, the site falls back to its platform host.
    await setMissing(PROOF_GRACE_HOURS * 3_600_000 + 60_000);
    await sweep();
    expect(await sitesEnv.CACHE.get(`host:${host}`)).toBeNull();
    expect(await notServed(host)).toEqual(await notServed(testHost("nobody")));
    expect(await holding(host)).toMatchObject({ verified_at: null, proof_lost_at: expect.any(String) });
    const lost = (await health(site, owner)).find((i) => i.host === host);
    expect(lost?.code).toBe("domain_proof_lost");
    expect(lost?.detail).toContain("disappeared");
    expect(lost?.data).toMatchObject({ state: "pending", txt_value: await proofValue(site.id, host) });
    const record = await api<SiteBody>("GET", `/api/v1/sites/${site.id}`, { headers: owner });
    expect(record.body.canonical_host).toBe(`${site.slug}.sites.localhost`);
    // Still explained by the next sweep; published again, served again.
    await sweep();
    expect((await health(site, owner)).find((i) => i.host === host)?.code).toBe("domain_proof_lost");
    await publishTxt(site, host);
    await sweep();
    expect((await byHost(host)).status).toBe(200);
    expect((await health(site, owner)).some((i) => i.host === host)).toBe(false);
  });

  it("a proof seen again within the grace period clears the miss", async () => {
    const host = testHost();
    const { site } = await makeSite({ primary_domain: host });
    await publishTxt(site, host);
    await sweep();
    await removeTxt(host);
    await sweep();
    expect((await holding(host))?.proof_missing_since).toEqual(expect.any(String));
    await publishTxt(site, host);
    await sweep();
    expect(await holding(host)).toMatchObject({ verified_at: expect.any(String), proof_missing_since: null });
  });

  it("a DNS lookup that fails is not a missing proof", async () => {
    const host = testHost();
    const { site } = await makeSite({ primary_domain: host });
    await publishTxt(site, host);
    await sweep();
    await recordZone(`_platform-verify.${host}`, { rcode: 2 });
    await recordZone(host, { rcode: 2 });
    await sweep();
    expect(await holding(host)).toMatchObject({ verified_at: expect.any(String), proof_missing_since: null });
  });
});

describe("a verified holder is never displaced", () => {
  it("another org's PATCH and its own TXT proof are refused; the holder stays served", async () => {
    const host = testHost();
    const holder = await makeSite({ primary_domain: host });
    await publishTxt(holder.site, host);
    await sweep();
    const other = await makeSite();
    const patch = await api("PATCH", `/api/v1/sites/${other.site.id}`, {
      headers: other.owner,
      body: { primary_domain: host },
    });
    expect(patch.status).toBe(409);
    expect(patch.body.code).toBe("DOMAIN_TAKEN");
    await recordZone(`_platform-verify.${host}`, {
      TXT: [await proofValue(holder.site.id, host), await proofValue(other.site.id, host)],
    });
    const verify = await api("POST", `/api/v1/sites/${other.site.id}/domains/verify`, {
      headers: other.owner,
      body: { host },
    });
    expect(verify.status).toBe(409);
    expect((await byHost(host)).body).toMatchObject({ id: holder.site.id });
  });
});

describe("the development route", () => {
  const prove = (host: string, headers?: EdgeHeaders) =>
    api("POST", "/api/v1/sites/__dev/prove-host", { body: { host }, ...(headers ? { headers } : {}) });

  it("the owner marks a held host proved where DEV_OUTBOX=true; 404 for a host nobody holds", async () => {
    const host = testHost();
    const { site, owner } = await makeSite({ primary_domain: host });
    const res = await prove(host, owner);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ host, site_id: site.id, verified: true });
    expect((await byHost(host)).body).toMatchObject({ id: site.id });
    const nobody = await prove(testHost(), owner);
    expect(nobody.status).toBe(404);
  });

  it("a site_editor (who holds settings) may prove the site's host", async () => {
    const host = testHost();
    const { site } = await makeSite({ primary_domain: host });
    const res = await prove(host, siteMember(site.id, "site_editor"));
    expect(res.status, res.text).toBe(200);
    expect((await byHost(host)).body).toMatchObject({ id: site.id });
  });

  it("without a member's token it is 401 UNAUTHENTICATED and nothing is written", async () => {
    const host = testHost();
    await makeSite({ primary_domain: host });
    // No identity at all (a service caller's signed request without edge headers), and an unsigned request.
    for (const res of [
      await prove(host),
      await apiUnsigned("POST", "/api/v1/sites/__dev/prove-host", { body: { host } }),
    ]) {
      expect(res.status, res.text).toBe(401);
      expect(res.body.code).toBe("UNAUTHENTICATED");
    }
    expect((await holding(host))?.verified_at).toBeNull();
    expect((await byHost(host)).status).toBe(404);
  });

  it("another tenant's member (or a reader session) gets 404, the answer for a host nobody holds; nothing is written", async () => {
    const host = testHost();
    const { site, orgId } = await makeSite({ primary_domain: host });
    const stranger = await makeSite();
    const strip = (body: Body) => {
      const { instance: _i, request_id: _r, ...rest } = body;
      return rest;
    };
    const nobodys = await prove(testHost(), stranger.owner);
    expect(nobodys.status).toBe(404);
    for (const headers of [stranger.owner, reader(orgId, site.id)]) {
      const theirs = await prove(host, headers);
      expect(theirs.status).toBe(404);
      expect(strip(theirs.body)).toEqual(strip(nobodys.body));
    }
    expect((await holding(host))?.verified_at).toBeNull();
  });

  it("a member whose role may not change settings (site_author, org_member) is 403 FORBIDDEN", async () => {
    const host = testHost();
    const { site, orgId } = await makeSite({ primary_domain: host });
    for (const headers of [siteMember(site.id, "site_author"), orgMember(orgId, "org_member")]) {
      const res = await prove(host, headers);
      expect(res.status, res.text).toBe(403);
      expect(res.body.code).toBe("FORBIDDEN");
    }
    expect((await holding(host))?.verified_at).toBeNull();
  });

  it("is refused (NOT_FOUND, nothing written) without DEV_OUTBOX=true, even for the owner", async () => {
    const host = testHost();
    const { owner } = await makeSite({ primary_domain: host });
    const identity = readEdgeIdentity(new Headers({ ...owner, "x-edge-verified": "1" }));
    for (const flag of ["false", "", undefined]) {
      const off = { ...sitesEnv, DEV_OUTBOX: flag } as SitesEnv;
      const err = await devProveHost(off, servicesFor(off), identity, host).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).code).toBe("NOT_FOUND");
    }
    expect((await holding(host))?.verified_at).toBeNull();
    expect((await byHost(host)).status).toBe(404);
  });
});
