/** Spec "Themes of a site": gallery, save the look, apply, undo, delete an organization theme. */
import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import {
  api,
  forceStoredSettings,
  makeSite,
  purgeCount,
  type SiteBody,
  sitesEnv,
  storedRow,
  storedSettings,
} from "../support/sites-helpers";
import { LOOK, storeTheme, type ThemeBody, themeSlug } from "../support/theme-helpers";

const themes = (siteId: string) => `/api/v1/sites/${siteId}/themes`;

/** Settings holding a look and everything a look must never carry. */
const SETTINGS = {
  logo_url: "/logo.png",
  menu: { items: [{ label: "Home", href: "/" }] },
  seo: { meta_title: "Mine", default_og_image: "/og.png" },
  code_injection: { head: "<script>track()</script>" },
  ads: { units: [] },
  modals: [],
  applets: { forms: { enabled: true } },
  cookies: { banner: true },
  legal: { perfil: "empresa", setor: "ecommerce" },
  customization: {
    theme_base: "dark",
    colors: { bg: "#000000", text: "#ffffff", primary: "#8ab4f8", accent: "#f28b82" },
    typography: { font_primary: "Inter" },
    layout: { radius: 4 },
  },
  custom_css: "body{}",
  header: { model: "classic-centered", cta: { label: "Buy", href: "/buy" } },
  footer: { model: "minimal-centered", cta: { label: "Join", href: "/join" } },
  home: {
    blocks: [
      { type: "hero", variant: "big", title: "Our news" },
      { type: "html", html: "<p>mine</p>" },
      { type: "posts", source: { filter: { language: "en", category_slugs: ["secret"], tag_slugs: ["t"] } } },
    ],
  },
};

