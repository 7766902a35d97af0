/** Spec "Platform operator console": platform themes (list, create, replace, delete) and the contrast gate. */
import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { api, makeSite, orgMember, sitesEnv, storedSettings } from "../support/sites-helpers";
import {
  LOOK,
  operatorAdmin,
  operatorRead,
  storeTheme,
  type ThemeBody,
  themeSlug,
} from "../support/theme-helpers";

const PLATFORM = "/api/v1/platform/themes";

function input(overrides: Record<string, unknown> = {}) {
  return { name: "Calm", slug: themeSlug(), version: "1.0.0", package: LOOK, ...overrides };
}

function withColors(colors: Record<string, unknown>) {
  return input({ package: { customization: { colors } } });
}

async function create(body: unknown, headers = operatorAdmin) {
  return api<ThemeBody>("POST", PLATFORM, { headers, body });
}

describe("POST /v1/platform/themes", () => {
  it("201: a platform theme, cut and cleaned, in every site's gallery at once", async () => {
    const { site, owner } = await makeSite();
    const res = await create(
      input({
        description: "For everyone",
        preview_url: "https://cdn.example.com/preview.png",
        package: {
          ...LOOK,
          logo_url: "/x.png",
          header: { model: "split-nav", cta: { label: "Buy", href: "/b" } },
          home: {
            blocks: [
              { type: "html", html: "<p>x</p>" },
              { type: "posts", source: { filter: { language: "en", tag_slugs: ["a"] } } },
            ],
          },
        },
      }),
    );
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      scope: "platform",
      org_id: null,
      version: "1.0.0",
      description: "For everyone",
    });
    expect(res.body.package).toEqual({
      ...LOOK,
      home: { blocks: [{ type: "posts", source: { filter: { language: "en" } } }] },
    });
    const gallery = await api<{ items: ThemeBody[] }>("GET", `/api/v1/sites/${site.id}/themes`, {
      headers: owner,
    });
    expect(gallery.body.items.map((t) => t.id)).toContain(res.body.id);
    const list = await api<{ items: ThemeBody[] }>("GET", PLATFORM, { headers: operatorRead });
    expect(list.status).toBe(200);
    expect(list.body.items.map((t) => t.id)).toContain(res.body.id);
    expect(list.body.items.every((t) => t.scope === "platform")).toBe(true);
  });

  it("403 PLATFORM_FORBIDDEN: no capability, operator_read, or a member of any organization; nothing stored", async () => {
    const slug = themeSlug();
    for (const headers of [{}, operatorRead, orgMember(newId()), { "x-platform-operator": "root" }]) {
      const res = await create(input({ slug }), headers);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe("PLATFORM_FORBIDDEN");
    }
    const bad = await create({ nonsense: true }, operatorRead);
    expect(bad.body.code).toBe("PLATFORM_FORBIDDEN");
    expect(await sitesEnv.DB.prepare("SELECT 1 FROM themes WHERE slug = ?").bind(slug).first()).toBeNull();
    expect((await api("GET", PLATFORM, {})).body.code).toBe("PLATFORM_FORBIDDEN");
  });

  it("400 codes: BAD_REQUEST, THEME_INVALID_NAME, _SLUG, _VERSION, _PREVIEW_URL, THEME_EMPTY, validator codes", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ org_id: newId() }, "BAD_REQUEST"],
      [{ package: "x" }, "BAD_REQUEST"],
      [{ name: "" }, "THEME_INVALID_NAME"],
      [{ slug: "Bad Slug" }, "THEME_INVALID_SLUG"],
      [{ version: "1.0" }, "THEME_INVALID_VERSION"],
      [{ version: "01.0.0" }, "THEME_INVALID_VERSION"],
      [{ version: "v1.0.0" }, "THEME_INVALID_VERSION"],
      [{ preview_url: "http://cdn.example.com/p.png" }, "THEME_INVALID_PREVIEW_URL"],
      [{ preview_url: "javascript:alert(1)" }, "THEME_INVALID_PREVIEW_URL"],
      [{ preview_url: "https://user:pw@cdn.example.com/p.png" }, "THEME_INVALID_PREVIEW_URL"],
      [{ package: { menu: { items: [] }, header: { cta: { label: "x" } } } }, "THEME_EMPTY"],
      [{ package: { customization: "dark" } }, "CUSTOMIZATION_INVALID_SHAPE"],
      [
        { package: { ...LOOK, customization: { ...LOOK.customization, layout: { radius: 65 } } } },
        "CUSTOMIZATION_LAYOUT_OUT_OF_RANGE",
      ],
      [{ package: { ...LOOK, header: { model: "nope" } } }, "CUSTOMIZATION_INVALID_HEADER_MODEL"],
      [{ package: { ...LOOK, home: { blocks: [{ type: "carousel" }] } } }, "BUILDER_UNKNOWN_BLOCK"],
    ];
    for (const [overrides, code] of cases) {
      const res = await create(input(overrides));
      expect(res.status, JSON.stringify(overrides)).toBe(400);
      expect(res.body.code, JSON.stringify(overrides)).toBe(code);
    }
    for (const version of ["0.0.1", "2.10.3-beta.1", "1.0.0+build.5"]) {
      expect((await create(input({ version }))).status, version).toBe(201);
    }
  });

  describe("400 THEME_CONTRAST_INSUFFICIENT naming the failing pair, at values just above and below", () => {
    const base = { bg: "#ffffff", text: "#000000", primary: "#000000", accent: "#000000" };
    it("text on bg: 4.50 passes, 4.49 fails", async () => {
      expect((await create(withColors({ ...base, bg: "#c9c9c9", text: "#555555" }))).status).toBe(201);
      const res = await create(withColors({ ...base, bg: "#efefef", text: "#6d6d6d" }));
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("THEME_CONTRAST_INSUFFICIENT");
      expect(res.body.detail).toContain("text/bg");
      expect(res.body.details).toMatchObject({
        palette: "customization.colors",
        pair: "text/bg",
        ratio: 4.49,
      });
    });

    it.each(["primary", "accent"])("%s on bg: 3.00 passes, 2.99 fails", async (key) => {
      expect((await create(withColors({ ...base, bg: "#cfcfcf", [key]: "#747474" }))).status).toBe(201);
      const res = await create(withColors({ ...base, bg: "#e9e9e9", [key]: "#868686" }));
      expect(res.body.code).toBe("THEME_CONTRAST_INSUFFICIENT");
      expect(res.body.details).toMatchObject({ pair: `${key}/bg`, ratio: 2.99, required: 3 });
    });

    it("colors.dark when present, with the same thresholds", async () => {
      const dark = { bg: "#000000", text: "#ffffff", primary: "#ffffff", accent: "#ffffff" };
      expect((await create(withColors({ ...base, dark }))).status).toBe(201);
      const res = await create(
        withColors({
          ...base,
          dark: { bg: "#e9e9e9", text: "#000000", primary: "#000000", accent: "#868686" },
        }),
      );
      expect(res.body.code).toBe("THEME_CONTRAST_INSUFFICIENT");
      expect(res.body.details).toMatchObject({ palette: "customization.colors.dark", pair: "accent/bg" });
    });

    it("colors required with bg, text, primary and accent", async () => {
      const res = await create(input({ package: { footer: { model: "columns" } } }));
      expect(res.body.code).toBe("THEME_CONTRAST_INSUFFICIENT");
      expect((await create(withColors({ ...base, accent: undefined }))).body.code).toBe(
        "THEME_CONTRAST_INSUFFICIENT",
      );
      expect((await create(withColors({ ...base, bg: "#fff8" }))).body.code).toBe(
        "THEME_CONTRAST_INSUFFICIENT",
      );
      expect((await create(withColors({ ...base, bg: "white" }))).body.code).toBe(
        "CUSTOMIZATION_INVALID_COLOR",
      );
    });
  });

  it("409 THEME_SLUG_TAKEN among platform themes; an org theme's slug does not clash", async () => {
    const slug = themeSlug();
    await storeTheme({ scope: "org", org_id: newId(), slug });
    expect((await create(input({ slug }))).status).toBe(201);
    const again = await create(input({ slug }));
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("THEME_SLUG_TAKEN");
  });
});

