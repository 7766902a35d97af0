/**
 * Spec "Site health and DNS": `GET /v1/sites/{id}/domains/check-dns` and the hourly sweep judge a host
 * through the same lookup, so their verdicts agree: both are run over ONE table of recorded DNS answers
 * (test/support/dns-answers.ts).
 */
import { createExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { runCron } from "../../src/sites/core/cron";
import { proofValue } from "../../src/sites/health/domain-proof";
import { HEALTH_CRON } from "../../src/sites/health/health";
import SitesService from "../../src/sites/index";
import { DNS_ANSWERS, FLEET_V4, FLEET_V6, newRun, recordRow, rowHost } from "../support/dns-answers";
import { signEdgeRequest } from "../support/edge-signing";
import { api, makeSite, type SiteBody, sitesEnv } from "../support/sites-helpers";

interface CheckBody {
  host: string;
  points_to_platform: boolean;
  form: string | null;
  reason: string | null;
  expected: { a: string[]; aaaa: string[]; cname: string };
  records: { a: string[]; aaaa: string[]; cname: string | null };
  ownership: {
    txt_name: string;
    txt_value: string;
    txt_seen: boolean | null;
    holder: string;
    verified: boolean;
  } | null;
}

interface HealthBody {
  cached: boolean;
  checked_at?: string;
  issues: { code: string; host?: string; data?: Record<string, unknown> }[];
}

/** The sites worker over an env of the test's making (a binding or a var taken away). */
async function apiWithEnv(env: SitesEnv, path: string, headers: Record<string, string>) {
  const worker = new SitesService(createExecutionContext(), env);
  const res = await worker.fetch(signEdgeRequest(new Request(`http://sites.internal${path}`, { headers })));
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const checkDns = (site: SiteBody, host: string, headers: Record<string, string>) =>
  api<CheckBody>("GET", `/api/v1/sites/${site.id}/domains/check-dns?host=${encodeURIComponent(host)}`, {
    headers,
  });

describe("the DNS check and the sweep agree on a table of recorded answers", () => {
  const run = newRun();
  const hosts = DNS_ANSWERS.map((row) => rowHost(row, run));
  let site: SiteBody;
  let owner: Record<string, string>;
  let swept: HealthBody;
  let checked: CheckBody[];

  beforeAll(async () => {
    const [primary, ...aliases] = hosts;
    ({ site, owner } = await makeSite({ primary_domain: primary, aliases }));
    for (const [i, row] of DNS_ANSWERS.entries()) {
      const host = hosts[i]!;
      await recordRow(row, host, site, {
        own: await proofValue(site.id, host),
        other: await proofValue("01J00000000000000000000000", host),
      });
    }
    // The sweep first (it records proofs it sees), then the route over the same answers.
    await runCron(sitesEnv, HEALTH_CRON);
    swept = (await api<HealthBody>("GET", `/api/v1/sites/${site.id}/health`, { headers: owner })).body;
    checked = [];
    for (const host of hosts) {
      const res = await checkDns(site, host, owner);
      expect(res.status, res.text).toBe(200);
      checked.push(res.body);
    }
  });

  it.each(DNS_ANSWERS.map((row, i) => ({ name: row.name, row, i })))("$name", ({ row, i }) => {
    const host = hosts[i]!;
    const check = checked[i]!;
    expect(check).toMatchObject({
      host,
      points_to_platform: row.expect.points_to_platform,
      form: row.expect.form,
      reason: row.expect.reason,
      expected: { a: FLEET_V4, aaaa: FLEET_V6, cname: `${site.slug}.sites.localhost` },
    });
    expect(check.ownership).toMatchObject({
      txt_name: `_platform-verify.${host}`,
      holder: "this_site",
      verified: row.expect.verified,
      txt_seen: row.txt === "servfail" ? null : row.txt === "own",
    });
    const issues = swept.issues.filter((issue) => issue.host === host).map((issue) => issue.code);
    const dnsCode = row.expect.reason === "lookup_failed" ? "dns_lookup_failed" : "dns_not_pointing";
    expect(issues.includes(dnsCode)).toBe(!row.expect.points_to_platform);
    expect(issues.includes("domain_unverified")).toBe(!row.expect.verified);
    const notPointing = swept.issues.find(
      (issue) => issue.host === host && issue.code === "dns_not_pointing",
    );
    if (notPointing) expect(notPointing.data?.reason).toBe(check.reason);
  });

  it("answers the records the host publishes itself", () => {
    const at = (name: string) => checked[DNS_ANSWERS.findIndex((r) => r.name === name)]!;
    expect(at("apex-a-both").records).toEqual({ a: ["192.0.2.11", "192.0.2.10"], aaaa: [], cname: null });
    expect(at("www.cname-ok").records).toEqual({ a: [], aaaa: [], cname: `${site.slug}.sites.localhost` });
    // The target's address under a wrong CNAME is not the host's own record.
    expect(at("www.cname-foreign-target").records).toEqual({
      a: [],
      aaaa: [],
      cname: "elsewhere.example.test",
    });
    expect(at("apex-aaaa").records.aaaa).toEqual(["2001:0db8:0:0::10"]);
  });
});

describe("GET /v1/sites/{id}/domains/check-dns", () => {
  it("400 when host is missing, empty or not a host name; a non-id segment is 400 first", async () => {
    const { site, owner } = await makeSite();
    for (const query of [
      "",
      "?host=",
      "?host=%20",
      "?host=https://a.example.com/",
      "?host=a%20b.com",
      "?host=localhost",
      "?host=a.example.com:443",
    ]) {
      const res = await api("GET", `/api/v1/sites/${site.id}/domains/check-dns${query}`, { headers: owner });
      expect(res.status, query).toBe(400);
      expect(res.body).toMatchObject({ code: "BAD_REQUEST" });
    }
    const bad = await api("GET", "/api/v1/sites/not-an-id/domains/check-dns?host=a.example.com", {
      headers: owner,
    });
    expect(bad.status).toBe(400);
  });

  it("a host of nobody: ownership says so and nothing is recorded", async () => {
    const { site, owner } = await makeSite();
    const res = await checkDns(site, `free-${newRun()}.test`, owner);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ points_to_platform: false, reason: "nxdomain" });
    expect(res.body.ownership).toMatchObject({ holder: "nobody", verified: false, txt_seen: false });
  });

  it("the platform's own host of the site has no ownership proof", async () => {
    const { site, owner } = await makeSite();
    const res = await checkDns(site, `${site.slug}.sites.localhost`, owner);
    expect(res.status).toBe(200);
    expect(res.body.ownership).toBeNull();
  });

  it("500 DNS_NOT_CONFIGURED when the fleet's addresses are not configured (or not addresses)", async () => {
    const { site, owner } = await makeSite();
    const path = `/api/v1/sites/${site.id}/domains/check-dns?host=www.example.com`;
    for (const fleet of [
      { PLATFORM_IPV4: "", PLATFORM_IPV6: "" },
      { PLATFORM_IPV4: "192.0.2.10,not-an-ip", PLATFORM_IPV6: "" },
      { PLATFORM_IPV4: "", PLATFORM_IPV6: "192.0.2.10" },
    ]) {
      const res = await apiWithEnv({ ...sitesEnv, ...fleet }, path, owner);
      expect(res.status).toBe(500);
      expect(res.body).toMatchObject({ code: "DNS_NOT_CONFIGURED" });
    }
    // Only one family configured is a fleet.
    const v4only = await apiWithEnv({ ...sitesEnv, PLATFORM_IPV6: "" }, path, owner);
    expect(v4only.status).toBe(200);
  });
});
