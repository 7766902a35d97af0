import { describe, expect, it } from "vitest";
import { validateSettings } from "../../src/sites/site/settings/validate-settings";
import { applyLook, cutLook, isEmptyLook, restoreLook, snapshotLook } from "../../src/sites/themes/package";
import { expectValid, expectViolation } from "../support/settings-fixtures";

const SITE = {
  logo_url: "/logo.png",
  menu: { items: [{ label: "Home", href: "/" }] },
  seo: { title: "Mine" },
  code_injection: { head: "<script>x()</script>" },
  customization: {
    theme_base: "dark",
    colors: {
      bg: "#000000",
      text: "#ffffff",
      primary: "#8ab4f8",
      accent: "#f28b82",
      brand_secret: "#123456",
      dark: { bg: "#000", x: "#fff" },
    },
    typography: { font_primary: "Inter", scale: 1.2 },
    layout: { radius: 4, container: "wide" },
    custom_css: "body{}",
  },
  header: { model: "split-nav", cta: { label: "Buy", href: "/buy" }, tagline: "hello" },
  footer: { model: "columns", cta: { label: "Join", href: "/join" } },
  home: {
    title: "Welcome",
    blocks: [
      { type: "hero", variant: "big", title: "Our news" },
      { type: "html", html: "<p>mine</p>" },
      {
        type: "posts",
        columns: 3,
        source: {
          filter: { language: "pt-BR", category_slugs: ["secret"], tag_slugs: ["x"] },
          limit: 6,
          extra: 1,
        },
      },
    ],
  },
};

describe("theme package: the cut", () => {
  it("keeps only the visual allowlist and removes content", () => {
    expect(cutLook(SITE)).toEqual({
      customization: {
        theme_base: "dark",
        colors: {
          bg: "#000000",
          text: "#ffffff",
          primary: "#8ab4f8",
          accent: "#f28b82",
          dark: { bg: "#000" },
        },
        typography: { font_primary: "Inter" },
        layout: { radius: 4 },
      },
      header: { model: "split-nav" },
      footer: { model: "columns" },
      home: {
        blocks: [
          { type: "hero", variant: "big" },
          { type: "posts", columns: 3, source: { filter: { language: "pt-BR" }, limit: 6 } },
        ],
      },
    });
  });

  it("a document without look paths (or only html blocks) is empty", () => {
    expect(isEmptyLook(cutLook({ menu: {}, header: { cta: { label: "x" } } }))).toBe(true);
    expect(isEmptyLook(cutLook({ home: { blocks: [{ type: "html", html: "<b>x</b>" }] } }))).toBe(true);
    expect(isEmptyLook(cutLook({ customization: { custom_css: "x", colors: { nope: "#fff" } } }))).toBe(true);
    expect(isEmptyLook(cutLook({ customization: { colors: { dark: { nope: "#fff" } } } }))).toBe(true);
    expect(isEmptyLook(cutLook({ footer: { model: "minimal-centered" } }))).toBe(false);
  });
});

describe("theme package: apply and restore", () => {
  const pkg = cutLook({
    customization: { colors: { bg: "#fff", text: "#000" } },
    footer: { model: "compact" },
  });

  it("writes only what the theme carries; every other key stays byte-identical and in place", () => {
    const next = applyLook(SITE, pkg);
    expect((next.customization as Record<string, unknown>).colors).toEqual({ bg: "#fff", text: "#000" });
    expect((next.footer as Record<string, unknown>).model).toBe("compact");
    expect((next.footer as Record<string, unknown>).cta).toEqual(SITE.footer.cta);
    expect(Object.keys(next)).toEqual(Object.keys(SITE));
    for (const key of ["logo_url", "menu", "seo", "code_injection", "header", "home"] as const) {
      expect(JSON.stringify(next[key])).toBe(JSON.stringify(SITE[key]));
    }
    expect(SITE.footer.model).toBe("columns");
  });

  it("restore brings each path back, absence included, and removes containers the apply created", () => {
    const bare = { menu: { items: [] }, header: { cta: { label: "x" } } };
    const snapshot = snapshotLook(bare);
    const applied = applyLook(bare, cutLook(SITE));
    expect(applied.customization).toBeDefined();
    expect(JSON.stringify(restoreLook(applied, snapshot))).toBe(JSON.stringify(bare));
    const full = applyLook(SITE, pkg);
    expect(JSON.stringify(restoreLook(full, snapshotLook(SITE)))).toBe(JSON.stringify(SITE));
  });
});

