/**
 * Spec "Site health and DNS": `GET /v1/sites/{id}/health` reads only the cache the hourly sweep writes;
 * each issue code is produced by its cause and cleared by the next sweep once the cause is gone.
 */
import { createExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { runCron } from "../../src/sites/core/cron";
import { proofValue } from "../../src/sites/health/domain-proof";
import { HEALTH_CRON, SWEEP_CHUNK, sweepHealth } from "../../src/sites/health/health";
import SitesService from "../../src/sites/index";
import { contentDbOf } from "../support/content-groups";
import { newRun, recordZone } from "../support/dns-answers";
import { signEdgeRequest } from "../support/edge-signing";
import {
  api,
  forceStoredSettings,
  makeSite,
  type SiteBody,
  servicesFor,
  sitesEnv,
} from "../support/sites-helpers";

interface HealthBody {
  cached: boolean;
  checked_at?: string;
  issues: { code: string; detail: string; host?: string; data?: Record<string, unknown> }[];
  unchecked?: string[];
}

const health = async (site: SiteBody, headers: Record<string, string>) => {
  const res = await api<HealthBody>("GET", `/api/v1/sites/${site.id}/health`, { headers });
  expect(res.status, res.text).toBe(200);
  return res.body;
};
const codes = (body: HealthBody) => body.issues.map((i) => i.code);
const sweep = () => runCron(sitesEnv, HEALTH_CRON);

/** Settings with a logo and a favicon, so only the issue under test shows. */
const DRESSED = {
  logo_svg: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><path d="M0 0h1v1z"/></svg>',
  favicon_svg: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><path d="M0 0h1v1z"/></svg>',
};

async function insertPost(
  siteId: string,
  fields: {
    slug: string;
    post_type?: string;
    status: string;
    org_id?: string;
    published_at?: string | null;
    fields?: Record<string, unknown>;
  },
) {
  const at = new Date().toISOString();
  await (await contentDbOf(siteId))
    .prepare(
      `INSERT INTO posts (id, site_id, slug, language, post_type, title, status, published_at, org_id, fields, created_at, updated_at)
       VALUES (?, ?, ?, 'en', ?, 'T', ?, ?, ?, ?, ?, ?)`,
    )
    .bind(
      newId(),
      siteId,
      fields.slug,
      fields.post_type ?? "post",
      fields.status,
      fields.published_at ?? null,
      fields.org_id ?? null,
      fields.fields ? JSON.stringify(fields.fields) : null,
      at,
      at,
    )
    .run();
}

describe("GET /v1/sites/{id}/health", () => {
  it("cached false with no issues before the first sweep; cached with checked_at after", async () => {
    const { site, owner } = await makeSite();
    expect(await health(site, owner)).toEqual({ cached: false, issues: [] });
    const before = Date.now();
    await sweep();
    const after = await health(site, owner);
    expect(after.cached).toBe(true);
    expect(Date.parse(after.checked_at!)).toBeGreaterThanOrEqual(before - 1000);
    expect(codes(after).sort()).toEqual(["no_favicon", "no_legal_pages", "no_logo", "nothing_published"]);
    expect(after.unchecked).toBeUndefined();
  });

  it("a member who may only read sees it; the route reads the cache, never recomputes", async () => {
    const { site, owner } = await makeSite();
    await sweep();
    await forceStoredSettings(site.id, JSON.stringify(DRESSED));
    // Still what the sweep found: the cache is the only source.
    expect(codes(await health(site, owner))).toContain("no_logo");
  });

  it("503 HEALTH_UNAVAILABLE when the health cache is not wired (after the guard)", async () => {
    const { site, owner } = await makeSite();
    const unwired = new SitesService(createExecutionContext(), {
      ...sitesEnv,
      HEALTH_CACHE: undefined,
    } as never);
    const res = await unwired.fetch(
      signEdgeRequest(
        new Request(`http://sites.internal/api/v1/sites/${site.id}/health`, { headers: owner }),
      ),
    );
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ code: "HEALTH_UNAVAILABLE" });
    const missing = await unwired.fetch(
      signEdgeRequest(
        new Request(`http://sites.internal/api/v1/sites/${newId()}/health`, { headers: owner }),
      ),
    );
    expect(missing.status).toBe(404);
    const bad = await unwired.fetch(
      signEdgeRequest(new Request("http://sites.internal/api/v1/sites/nope/health", { headers: owner })),
    );
    expect(bad.status).toBe(400);
  });
});

