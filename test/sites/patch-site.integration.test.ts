import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { ApiError } from "../../src/lib/problem";
import { patchSite } from "../../src/sites/site/service";
import { getSite } from "../../src/sites/site/store";
import {
  api,
  forceStoredSettings,
  makeSite,
  proveHosts,
  type SiteBody,
  service,
  servicesFor,
  sitesEnv,
  storedRow,
  storedSettings,
  uniqueDomain,
  uniqueSlug,
} from "../support/sites-helpers";

const patch = (id: string, headers: Record<string, string>, body: unknown) =>
  api<SiteBody & { code?: string }>("PATCH", `/api/v1/sites/${id}`, { headers, body });

describe("PATCH /v1/sites/{id}", () => {
  it("only present fields apply", async () => {
    const { site, owner } = await makeSite({ settings: { customization: { layout: { radius: 4 } } } });
    const res = await patch(site.id, owner, { name: "New name" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: "New name",
      slug: site.slug,
      settings: site.settings,
      default_language: site.default_language,
    });
    expect(res.body.updated_at >= site.updated_at).toBe(true);
  });

  it("updates slug, languages and theme", async () => {
    const { site, owner } = await makeSite();
    const slug = uniqueSlug("renamed");
    const res = await patch(site.id, owner, {
      slug,
      default_language: "pt-BR",
      languages: ["en", "es"],
      theme: "aurora",
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      slug,
      canonical_host: `${slug}.sites.localhost`,
      default_language: "pt-BR",
      languages: ["pt-BR", "en", "es"],
      theme: "aurora",
    });
    const cleared = await patch(site.id, owner, { theme: null });
    expect(cleared.body.theme).toBeNull();
  });

  it("an empty body changes nothing", async () => {
    const { site, owner } = await makeSite();
    const res = await patch(site.id, owner, {});
    expect(res.status).toBe(200);
    expect(res.body).toEqual(site);
  });

  it("settings REPLACES the whole document (no merge)", async () => {
    const { site, owner } = await makeSite({
      settings: { customization: { layout: { radius: 4 } }, about_html: "<p>about</p>" },
    });
    const res = await patch(site.id, owner, { settings: { customization: { theme_base: "dark" } } });
    expect(res.status).toBe(200);
    expect(res.body.settings).toEqual({ customization: { theme_base: "dark" } });
    expect(JSON.parse((await storedSettings(site.id))!)).toEqual({ customization: { theme_base: "dark" } });
  });

  it("concurrent settings PATCHes: each replaces the whole document; the result is exactly one of them", async () => {
    const { site, owner } = await makeSite();
    const docs = Array.from({ length: 6 }, (_, i) => ({
      customization: { layout: { radius: i } },
      header: { model: i % 2 ? "split-nav" : "auto" },
      ...(i % 2 ? { about_html: `<p>${i}</p>` } : { menu: [{ label: `m${i}`, href: "/" }] }),
    }));
    const results = await Promise.all(docs.map((settings) => patch(site.id, owner, { settings })));
    expect(results.map((r) => r.status)).toEqual(docs.map(() => 200));
    const stored = JSON.parse((await storedSettings(site.id))!);
    expect(docs).toContainEqual(stored);
  });

  it("PATCH racing DELETE: the site ends deleted with its data and hosts; no PATCH lands afterwards", async () => {
    const primary = uniqueDomain();
    const { site, owner } = await makeSite({ primary_domain: primary });
    const [patched, deleted] = await Promise.all([
      patch(site.id, owner, { name: "racing", primary_domain: uniqueDomain() }),
      api("DELETE", `/api/v1/sites/${site.id}`, { headers: owner }),
    ]);
    expect(deleted.status).toBe(204);
    expect([200, 404]).toContain(patched.status);
    const row = await storedRow(site.id);
    expect(row?.status).toBe("deleted");
    if (patched.status === 404) expect(row?.name).toBe(site.name);
    const hosts = await sitesEnv.DB.prepare("SELECT host FROM site_hosts WHERE site_id = ?")
      .bind(site.id)
      .all<{ host: string }>();
    expect(hosts.results).toHaveLength(1);
    expect(hosts.results[0]!.host).toBe(patched.status === 200 ? patched.body.primary_domain : primary);
  });

  describe("settings refused by the validator: 400 with its code, NOTHING stored", () => {
    const cases: [string, unknown, string][] = [
      [
        "layout radius 65",
        { customization: { layout: { radius: 65 } } },
        "CUSTOMIZATION_LAYOUT_OUT_OF_RANGE",
      ],
      ["javascript: logo_url", { logo_url: "javascript:alert(1)" }, "SETTINGS_INVALID_ASSET_URL"],
      ["11 modals", { modals: Array.from({ length: 11 }, (_, i) => ({ id: `m${i}` })) }, "MODALS_TOO_MANY"],
      ["ads html unit", { ads: { units: [{ id: "a", type: "html" }] } }, "ADS_UNIT_HTML_RETIRED"],
    ];
    for (const [label, settings, code] of cases) {
      it(label, async () => {
        const { site, owner } = await makeSite({ settings: { customization: { layout: { radius: 4 } } } });
        const before = await storedRow(site.id);
        const res = await patch(site.id, owner, { settings, name: "should not apply" });
        expect(res.status).toBe(400);
        expect(res.body.code).toBe(code);
        expect(typeof (res.body as unknown as { detail: string }).detail).toBe("string");
        expect(await storedRow(site.id)).toEqual(before);
      });
    }
  });

  it("settings that is not an object is 400 and nothing is stored", async () => {
    const { site, owner } = await makeSite();
    const before = await storedRow(site.id);
    const res = await patch(site.id, owner, { settings: [1, 2] });
    expect(res.status).toBe(400);
    expect(await storedRow(site.id)).toEqual(before);
  });

  describe("stored settings that are not a JSON object", () => {
    for (const raw of ["[1,2]", "not json", "null", '"text"']) {
      it(`${raw}: read as {} with settings_unreadable`, async () => {
        const { site, owner } = await makeSite();
        await forceStoredSettings(site.id, raw);
        const res = await api<SiteBody>("GET", `/api/v1/sites/${site.id}`, { headers: owner });
        expect(res.status).toBe(200);
        expect(res.body.settings).toEqual({});
        expect(res.body.settings_unreadable).toBe(true);
      });
    }

    it("a PATCH carrying settings is 409 SETTINGS_UNREADABLE and writes nothing", async () => {
      const { site, owner } = await makeSite();
      await forceStoredSettings(site.id, "[1,2]");
      const before = await storedRow(site.id);
      const res = await patch(site.id, owner, { settings: {}, name: "not applied" });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe("SETTINGS_UNREADABLE");
      expect(await storedRow(site.id)).toEqual(before);
    });

    it("a PATCH without settings proceeds and leaves the stored document alone", async () => {
      const { site, owner } = await makeSite();
      await forceStoredSettings(site.id, "[1,2]");
      const res = await patch(site.id, owner, { name: "Applied" });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ name: "Applied", settings: {}, settings_unreadable: true });
      expect(await storedSettings(site.id)).toBe("[1,2]");
    });

    it("a readable document has no settings_unreadable flag", async () => {
      const { site } = await makeSite();
      expect(site).not.toHaveProperty("settings_unreadable");
    });
  });

  describe("domains", () => {
    it("sets the primary domain and aliases, then removes the primary with null", async () => {
      const { site, owner } = await makeSite();
      const primary = uniqueDomain();
      const alias = uniqueDomain("alias");
      const res = await patch(site.id, owner, {
        primary_domain: primary,
        aliases: [alias, alias.toUpperCase()],
      });
      expect(res.status).toBe(200);
      // The canonical host follows the primary domain once proved (docs/decisions/host-proof.md).
      expect(res.body).toMatchObject({
        primary_domain: primary,
        aliases: [alias],
        canonical_host: `${site.slug}.sites.localhost`,
      });
      await proveHosts(owner, primary);
      const proved = await api<SiteBody>("GET", `/api/v1/sites/${site.id}`, { headers: owner });
      expect(proved.body.canonical_host).toBe(primary);
      const removed = await patch(site.id, owner, { primary_domain: null });
      expect(removed.body).toMatchObject({
        primary_domain: null,
        aliases: [alias],
        canonical_host: `${site.slug}.sites.localhost`,
      });
    });

    it("promoting an alias to primary drops it from the aliases", async () => {
      const alias = uniqueDomain("alias");
      const { site, owner } = await makeSite({ primary_domain: uniqueDomain(), aliases: [alias] });
      const res = await patch(site.id, owner, { primary_domain: alias });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ primary_domain: alias, aliases: [] });
    });

    it("a released domain can be taken by another site", async () => {
      const domain = uniqueDomain();
      const { site, owner } = await makeSite({ primary_domain: domain });
      await patch(site.id, owner, { primary_domain: null });
      await makeSite({ primary_domain: domain });
    });

    it("409 DOMAIN_TAKEN for another site's primary domain or alias; nothing written", async () => {
      const takenPrimary = uniqueDomain();
      const takenAlias = uniqueDomain("alias");
      await makeSite({ primary_domain: takenPrimary, aliases: [takenAlias] });
      const { site, owner } = await makeSite();
      const before = await storedRow(site.id);
      for (const body of [
        { primary_domain: takenPrimary, name: "x" },
        { aliases: [takenAlias], name: "x" },
        { aliases: [uniqueDomain(), takenPrimary], name: "x" },
      ]) {
        const res = await patch(site.id, owner, body);
        expect(res.status).toBe(409);
        expect(res.body.code).toBe("DOMAIN_TAKEN");
      }
      expect(await storedRow(site.id)).toEqual(before);
    });

    it("409 SLUG_TAKEN for another site's slug", async () => {
      const { site: other } = await makeSite();
      const { site, owner } = await makeSite();
      const before = await storedRow(site.id);
      const res = await patch(site.id, owner, { slug: other.slug, name: "not applied" });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe("SLUG_TAKEN");
      expect(await storedRow(site.id)).toEqual(before);
    });

    it("two sites claiming one domain at once: exactly one wins", async () => {
      const domain = uniqueDomain("race");
      const made = await Promise.all(Array.from({ length: 5 }, () => makeSite()));
      const results = await Promise.all(
        made.map(({ site, owner }) => patch(site.id, owner, { primary_domain: domain })),
      );
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      expect(results.filter((r) => r.status === 409 && r.body.code === "DOMAIN_TAKEN")).toHaveLength(4);
    });

    it("a PATCH landing after a concurrent delete writes nothing: the deleted site keeps its hosts", async () => {
      const primary = uniqueDomain();
      const alias = uniqueDomain("alias");
      const { site, owner } = await makeSite({ primary_domain: primary, aliases: [alias] });
      // The row as the guard loaded it, before the delete committed.
      const loaded = await getSite(sitesEnv.DB, site.id);
      expect((await api("DELETE", `/api/v1/sites/${site.id}`, { headers: owner })).status).toBe(204);
      const deletedRow = await storedRow(site.id);
      const late = await patchSite(
        sitesEnv,
        servicesFor(),
        loaded!,
        {
          primary_domain: uniqueDomain(),
          aliases: [],
          name: "late",
        },
        true,
      ).catch((e: unknown) => e);
      expect(late).toBeInstanceOf(ApiError);
      expect((late as ApiError).status).toBe(404);
      expect(await storedRow(site.id)).toEqual(deletedRow);
      // Still reserved: another site cannot take them.
      for (const domain of [primary, alias]) {
        const res = await api("POST", "/api/v1/sites", {
          headers: service,
          body: { org_id: newId(), name: "x", slug: uniqueSlug(), primary_domain: domain },
        });
        expect(res.body.code, domain).toBe("DOMAIN_TAKEN");
      }
    });

    it("21 aliases is 400; 20 pass", async () => {
      const { site, owner } = await makeSite();
      const twenty = Array.from({ length: 20 }, () => uniqueDomain("a"));
      expect((await patch(site.id, owner, { aliases: twenty })).status).toBe(200);
      const res = await patch(site.id, owner, { aliases: [...twenty, uniqueDomain("a")] });
      expect(res.status).toBe(400);
    });

    it("an alias equal to the primary domain is 400", async () => {
      const primary = uniqueDomain();
      const { site, owner } = await makeSite({ primary_domain: primary });
      expect((await patch(site.id, owner, { aliases: [primary] })).status).toBe(400);
    });
  });

  describe("400 BAD_REQUEST", () => {
    const cases: [string, unknown][] = [
      ["unknown field", { status: "deleted" }],
      ["org_id is not patchable", { org_id: newId() }],
      ["empty name", { name: "" }],
      ["bad slug", { slug: "Not A Slug" }],
      ["bad domain", { primary_domain: "bad domain" }],
      ["bad language", { default_language: "??" }],
      ["theme not a string", { theme: 5 }],
    ];
    for (const [label, body] of cases) {
      it(label, async () => {
        const { site, owner } = await makeSite();
        const before = await storedRow(site.id);
        const res = await patch(site.id, owner, body);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe("BAD_REQUEST");
        expect(await storedRow(site.id)).toEqual(before);
      });
    }
  });
});