describe("settings: home page builder (BUILDER_*) and colors", () => {
  it("accepts the builder's blocks; keys the schema does not declare only as stored before (issue 31)", () => {
    const [hero, html] = SITE.home.blocks;
    const posts = { type: "posts", columns: 3, source: { filter: { language: "pt-BR" }, limit: 6 } };
    expectValid({ home: { blocks: [hero, html, posts] } });
    expectValid({ home: { blocks: [] } });
    expectViolation({ home: SITE.home }, "SETTINGS_UNKNOWN_KEY", "settings.home.title");
    expect(validateSettings({ home: SITE.home }, { home: SITE.home }).ok).toBe(true);
  });

  it("refuses what is not a builder document", () => {
    expectViolation({ home: [] }, "BUILDER_INVALID_SHAPE", "settings.home");
    expectViolation({ home: { blocks: {} } }, "BUILDER_INVALID_SHAPE", "settings.home.blocks");
    expectViolation({ home: { blocks: ["x"] } }, "BUILDER_INVALID_SHAPE", "settings.home.blocks[0]");
    const many = Array.from({ length: 41 }, () => ({ type: "divider" }));
    expectValid({ home: { blocks: many.slice(0, 40) } });
    expectViolation({ home: { blocks: many } }, "BUILDER_TOO_MANY_BLOCKS", "settings.home.blocks");
    expectViolation(
      { home: { blocks: [{ type: "carousel" }] } },
      "BUILDER_UNKNOWN_BLOCK",
      "settings.home.blocks[0].type",
    );
    expectViolation(
      { home: { blocks: [{ type: "hero", variant: "Big!" }] } },
      "BUILDER_INVALID_BLOCK",
      "settings.home.blocks[0].variant",
    );
    expectViolation(
      { home: { blocks: [{ type: "posts", columns: 7 }] } },
      "BUILDER_INVALID_BLOCK",
      "settings.home.blocks[0].columns",
    );
    expectViolation(
      { home: { blocks: [{ type: "html", html: 1 }] } },
      "BUILDER_INVALID_BLOCK",
      "settings.home.blocks[0].html",
    );
    const source = (s: unknown) => ({ home: { blocks: [{ type: "posts", source: s }] } });
    expectViolation(source("x"), "BUILDER_INVALID_SOURCE", "settings.home.blocks[0].source");
    expectViolation(source({ limit: 51 }), "BUILDER_INVALID_SOURCE", "settings.home.blocks[0].source.limit");
    expectViolation(
      source({ filter: { language: "EN!" } }),
      "BUILDER_INVALID_SOURCE",
      "settings.home.blocks[0].source.filter.language",
    );
    expectViolation(
      source({ filter: { tag_slugs: ["Not A Slug"] } }),
      "BUILDER_INVALID_SOURCE",
      "settings.home.blocks[0].source.filter.tag_slugs",
    );
  });

  it("CUSTOMIZATION_INVALID_COLOR: palette values are hex colors (the light one and colors.dark)", () => {
    expectValid({
      customization: { colors: { bg: "#fff", text: "#000000", link: "#0000ff80", dark: { bg: "#111a" } } },
    });
    expectViolation(
      { customization: { colors: "red" } },
      "CUSTOMIZATION_INVALID_SHAPE",
      "settings.customization.colors",
    );
    expectViolation(
      { customization: { colors: { bg: "red;}body{x" } } },
      "CUSTOMIZATION_INVALID_COLOR",
      "settings.customization.colors.bg",
    );
    expectViolation(
      { customization: { colors: { dark: { text: "url(x)" } } } },
      "CUSTOMIZATION_INVALID_COLOR",
      "settings.customization.colors.dark.text",
    );
  });
});