describe("issue codes: produced by their cause, cleared once it is gone", () => {
  let site: SiteBody;
  let owner: Record<string, string>;
  let host: string;

  beforeAll(async () => {
    host = `health-${newRun()}.test`;
    await recordZone(host, { rcode: 3 });
    await recordZone(`_platform-verify.${host}`, { rcode: 3 });
    ({ site, owner } = await makeSite({ primary_domain: host }));
    // Content's owner of the site changed an hour ago and one post is still stamped for the old owner.
    await (await contentDbOf(site.id))
      .prepare("UPDATE sites SET org_since = ? WHERE id = ?")
      .bind(new Date(Date.now() - 3_600_000).toISOString(), site.id)
      .run();
    await insertPost(site.id, { slug: "old", status: "draft", org_id: "old-org" });
    await forceStoredSettings(site.id, JSON.stringify({ logo_url: "https://img.test/ok.png" }));
    await sweep();
  });

  it("each code with its facts", async () => {
    const body = await health(site, owner);
    expect(codes(body).sort()).toEqual([
      "convergence_stalled",
      "dns_not_pointing",
      "domain_unverified",
      "external_images_pending",
      "no_favicon",
      "no_legal_pages",
      "nothing_published",
    ]);
    const by = (code: string) => body.issues.find((i) => i.code === code)!;
    expect(by("dns_not_pointing")).toMatchObject({ host, data: { reason: "nxdomain" } });
    expect(by("domain_unverified")).toMatchObject({
      host,
      data: { txt_name: `_platform-verify.${host}`, txt_value: await proofValue(site.id, host) },
    });
    expect(by("external_images_pending").data).toEqual({ count: 1, paths: ["settings.logo_url"] });
    expect(by("convergence_stalled").data).toMatchObject({ expected_org_id: site.org_id, stale_posts: 1 });
  });

  it("all cleared by the next sweep once the causes are gone", async () => {
    await recordZone(host, { A: ["192.0.2.10"] });
    await recordZone(`_platform-verify.${host}`, { TXT: [await proofValue(site.id, host)] });
    await (await contentDbOf(site.id))
      .prepare("UPDATE posts SET org_id = ? WHERE site_id = ?")
      .bind(site.org_id, site.id)
      .run();
    await insertPost(site.id, { slug: "hello", status: "published", published_at: new Date().toISOString() });
    await insertPost(site.id, { slug: "legal", post_type: "page", status: "draft" });
    await forceStoredSettings(site.id, JSON.stringify({ ...DRESSED, logo_url: "/logo.png" }));
    await sweep();
    expect((await health(site, owner)).issues).toEqual([]);
  });

  it("settings_unreadable when the stored document is not an object", async () => {
    const { site: s, owner: o } = await makeSite();
    await forceStoredSettings(s.id, "[1]");
    await sweep();
    expect(codes(await health(s, o))).toContain("settings_unreadable");
    await forceStoredSettings(s.id, JSON.stringify(DRESSED));
    await sweep();
    expect(codes(await health(s, o))).not.toContain("settings_unreadable");
  });

  it("a scheduled post that came due counts as published; a legal-… page counts as legal", async () => {
    const { site: s, owner: o } = await makeSite();
    await insertPost(s.id, {
      slug: "soon",
      status: "scheduled",
      published_at: new Date(Date.now() + 3_600_000).toISOString(),
    });
    await insertPost(s.id, {
      slug: "legalish",
      post_type: "post",
      status: "draft",
      published_at: new Date(Date.now() + 3_600_000).toISOString(),
    });
    await sweep();
    expect(codes(await health(s, o))).toEqual(
      expect.arrayContaining(["nothing_published", "no_legal_pages"]),
    );
    await insertPost(s.id, {
      slug: "due",
      status: "scheduled",
      published_at: new Date(Date.now() - 1000).toISOString(),
    });
    await insertPost(s.id, {
      slug: "legal-privacy",
      post_type: "page",
      status: "published",
      published_at: new Date().toISOString(),
    });
    await sweep();
    expect(codes(await health(s, o))).not.toEqual(expect.arrayContaining(["nothing_published"]));
    expect(codes(await health(s, o))).not.toContain("no_legal_pages");
  });

  it("a page the legal generator placed under /legal/ (fields.secao = legal) counts, whatever its slug", async () => {
    const { site: s, owner: o } = await makeSite();
    await insertPost(s.id, {
      slug: "sobre",
      post_type: "page",
      status: "draft",
      fields: { secao: "institucional" },
    });
    await sweep();
    expect(codes(await health(s, o))).toContain("no_legal_pages");
    await insertPost(s.id, {
      slug: "politica-de-privacidade",
      post_type: "page",
      status: "draft",
      fields: { secao: "legal", documento_legal: "politica-de-privacidade", ordem: 1 },
    });
    await sweep();
    expect(codes(await health(s, o))).not.toContain("no_legal_pages");
  });
});

describe("the sweep", () => {
  it("pages through every visible site in bounded chunks; content's convergence is asked once, facts once per chunk", async () => {
    const made = await Promise.all(Array.from({ length: SWEEP_CHUNK + 2 }, () => makeSite()));
    const base = servicesFor();
    let stalledCalls = 0;
    const chunks: number[] = [];
    const services = {
      ...base,
      content: {
        ...base.content,
        stalledConvergence: async () => {
          stalledCalls++;
          return [];
        },
        healthFacts: async (ids: string[]) => {
          chunks.push(ids.length);
          return base.content.healthFacts(ids);
        },
      },
    };
    const swept = await sweepHealth(sitesEnv, services);
    expect(stalledCalls).toBe(1);
    expect(chunks.length).toBeGreaterThanOrEqual(2);
    expect(Math.max(...chunks)).toBeLessThanOrEqual(SWEEP_CHUNK);
    expect(chunks.reduce((a, b) => a + b, 0)).toBe(swept);
    for (const { site, owner } of made) expect((await health(site, owner)).cached).toBe(true);
  });

  it("a deleted site is not swept", async () => {
    const { site, owner } = await makeSite();
    await api("DELETE", `/api/v1/sites/${site.id}`, { headers: owner });
    await sweep();
    expect(await servicesFor().health!.read(site.id)).toBeNull();
  });

  it("content down or fleet unconfigured: those checks are marked unchecked, never reported as issues", async () => {
    const { site, owner } = await makeSite({ primary_domain: `down-${newRun()}.test` });
    const base = servicesFor();
    const broken = {
      ...base,
      content: {
        ...base.content,
        stalledConvergence: () => Promise.reject(new Error("down")),
        healthFacts: () => Promise.reject(new Error("down")),
      },
    };
    await sweepHealth({ ...sitesEnv, PLATFORM_IPV4: "", PLATFORM_IPV6: "" }, broken);
    const body = await health(site, owner);
    expect(body.unchecked?.sort()).toEqual(["content", "convergence", "dns"]);
    expect(codes(body).sort()).toEqual(["no_favicon", "no_logo"]);
  });
});