describe("PUT /v1/platform/themes/{theme_id}", () => {
  it("200: replaces the theme entirely; sites that applied it are unchanged", async () => {
    const created = await create(input({ description: "old", preview_url: "https://cdn.example.com/a.png" }));
    const { site, owner } = await makeSite();
    await api("POST", `/api/v1/sites/${site.id}/themes/apply`, {
      headers: owner,
      body: { theme_id: created.body.id },
    });
    const look = await storedSettings(site.id);
    const slug = themeSlug();
    const pkg = {
      customization: { colors: { bg: "#000000", text: "#ffffff", primary: "#ffffff", accent: "#ffffff" } },
    };
    const res = await api<ThemeBody>("PUT", `${PLATFORM}/${created.body.id}`, {
      headers: operatorAdmin,
      body: { name: "New", slug, version: "2.0.0", package: pkg },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      id: created.body.id,
      name: "New",
      slug,
      version: "2.0.0",
      description: null,
      preview_url: null,
      package: pkg,
    });
    expect(await storedSettings(site.id)).toBe(look);
  });

  it("404 THEME_NOT_FOUND for an org theme, a backup, a missing or malformed id; 409 on a taken slug; 403 for operator_read", async () => {
    const ids = [
      await storeTheme({ scope: "org", org_id: newId() }),
      await storeTheme({ scope: "backup" }),
      newId(),
      "nope",
    ];
    for (const id of ids) {
      const res = await api("PUT", `${PLATFORM}/${id}`, { headers: operatorAdmin, body: input() });
      expect(res.status, id).toBe(404);
      expect(res.body.code).toBe("THEME_NOT_FOUND");
    }
    const a = await create(input());
    const b = await create(input());
    const clash = await api("PUT", `${PLATFORM}/${b.body.id}`, {
      headers: operatorAdmin,
      body: input({ slug: a.body.slug }),
    });
    expect(clash.status).toBe(409);
    expect(clash.body.code).toBe("THEME_SLUG_TAKEN");
    const weak = await api("PUT", `${PLATFORM}/${a.body.id}`, { headers: operatorRead, body: input() });
    expect(weak.body.code).toBe("PLATFORM_FORBIDDEN");
  });
});

