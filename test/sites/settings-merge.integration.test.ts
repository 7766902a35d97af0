import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import type { SiteSettingsWriteResult } from "../../src/lib/rpc";
import {
  MAX_MERGE_ATTEMPTS,
  mergeSettingsDocument,
  mergeSiteSettings,
} from "../../src/sites/site/settings-merge";
import { contentDbOf } from "../support/content-groups";
import {
  api,
  forceStoredSettings,
  makeSite,
  servicesFor,
  sites,
  sitesEnv,
  storedSettings,
} from "../support/sites-helpers";

const stored = async (id: string) => JSON.parse((await storedSettings(id))!) as Record<string, unknown>;

async function siteWith(settings: unknown) {
  const made = await makeSite();
  await forceStoredSettings(made.site.id, typeof settings === "string" ? settings : JSON.stringify(settings));
  return made;
}

describe("RPC siteSettings", () => {
  it("the stored document of a live site, exactly as stored (no allowlist here: that is content's)", async () => {
    const doc = { integrations: { token: "x" }, social: { a: 1 }, future_key: true };
    const { site } = await siteWith(doc);
    expect(await sites.siteSettings(site.id)).toEqual({ settings: doc, unreadable: false });
    expect(await sites.siteSettings(site.id.toLowerCase())).toEqual({ settings: doc, unreadable: false });
  });

  it("a document that is not a JSON object is {} with unreadable", async () => {
    const { site } = await siteWith("[1]");
    expect(await sites.siteSettings(site.id)).toEqual({ settings: {}, unreadable: true });
  });

  it("null for a missing, deleted, archived or malformed id", async () => {
    const { site, owner } = await makeSite();
    await api("DELETE", `/api/v1/sites/${site.id}`, { headers: owner });
    expect(await sites.siteSettings(site.id)).toBeNull();
    const archived = await makeSite();
    await sitesEnv.DB.prepare("UPDATE sites SET status = 'archived' WHERE id = ?")
      .bind(archived.site.id)
      .run();
    expect(await sites.siteSettings(archived.site.id)).toBeNull();
    expect(await sites.siteSettings(newId())).toBeNull();
    expect(await sites.siteSettings("not-an-id")).toBeNull();
  });
});