async function snapshotCount(siteId: string): Promise<number> {
  const row = await sitesEnv.DB.prepare("SELECT COUNT(*) AS n FROM theme_snapshots WHERE site_id = ?")
    .bind(siteId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

async function saveTheme(siteId: string, owner: Record<string, string>, body: Record<string, unknown> = {}) {
  return api<ThemeBody>("POST", themes(siteId), {
    headers: owner,
    body: { name: "My look", slug: themeSlug(), ...body },
  });
}

function settingsOf(raw: string | null): Record<string, unknown> {
  return JSON.parse(raw ?? "{}") as Record<string, unknown>;
}

describe("POST /v1/sites/{id}/themes (save the look)", () => {
  it("201: an org theme of the owner organization, version 1.0.0, the look cut and content removed", async () => {
    const { site, owner, orgId } = await makeSite({ settings: SETTINGS });
    const res = await saveTheme(site.id, owner, { name: "  Night  ", description: "Dark and calm" });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ scope: "org", org_id: orgId, version: "1.0.0", name: "Night" });
    expect(res.body.package).toEqual({
      customization: {
        theme_base: "dark",
        colors: { bg: "#000000", text: "#ffffff", primary: "#8ab4f8", accent: "#f28b82" },
        typography: { font_primary: "Inter" },
        layout: { radius: 4 },
      },
      header: { model: "classic-centered" },
      footer: { model: "minimal-centered" },
      home: {
        blocks: [
          { type: "hero", variant: "big" },
          { type: "posts", source: { filter: { language: "en" } } },
        ],
      },
    });
    expect(res.text).not.toMatch(/secret|track|Buy|Join|mine|Our news/);
  });

  it("400 BAD_REQUEST: an unknown body field, org_id included, or a missing name", async () => {
    const { site, owner } = await makeSite({ settings: SETTINGS });
    for (const body of [{ org_id: newId() }, { version: "2.0.0" }, { bogus: 1 }]) {
      const res = await saveTheme(site.id, owner, body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("BAD_REQUEST");
    }
    const res = await api("POST", themes(site.id), { headers: owner, body: { slug: "x" } });
    expect(res.body.code).toBe("BAD_REQUEST");
  });

  it("THEME_INVALID_NAME and THEME_INVALID_SLUG", async () => {
    const { site, owner } = await makeSite({ settings: SETTINGS });
    for (const name of ["", "   ", "a".repeat(81), "tab\tname"]) {
      expect((await saveTheme(site.id, owner, { name })).body.code, name).toBe("THEME_INVALID_NAME");
    }
    expect((await saveTheme(site.id, owner, { name: "a".repeat(80) })).status).toBe(201);
    for (const slug of ["", "Upper", "-x", "x-", "a b", "a".repeat(64), "ção"]) {
      expect((await saveTheme(site.id, owner, { slug })).body.code, slug).toBe("THEME_INVALID_SLUG");
    }
  });

  it("THEME_EMPTY: a site without a look (or only content) has nothing to save", async () => {
    const { site, owner } = await makeSite({
      settings: {
        menu: { items: [] },
        header: { cta: { label: "x", href: "/x" } },
        home: { blocks: [{ type: "html", html: "<b>x</b>" }] },
      },
    });
    const res = await saveTheme(site.id, owner);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("THEME_EMPTY");
  });

  it("CUSTOMIZATION_INVALID_SHAPE: stored customization not an object", async () => {
    const { site, owner } = await makeSite();
    await sitesEnv.DB.prepare("UPDATE sites SET settings = ? WHERE id = ?")
      .bind(JSON.stringify({ customization: "dark" }), site.id)
      .run();
    const res = await saveTheme(site.id, owner);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("CUSTOMIZATION_INVALID_SHAPE");
  });

  it("409 THEME_SLUG_TAKEN within the organization; another organization may reuse the slug", async () => {
    const { site, owner, orgId } = await makeSite({ settings: SETTINGS });
    const slug = themeSlug();
    expect((await saveTheme(site.id, owner, { slug })).status).toBe(201);
    const again = await saveTheme(site.id, owner, { slug });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("THEME_SLUG_TAKEN");
    const { site: sibling, owner: siblingOwner } = await makeSite({ settings: SETTINGS }, orgId);
    expect((await saveTheme(sibling.id, siblingOwner, { slug })).status).toBe(409);
    const other = await makeSite({ settings: SETTINGS });
    expect((await saveTheme(other.site.id, other.owner, { slug })).status).toBe(201);
  });

  it("concurrent saves with one slug: one 201, the rest 409", async () => {
    const { site, owner } = await makeSite({ settings: SETTINGS });
    const slug = themeSlug();
    const results = await Promise.all(Array.from({ length: 20 }, () => saveTheme(site.id, owner, { slug })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
  });
});

describe("GET /v1/sites/{id}/themes (gallery)", () => {
  it("platform themes and the owner organization's, never another organization's; undo_available", async () => {
    const { site, owner, orgId } = await makeSite({ settings: SETTINGS });
    const platform = await storeTheme({ scope: "platform", name: "Platform one" });
    const mine = await storeTheme({ scope: "org", org_id: orgId });
    const foreign = await storeTheme({ scope: "org", org_id: newId() });
    const backup = await storeTheme({ scope: "backup", org_id: orgId });
    const res = await api<{ items: ThemeBody[]; undo_available: boolean }>("GET", themes(site.id), {
      headers: owner,
    });
    expect(res.status).toBe(200);
    const ids = res.body.items.map((t) => t.id);
    expect(ids).toContain(platform);
    expect(ids).toContain(mine);
    expect(ids).not.toContain(foreign);
    expect(ids).not.toContain(backup);
    expect(res.body.items.every((t) => t.scope === "platform" || t.org_id === orgId)).toBe(true);
    expect(res.body.items.find((t) => t.id === mine)).toMatchObject({
      scope: "org",
      org_id: orgId,
      version: "1.0.0",
    });
    expect(res.body.undo_available).toBe(false);
    await api("POST", `${themes(site.id)}/apply`, { headers: owner, body: { theme_id: mine } });
    const after = await api<{ undo_available: boolean }>("GET", themes(site.id), { headers: owner });
    expect(after.body.undo_available).toBe(true);
  });
});

describe("POST /v1/sites/{id}/themes/apply", () => {
  it("writes only allowlist paths; every other key stays byte-identical; a snapshot kept; the cache purged", async () => {
    const { site, owner, orgId } = await makeSite({ settings: SETTINGS });
    // A key stored before the settings schema, inside a look container: not the theme's, so it stays.
    await forceStoredSettings(
      site.id,
      JSON.stringify({ ...SETTINGS, customization: { ...SETTINGS.customization, custom_css: "body{}" } }),
    );
    const themeId = await storeTheme(
      { scope: "org", org_id: orgId },
      { customization: { colors: LOOK.customization.colors }, footer: { model: "compact" } },
    );
    const before = settingsOf(await storedSettings(site.id));
    const purges = await purgeCount(site.id);
    const res = await api<SiteBody>("POST", `${themes(site.id)}/apply`, {
      headers: owner,
      body: { theme_id: themeId },
    });
    expect(res.status, res.text).toBe(200);
    const after = settingsOf(await storedSettings(site.id));
    expect(res.body.settings).toEqual(after);
    const customization = after.customization as Record<string, unknown>;
    expect(customization.colors).toEqual(LOOK.customization.colors);
    expect(customization.theme_base).toBe("dark");
    expect(customization.custom_css).toBe("body{}");
    expect(after.footer).toEqual({ model: "compact", cta: SETTINGS.footer.cta });
    for (const key of Object.keys(before).filter((k) => !["customization", "footer"].includes(k))) {
      expect(JSON.stringify(after[key]), key).toBe(JSON.stringify(before[key]));
    }
    expect(Object.keys(after)).toEqual(Object.keys(before));
    expect(await snapshotCount(site.id)).toBe(1);
    expect(await purgeCount(site.id)).toBeGreaterThan(purges);
  });

  it("apply -> undo restores the look exactly, absence included", async () => {
    const bare = {
      menu: { items: [{ label: "A", href: "/a" }] },
      header: { cta: { label: "x", href: "/x" } },
    };
    const { site, owner } = await makeSite({ settings: bare });
    const themeId = await storeTheme(
      { scope: "platform" },
      { ...LOOK, home: { blocks: [{ type: "divider" }] } },
    );
    const before = await storedSettings(site.id);
    expect(
      (await api("POST", `${themes(site.id)}/apply`, { headers: owner, body: { theme_id: themeId } })).status,
    ).toBe(200);
    const applied = settingsOf(await storedSettings(site.id));
    expect(applied.customization).toEqual(LOOK.customization);
    expect(applied.header).toEqual({ cta: bare.header.cta, model: "split-nav" });
    const undo = await api<SiteBody>("POST", `${themes(site.id)}/undo`, { headers: owner });
    expect(undo.status, undo.text).toBe(200);
    expect(await storedSettings(site.id)).toBe(before);
    expect(undo.body.settings).toEqual(bare);
    expect(await snapshotCount(site.id)).toBe(0);
  });

  it("undo goes back one step at a time; 11 applies keep the newest 10 snapshots", async () => {
    const { site, owner } = await makeSite({ settings: { footer: { model: "columns" } } });
    const models = ["auto", "columns", "minimal-centered", "compact"];
    const ids: string[] = [];
    for (let i = 0; i < 11; i++) {
      ids.push(
        await storeTheme(
          { scope: "platform" },
          { footer: { model: models[i % 4] }, layout: {}, customization: { layout: { radius: i } } },
        ),
      );
    }
    const history: string[] = [(await storedSettings(site.id)) ?? ""];
    for (const id of ids) {
      const res = await api("POST", `${themes(site.id)}/apply`, { headers: owner, body: { theme_id: id } });
      expect(res.status, res.text).toBe(200);
      history.push((await storedSettings(site.id)) ?? "");
    }
    expect(await snapshotCount(site.id)).toBe(10);
    for (let step = 10; step >= 1; step--) {
      const res = await api("POST", `${themes(site.id)}/undo`, { headers: owner });
      expect(res.status, res.text).toBe(200);
      expect(await storedSettings(site.id)).toBe(history[step]);
    }
    const none = await api("POST", `${themes(site.id)}/undo`, { headers: owner });
    expect(none.status).toBe(409);
    expect(none.body.code).toBe("THEME_NOTHING_TO_UNDO");
  });

  it("a result the validator refuses answers its code and stores nothing (no snapshot either)", async () => {
    const { site, owner } = await makeSite({ settings: SETTINGS });
    const themeId = await storeTheme({ scope: "platform" }, { customization: { layout: { radius: 99 } } });
    const before = await storedRow(site.id);
    const res = await api("POST", `${themes(site.id)}/apply`, {
      headers: owner,
      body: { theme_id: themeId },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("CUSTOMIZATION_LAYOUT_OUT_OF_RANGE");
    expect(await storedRow(site.id)).toEqual(before);
    expect(await snapshotCount(site.id)).toBe(0);
  });

  it("404 THEME_NOT_FOUND: another organization's, a backup, a snapshot's, a missing or a malformed id, alike", async () => {
    const { site, owner, orgId } = await makeSite({ settings: SETTINGS });
    const foreign = await storeTheme({ scope: "org", org_id: newId() });
    const backup = await storeTheme({ scope: "backup", org_id: orgId });
    const mine = await storeTheme({ scope: "org", org_id: orgId });
    await api("POST", `${themes(site.id)}/apply`, { headers: owner, body: { theme_id: mine } });
    const snapshot = await sitesEnv.DB.prepare("SELECT id FROM theme_snapshots WHERE site_id = ?")
      .bind(site.id)
      .first<{ id: string }>();
    const before = await storedRow(site.id);
    const missing = await api("POST", `${themes(site.id)}/apply`, {
      headers: owner,
      body: { theme_id: newId() },
    });
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe("THEME_NOT_FOUND");
    for (const theme_id of [foreign, backup, snapshot?.id, "not-a-theme", crypto.randomUUID()]) {
      const res = await api("POST", `${themes(site.id)}/apply`, { headers: owner, body: { theme_id } });
      expect(res.text, String(theme_id)).toBe(missing.text);
    }
    expect(await storedRow(site.id)).toEqual(before);
  });

  it("400 BAD_REQUEST: body without theme_id or with other fields", async () => {
    const { site, owner } = await makeSite();
    for (const body of [{}, { theme_id: newId(), org_id: newId() }, { theme_id: 5 }]) {
      const res = await api("POST", `${themes(site.id)}/apply`, { headers: owner, body });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("BAD_REQUEST");
    }
  });

  it("409 SETTINGS_UNREADABLE: stored settings not a JSON object; nothing written", async () => {
    const { site, owner } = await makeSite();
    const themeId = await storeTheme({ scope: "platform" });
    await sitesEnv.DB.prepare("UPDATE sites SET settings = '[1]' WHERE id = ?").bind(site.id).run();
    const res = await api("POST", `${themes(site.id)}/apply`, {
      headers: owner,
      body: { theme_id: themeId },
    });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("SETTINGS_UNREADABLE");
    expect(await storedSettings(site.id)).toBe("[1]");
  });

  it("concurrent applies on one site: all land, one snapshot each (at most 10 kept), no lost look", async () => {
    const { site, owner } = await makeSite({ settings: SETTINGS });
    const ids = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        storeTheme({ scope: "platform" }, { customization: { layout: { radius: i } } }),
      ),
    );
    const results = await Promise.all(
      ids.map((theme_id) => api("POST", `${themes(site.id)}/apply`, { headers: owner, body: { theme_id } })),
    );
    expect(results.map((r) => r.status)).toEqual(ids.map(() => 200));
    expect(await snapshotCount(site.id)).toBe(8);
    for (let i = 0; i < 8; i++)
      expect((await api("POST", `${themes(site.id)}/undo`, { headers: owner })).status).toBe(200);
    expect(settingsOf(await storedSettings(site.id))).toEqual(SETTINGS);
  });
});

describe("POST /v1/sites/{id}/themes/undo", () => {
  it("409 THEME_NOTHING_TO_UNDO without a snapshot", async () => {
    const { site, owner } = await makeSite();
    const res = await api("POST", `${themes(site.id)}/undo`, { headers: owner });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("THEME_NOTHING_TO_UNDO");
  });

  it("a snapshot that no longer passes the validator: 400 with its code, the snapshot kept", async () => {
    const { site, owner } = await makeSite({ settings: SETTINGS });
    const themeId = await storeTheme({ scope: "platform" });
    await api("POST", `${themes(site.id)}/apply`, { headers: owner, body: { theme_id: themeId } });
    await sitesEnv.DB.prepare("UPDATE theme_snapshots SET look_json = ? WHERE site_id = ?")
      .bind(JSON.stringify({ values: { "header.model": "retired-model" }, absent: [] }), site.id)
      .run();
    const before = await storedRow(site.id);
    const res = await api("POST", `${themes(site.id)}/undo`, { headers: owner });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("CUSTOMIZATION_INVALID_HEADER_MODEL");
    expect(await storedRow(site.id)).toEqual(before);
    expect(await snapshotCount(site.id)).toBe(1);
  });
});

describe("DELETE /v1/sites/{id}/themes/{theme_id}", () => {
  it("204: the owner organization's theme is gone from the gallery; sites that applied it keep the look", async () => {
    const { site, owner, orgId } = await makeSite({ settings: SETTINGS });
    const saved = await saveTheme(site.id, owner);
    const { site: other, owner: otherOwner } = await makeSite({}, orgId);
    await api("POST", `${themes(other.id)}/apply`, {
      headers: otherOwner,
      body: { theme_id: saved.body.id },
    });
    const look = await storedSettings(other.id);
    const res = await api("DELETE", `${themes(site.id)}/${saved.body.id}`, { headers: owner });
    expect(res.status).toBe(204);
    expect(await storedSettings(other.id)).toBe(look);
    const gallery = await api<{ items: ThemeBody[] }>("GET", themes(site.id), { headers: owner });
    expect(gallery.body.items.map((t) => t.id)).not.toContain(saved.body.id);
    const again = await api("DELETE", `${themes(site.id)}/${saved.body.id}`, { headers: owner });
    expect(again.body.code).toBe("THEME_NOT_FOUND");
  });

  it("404 THEME_NOT_FOUND alike for platform, backup, another organization's, missing and malformed ids; nothing deleted", async () => {
    const { site, owner, orgId } = await makeSite();
    const ids = [
      await storeTheme({ scope: "platform" }),
      await storeTheme({ scope: "backup", org_id: orgId }),
      await storeTheme({ scope: "org", org_id: newId() }),
    ];
    const missing = await api("DELETE", `${themes(site.id)}/${newId()}`, { headers: owner });
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe("THEME_NOT_FOUND");
    for (const id of [...ids, "not-a-theme", crypto.randomUUID()]) {
      const res = await api("DELETE", `${themes(site.id)}/${id}`, { headers: owner });
      expect(res.text, id).toBe(missing.text);
    }
    const { results } = await sitesEnv.DB.prepare("SELECT id FROM themes WHERE id IN (?, ?, ?)")
      .bind(...ids)
      .all();
    expect(results).toHaveLength(3);
  });
});