describe("DELETE /v1/platform/themes/{theme_id}", () => {
  it("204: gone from every gallery; sites that applied it keep the look", async () => {
    const created = await create(input());
    const { site, owner } = await makeSite();
    await api("POST", `/api/v1/sites/${site.id}/themes/apply`, {
      headers: owner,
      body: { theme_id: created.body.id },
    });
    const look = await storedSettings(site.id);
    expect((await api("DELETE", `${PLATFORM}/${created.body.id}`, { headers: operatorRead })).status).toBe(
      403,
    );
    const res = await api("DELETE", `${PLATFORM}/${created.body.id}`, { headers: operatorAdmin });
    expect(res.status).toBe(204);
    const gallery = await api<{ items: ThemeBody[] }>("GET", `/api/v1/sites/${site.id}/themes`, {
      headers: owner,
    });
    expect(gallery.body.items.map((t) => t.id)).not.toContain(created.body.id);
    expect(await storedSettings(site.id)).toBe(look);
  });

  it("404 THEME_NOT_FOUND for an org theme, a backup, a missing or malformed id (nothing deleted)", async () => {
    const org = await storeTheme({ scope: "org", org_id: newId() });
    for (const id of [org, await storeTheme({ scope: "backup" }), newId(), "nope"]) {
      const res = await api("DELETE", `${PLATFORM}/${id}`, { headers: operatorAdmin });
      expect(res.status, id).toBe(404);
      expect(res.body.code).toBe("THEME_NOT_FOUND");
    }
    expect(await sitesEnv.DB.prepare("SELECT 1 FROM themes WHERE id = ?").bind(org).first()).not.toBeNull();
  });
});
