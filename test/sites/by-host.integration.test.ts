import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { CLEAN_SVG } from "../support/settings-fixtures";
import {
  api,
  forceStoredSettings,
  makeSite,
  proveHosts,
  reader,
  type SiteBody,
  sitesEnv,
  uniqueDomain,
} from "../support/sites-helpers";

type PublicSite = Record<string, unknown> & { id: string; name: string; canonical_host: string };

const byHost = (host: string, headers: Record<string, string> = {}) =>
  api<PublicSite>("GET", `/api/v1/sites/by-host?host=${encodeURIComponent(host)}`, { headers });

describe("GET /v1/sites/by-host", () => {
  it("resolves <slug>.<platform domain>", async () => {
    const { site } = await makeSite();
    const res = await byHost(`${site.slug}.sites.localhost`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: site.id, slug: site.slug, canonical_host: site.canonical_host });
  });

  it("resolves the primary domain and each alias (case and port ignored)", async () => {
    const primary = uniqueDomain();
    const alias = uniqueDomain("alias");
    const { site, owner } = await makeSite({ primary_domain: primary, aliases: [alias] });
    await proveHosts(owner, primary, alias);
    for (const host of [primary, alias, primary.toUpperCase(), `${alias}:443`, `${primary}.`]) {
      const res = await byHost(host);
      expect(res.status, host).toBe(200);
      expect(res.body.id).toBe(site.id);
      expect(res.body.canonical_host).toBe(primary);
    }
  });

  it("is public (no edge headers, reader sessions too) and never shows the owner organization", async () => {
    const { site } = await makeSite();
    for (const headers of [{}, reader()]) {
      const res = await byHost(`${site.slug}.sites.localhost`, headers);
      expect(res.status).toBe(200);
      expect(res.body).not.toHaveProperty("org_id");
      expect(res.body).not.toHaveProperty("status_reason");
      expect(res.body).toHaveProperty("settings");
    }
  });

  it("an unknown host is 404", async () => {
    const res = await byHost(uniqueDomain("nobody"));
    expect(res.status).toBe(404);
    expect(res.body.code).toBe("NOT_FOUND");
  });

  it("a deleted site no longer serves its hosts", async () => {
    const primary = uniqueDomain();
    const { site, owner } = await makeSite({ primary_domain: primary });
    await proveHosts(owner, primary);
    expect((await byHost(primary)).status).toBe(200);
    await api("DELETE", `/api/v1/sites/${site.id}`, { headers: owner });
    expect((await byHost(primary)).status).toBe(404);
    expect((await byHost(`${site.slug}.sites.localhost`)).status).toBe(404);
  });

  describe("cache in KV with invalidation on change", () => {
    it("a hit is served from KV", async () => {
      const { site } = await makeSite();
      const host = `${site.slug}.sites.localhost`;
      await byHost(host);
      expect(await sitesEnv.CACHE.get(`host:${host}`, "json")).toMatchObject({ site: { id: site.id } });
    });

    it("a rename shows at once", async () => {
      const { site, owner } = await makeSite();
      const host = `${site.slug}.sites.localhost`;
      await byHost(host);
      await api("PATCH", `/api/v1/sites/${site.id}`, { headers: owner, body: { name: "Renamed" } });
      expect((await byHost(host)).body.name).toBe("Renamed");
    });

    it("a domain moved away stops resolving; the new one resolves (misses are invalidated too)", async () => {
      const oldDomain = uniqueDomain("old");
      const newDomain = uniqueDomain("new");
      const { site, owner } = await makeSite({ primary_domain: oldDomain });
      await proveHosts(owner, oldDomain);
      expect((await byHost(oldDomain)).status).toBe(200);
      expect((await byHost(newDomain)).status).toBe(404);
      const res = await api("PATCH", `/api/v1/sites/${site.id}`, {
        headers: owner,
        body: { primary_domain: newDomain },
      });
      expect(res.status).toBe(200);
      expect((await byHost(oldDomain)).status).toBe(404);
      // The new domain is served once proved (its cached miss is dropped then).
      expect((await byHost(newDomain)).status).toBe(404);
      await proveHosts(owner, newDomain);
      expect((await byHost(newDomain)).body.id).toBe(site.id);
    });

    it("a slug change moves the platform host", async () => {
      const { site, owner } = await makeSite();
      const oldHost = `${site.slug}.sites.localhost`;
      await byHost(oldHost);
      const slug = `moved-${newId().toLowerCase().slice(-8)}`;
      await api("PATCH", `/api/v1/sites/${site.id}`, { headers: owner, body: { slug } });
      expect((await byHost(oldHost)).status).toBe(404);
      expect((await byHost(`${slug}.sites.localhost`)).body.id).toBe(site.id);
    });

    it("a newly created site's host, once proved, is not hidden by a cached miss", async () => {
      const domain = uniqueDomain();
      expect((await byHost(domain)).status).toBe(404);
      const { site, owner } = await makeSite({ primary_domain: domain });
      expect((await byHost(domain)).status).toBe(404);
      await proveHosts(owner, domain);
      expect((await byHost(domain)).body.id).toBe(site.id);
    });
  });

  describe("400", () => {
    const cases: [string, string][] = [
      ["missing host", "/api/v1/sites/by-host"],
      ["empty host", "/api/v1/sites/by-host?host="],
      ["not a host", "/api/v1/sites/by-host?host=http%3A%2F%2Fx.example.com%2Fp"],
      ["single label", "/api/v1/sites/by-host?host=localhost"],
    ];
    for (const [label, path] of cases) {
      it(label, async () => {
        const res = await api("GET", path);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe("BAD_REQUEST");
      });
    }
  });

  describe("resolved_logo: the logo contract as the renderer shows it (dark falls back to light)", () => {
    const light = { sources: [{ type: "image/png", url: "/logo.png" }] };
    const dark = { sources: [{ type: "image/png", url: "/logo-dark.png" }] };
    const logo = { version: 1, alt: "Acme", width: 120, height: 40 };

    it("no dark variant: dark repeats light, flagged as a fallback; the stored document gets no dark", async () => {
      const { site, owner } = await makeSite({ settings: { logo: { ...logo, light } } });
      const res = await byHost(`${site.slug}.sites.localhost`);
      expect(res.body.resolved_logo).toEqual({
        alt: "Acme",
        width: 120,
        height: 40,
        light,
        dark: light,
        dark_is_fallback: true,
      });
      const read = await api<SiteBody>("GET", `/api/v1/sites/${site.id}`, { headers: owner });
      expect(read.body.settings.logo).toEqual({ ...logo, light });
    });

    it("a dark variant is used as is", async () => {
      const { site } = await makeSite({ settings: { logo: { ...logo, light, dark } } });
      const res = await byHost(`${site.slug}.sites.localhost`);
      expect(res.body.resolved_logo).toMatchObject({ light, dark, dark_is_fallback: false });
    });

    it("the markup form falls back the same way; an empty alt (decorative) stays empty", async () => {
      const { site } = await makeSite({
        settings: { logo: { ...logo, alt: "", light: { svg_markup: CLEAN_SVG } } },
      });
      const res = await byHost(`${site.slug}.sites.localhost`);
      expect(res.body.resolved_logo).toMatchObject({
        alt: "",
        light: { svg_markup: CLEAN_SVG },
        dark: { svg_markup: CLEAN_SVG },
        dark_is_fallback: true,
      });
    });

    it("null without a logo contract (legacy logo_svg applies), and for a stored logo off the contract", async () => {
      const { site } = await makeSite({ settings: { logo_svg: CLEAN_SVG } });
      const host = `${site.slug}.sites.localhost`;
      expect((await byHost(host)).body.resolved_logo).toBeNull();
      await forceStoredSettings(site.id, JSON.stringify({ logo: { version: 1, light: "x" } }));
      await sitesEnv.CACHE.delete(`host:${host}`);
      const res = await byHost(host);
      expect(res.status).toBe(200);
      expect(res.body.resolved_logo).toBeNull();
    });
  });
});
