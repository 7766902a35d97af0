/**
 * Issue 19, item 2, replayed through the gateway: organization A's DNS sends a whole zone to the platform
 * (a wildcard record to the platform's address). A member of organization B names a host of that zone as its site's primary domain,
 * an alias, or a domain at creation. None of it is served: `by-host` answers like an unknown host until
 * the host is proved (docs/decisions/host-proof.md), and a wildcard is no proof. A's proved host stays A's.
 */
import { describe, expect, it } from "vitest";
import { proofValue } from "../../src/sites/health/domain-proof";
import { newRun, recordZone } from "../support/dns-answers";
import { call, createOrg, createSite, verifiedUser } from "../support/platform";

type Body = Record<string, unknown>;

/** What by-host answers, without what differs per request. */
async function byHost(host: string) {
  const res = await call<Body>("GET", `/api/v1/sites/by-host?host=${encodeURIComponent(host)}`);
  const { instance: _i, request_id: _r, ...body } = res.body;
  return { status: res.status, body };
}

describe("taking a host whose DNS points at the platform, through the gateway", () => {
  it("B's member names hosts under A's wildcard: every one answers like an unknown host", async () => {
    const zone = `victim-${newRun()}.test`;
    const a = await verifiedUser();
    const orgA = await createOrg(a.access_token, "Victim");
    const siteA = await createSite(a.access_token, orgA.id);
    // A's zone: a wildcard to the platform's address, and A's own host proved by its TXT record.
    await recordZone(`*.${zone}`, { A: ["192.0.2.10"] });
    const aHost = `www.${zone}`;
    await recordZone(`_platform-verify.${aHost}`, { TXT: [await proofValue(siteA.id, aHost)] });
    const setA = await call("PATCH", `/api/v1/sites/${siteA.id}`, {
      token: a.access_token,
      body: { primary_domain: aHost },
    });
    expect(setA.status).toBe(200);
    const proved = await call<Body>("POST", `/api/v1/sites/${siteA.id}/domains/verify`, {
      token: a.access_token,
      body: { host: aHost },
    });
    expect(proved.body).toMatchObject({ verified: true, txt_seen: true });
    expect((await byHost(aHost)).body).toMatchObject({ id: siteA.id, canonical_host: aHost });

    const b = await verifiedUser();
    const orgB = await createOrg(b.access_token, "Attacker");
    const siteB = await createSite(b.access_token, orgB.id);
    const unknown = await byHost(`nobody.${newRun()}.test`);
    expect(unknown.status).toBe(404);

    // The primary domain: accepted as a setting, not served; B keeps its platform host.
    const blog = `blog.${zone}`;
    const patched = await call<Body>("PATCH", `/api/v1/sites/${siteB.id}`, {
      token: b.access_token,
      body: { primary_domain: blog },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.canonical_host).toBe(`${siteB.slug}.sites.localhost`);
    expect(await byHost(blog)).toEqual(unknown);

    // The wildcard makes the host point at the platform, and a random sibling too: no proof.
    const check = await call<Body>(
      "GET",
      `/api/v1/sites/${siteB.id}/domains/check-dns?host=${encodeURIComponent(blog)}`,
      { token: b.access_token },
    );
    expect(check.body).toMatchObject({ points_to_platform: true, ownership: { verified: false } });
    const verify = await call<Body>("POST", `/api/v1/sites/${siteB.id}/domains/verify`, {
      token: b.access_token,
      body: { host: blog },
    });
    expect(verify.body).toMatchObject({ verified: false });
    expect(await byHost(blog)).toEqual(unknown);

    // An alias, and domains given when the site is created: the same.
    const shop = `shop.${zone}`;
    await call("PATCH", `/api/v1/sites/${siteB.id}`, { token: b.access_token, body: { aliases: [shop] } });
    expect(await byHost(shop)).toEqual(unknown);
    const created = await call<Body>("POST", "/api/v1/sites", {
      token: b.access_token,
      body: {
        org_id: orgB.id,
        name: "Second",
        slug: `second-${newRun()}`,
        primary_domain: `news.${zone}`,
        aliases: [`mail.${zone}`],
      },
    });
    expect(created.status).toBe(201);
    expect(await byHost(`news.${zone}`)).toEqual(unknown);
    expect(await byHost(`mail.${zone}`)).toEqual(unknown);

    // A's proved host: refused to B, still A's.
    const take = await call<Body>("PATCH", `/api/v1/sites/${siteB.id}`, {
      token: b.access_token,
      body: { primary_domain: aHost },
    });
    expect(take.status).toBe(409);
    expect(take.body.code).toBe("DOMAIN_TAKEN");
    expect((await byHost(aHost)).body).toMatchObject({ id: siteA.id });
    // The platform host of B's site names none of the hosts it could not prove.
    const own = await byHost(`${siteB.slug}.sites.localhost`);
    expect(own.body).toMatchObject({ id: siteB.id, primary_domain: null, aliases: [] });
  });
});