describe("RPC mergeSiteSettings", () => {
  it("top-level merge: sent keys replace whole values, null removes, the rest is untouched; seo merges one level down", async () => {
    const { site } = await siteWith({
      social: { twitter: "t" },
      customization: { theme_base: "dark", layout: { radius: 4 } },
      search: { on: true },
      seo: { meta_title: "Old", google_site_verification: "tok" },
      integrations: { x: 1 },
    });
    const result = await sites.mergeSiteSettings({
      site_id: site.id,
      settings: { customization: { theme_base: "light" }, search: null, advanced: { a: 1 } },
      // `advanced` is markup (issue 19): the writer holds site:code.
      may_edit_markup: true,
      seo: { meta_title: null, meta_description: "D" },
    });
    const expected = {
      social: { twitter: "t" },
      customization: { theme_base: "light" },
      seo: { google_site_verification: "tok", meta_description: "D" },
      integrations: { x: 1 },
      advanced: { a: 1 },
    };
    expect(result).toEqual({ ok: true, settings: expected });
    expect(await stored(site.id)).toEqual(expected);
  });

  it("a refusal is data with the PATCH's code, status and detail, and nothing is stored", async () => {
    const doc = { social: { a: 1 } };
    const { site, owner } = await siteWith(doc);
    const before = await storedSettings(site.id);
    const result = (await sites.mergeSiteSettings({
      site_id: site.id,
      settings: { customization: { layout: { radius: 100 } } },
    })) as Extract<SiteSettingsWriteResult, { ok: false }>;
    expect(result.ok).toBe(false);
    expect(await storedSettings(site.id)).toBe(before);
    const patch = await api<{ code: string; detail: string; details: unknown }>(
      "PATCH",
      `/api/v1/sites/${site.id}`,
      {
        headers: owner,
        body: { settings: { ...doc, customization: { layout: { radius: 100 } } } },
      },
    );
    expect(result).toEqual({
      ok: false,
      code: "CUSTOMIZATION_LAYOUT_OUT_OF_RANGE",
      status: 400,
      detail: patch.body.detail,
      details: { path: "settings.customization.layout.radius" },
    });
    expect(patch.body.details).toEqual({ path: "settings.customization.layout.radius" });
    expect(patch.status).toBe(400);
    expect(patch.body.code).toBe("CUSTOMIZATION_LAYOUT_OUT_OF_RANGE");
  });

  it("a __proto__ key is refused like the PATCH refuses it (an own key, never the prototype)", async () => {
    const { site } = await siteWith({});
    const patch = JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
    const result = await sites.mergeSiteSettings({ site_id: site.id, settings: patch });
    expect(result).toMatchObject({ ok: false, code: "BAD_REQUEST", status: 400 });
    const merged = mergeSettingsDocument({ a: 1 }, { settings: patch });
    expect(Object.hasOwn(merged, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("SETTINGS_UNREADABLE (409) when the stored document is not a JSON object", async () => {
    const { site } = await siteWith("42");
    expect(await sites.mergeSiteSettings({ site_id: site.id, settings: { social: {} } })).toMatchObject({
      ok: false,
      code: "SETTINGS_UNREADABLE",
      status: 409,
    });
    expect(await storedSettings(site.id)).toBe("42");
  });

  it("IMAGEM_EXTERNA_INVALIDA (422) with invalid_images for a new image ingest refuses for good", async () => {
    const { site } = await siteWith({});
    const result = await sites.mergeSiteSettings({
      site_id: site.id,
      seo: { default_og_image: "https://img.test/missing.png" },
    });
    expect(result).toMatchObject({
      ok: false,
      code: "IMAGEM_EXTERNA_INVALIDA",
      status: 422,
      invalid_images: [
        { path: "settings.seo.default_og_image", url: "https://img.test/missing.png", reason: "http_404" },
      ],
    });
    expect(await stored(site.id)).toEqual({});
  });

  it("only new images are ingested: a stored external URL elsewhere in the document is left as it is", async () => {
    const { site } = await siteWith({ logo_url: "https://img.test/slow.png" });
    const started = Date.now();
    const result = await sites.mergeSiteSettings({ site_id: site.id, settings: { social: { a: 1 } } });
    // No wait on the slow stored logo (the PATCH would re-ingest it, up to the ingest wait).
    expect(Date.now() - started).toBeLessThan(1000);
    expect(result).toEqual({
      ok: true,
      settings: { logo_url: "https://img.test/slow.png", social: { a: 1 } },
    });
  });

  it("NOT_FOUND (404) for a missing, deleted or malformed site; nothing written", async () => {
    const { site, owner } = await makeSite();
    await api("DELETE", `/api/v1/sites/${site.id}`, { headers: owner });
    const before = await storedSettings(site.id);
    for (const id of [site.id, newId(), "nope"]) {
      expect(await sites.mergeSiteSettings({ site_id: id, settings: { social: {} } })).toMatchObject({
        ok: false,
        code: "NOT_FOUND",
        status: 404,
      });
    }
    expect(await storedSettings(site.id)).toBe(before);
  });

  it("a merged document above 1 MiB is PAYLOAD_TOO_LARGE (413), nothing stored", async () => {
    const big = "x".repeat(700 * 1024);
    const { site } = await siteWith({ about_html: big });
    const result = await sites.mergeSiteSettings({
      site_id: site.id,
      settings: { advanced: { blob: big } },
      may_edit_markup: true,
    });
    expect(result).toMatchObject({ ok: false, code: "PAYLOAD_TOO_LARGE", status: 413 });
    expect(Object.keys(await stored(site.id))).toEqual(["about_html"]);
  });

  it("invalidates the host cache and pushes content's projection, as the PATCH does", async () => {
    const { site } = await makeSite();
    const host = `${site.slug}.sites.localhost`;
    const byHost = async () =>
      (await api<{ settings: Record<string, unknown> }>("GET", `/api/v1/sites/by-host?host=${host}`)).body;
    expect((await byHost()).settings).toEqual({});
    expect(await sites.mergeSiteSettings({ site_id: site.id, settings: { social: { a: 1 } } })).toMatchObject(
      {
        ok: true,
      },
    );
    expect((await byHost()).settings).toEqual({ social: { a: 1 } });
    const row = await sitesEnv.DB.prepare("SELECT updated_at FROM sites WHERE id = ?")
      .bind(site.id)
      .first<{ updated_at: string }>();
    const projection = await (await contentDbOf(site.id))
      .prepare("SELECT updated_at FROM sites WHERE id = ?")
      .bind(site.id)
      .first<{ updated_at: string }>();
    expect(projection?.updated_at).toBe(row?.updated_at);
    expect(row?.updated_at).not.toBe(site.updated_at);
  });

  it("concurrent merges never lose each other's keys", async () => {
    const { site } = await siteWith({ base: 1 });
    // Eight declared free-form keys (keys the settings schema does not declare are refused, issue 31).
    const keys = [
      "social",
      "footer_columns",
      "legal_links",
      "search",
      "menu",
      "cookies",
      "integrations",
      "colors",
    ];
    const results = await Promise.all(
      keys.map((k) => sites.mergeSiteSettings({ site_id: site.id, settings: { [k]: k } })),
    );
    expect(results.every((r) => r.ok)).toBe(true);
    expect(await stored(site.id)).toEqual({ base: 1, ...Object.fromEntries(keys.map((k) => [k, k])) });
  });

  it(`EDIT_CONFLICT (409) when the document changes under every one of ${MAX_MERGE_ATTEMPTS} attempts`, async () => {
    const { site } = await siteWith({});
    // A database whose settings change between each read and the compare-and-swap.
    let writes = 0;
    const racingDb = new Proxy(sitesEnv.DB, {
      get(target, prop) {
        if (prop === "prepare") {
          return (sql: string) => {
            const statement = target.prepare(sql);
            // The compare-and-swap (swapSettings), as the query builder writes it.
            if (!/^update "?sites"? set "?settings"? = \?/i.test(sql)) return statement;
            return {
              bind: (...args: unknown[]) => ({
                run: async () => {
                  writes++;
                  await target
                    .prepare("UPDATE sites SET settings = ? WHERE id = ?")
                    .bind(JSON.stringify({ other: writes }), site.id)
                    .run();
                  return statement.bind(...args).run();
                },
              }),
            };
          };
        }
        const value = Reflect.get(target, prop) as unknown;
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const racingEnv = { ...sitesEnv, DB: racingDb };
    await expect(
      mergeSiteSettings(racingEnv, servicesFor(racingEnv), { site_id: site.id, settings: { social: {} } }),
    ).rejects.toMatchObject({ code: "EDIT_CONFLICT", status: 409 });
    expect(writes).toBe(MAX_MERGE_ATTEMPTS);
    expect(await stored(site.id)).toEqual({ other: MAX_MERGE_ATTEMPTS });
  });
});
