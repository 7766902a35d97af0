/**
 * Every settings validator code, provoked THROUGH `PATCH /api/v1/sites/{id}` over HTTP: 400 with the
 * code, a `detail` that starts with the full field path, and the stored row byte-for-byte unchanged
 * (the refused PATCH also carries a `name` that must not apply). The unit tests in
 * `settings-*.unit.test.ts` cover the rules' edges; this table proves the route wires them all.
 */
import { beforeAll, describe, expect, it } from "vitest";
import {
  CLEAN_SVG,
  FORM_ULID,
  formModal,
  internalImageUnit,
  internalTextUnit,
} from "../support/settings-fixtures";
import { api, makeSite, type SiteBody, storedRow } from "../support/sites-helpers";

type Row = [code: string, path: string, settings: unknown];

const logoWith = (over: Record<string, unknown>) => ({
  version: 1,
  alt: "Acme",
  width: 120,
  height: 40,
  light: { sources: [{ type: "image/png", url: "/logo.png" }] },
  ...over,
});

const modalWith = (over: Record<string, unknown>) => ({ ...formModal("m1"), ...over });
const rulesWith = (over: Record<string, unknown>) =>
  modalWith({ rules: { ...(formModal().rules as Record<string, unknown>), ...over } });

const imageUnit = (creative: Record<string, unknown>) => {
  const unit = internalImageUnit("u1");
  return { ...unit, creative: { ...(unit.creative as Record<string, unknown>), ...creative } };
};
const textUnit = (creative: Record<string, unknown>) => {
  const unit = internalTextUnit("u1");
  return { ...unit, creative: { ...(unit.creative as Record<string, unknown>), ...creative } };
};
const withoutKey = (o: Record<string, unknown>, key: string) => {
  const { [key]: _drop, ...rest } = o;
  return rest;
};
const baseCreative = internalImageUnit("u1").creative as Record<string, unknown>;
const ads = (...units: unknown[]) => ({ ads: { units } });

const ROWS: Row[] = [
  // Assets.
  ["SETTINGS_INVALID_SVG", "settings.logo_svg", { logo_svg: "<html><body>not svg</body></html>" }],
  ["SETTINGS_INVALID_SVG", "settings.logo_svg", { logo_svg: 12 }],
  ["SETTINGS_INVALID_SVG", "settings.logo_svg", { logo_svg: "" }],
  [
    "SETTINGS_INVALID_SVG",
    "settings.favicon_svg",
    { favicon_svg: '<svg xmlns="http://www.w3.org/2000/svg"><rect></svg>' },
  ],
  [
    "SETTINGS_INVALID_SVG",
    "settings.favicon_svg",
    {
      favicon_svg: `<svg xmlns="http://www.w3.org/2000/svg"><desc>${"a".repeat(32 * 1024)}</desc></svg>`,
    },
  ],
  ["SETTINGS_INVALID_ASSET_URL", "settings.logo_url", { logo_url: "javascript:alert(1)" }],
  ["SETTINGS_INVALID_ASSET_URL", "settings.logo_url", { logo_url: "https://a.example/x y.png" }],
  ["SETTINGS_INVALID_ASSET_URL", "settings.logo_url", { logo_url: 'https://a.example/"onerror=x' }],
  ["SETTINGS_INVALID_ASSET_URL", "settings.logo_url", { logo_url: "/<script>" }],
  ["SETTINGS_INVALID_ASSET_URL", "settings.favicon_png_url", { favicon_png_url: "data:image/png;base64,AA" }],
  ["SETTINGS_INVALID_ASSET_URL", "settings.favicon_ico_url", { favicon_ico_url: "//evil.example/x.ico" }],
  ["SETTINGS_INVALID_ASSET_URL", "settings.favicon_ico_url", { favicon_ico_url: "ftp://a.example/x.ico" }],
  [
    "SETTINGS_INVALID_ASSET_URL",
    "settings.seo.default_og_image",
    { seo: { default_og_image: "https://user@a.example/og.png" } },
  ],
  [
    "SETTINGS_INVALID_ASSET_URL",
    "settings.favicon_kit.icon",
    { favicon_kit: { icon: "http://a.example/i.png" } },
  ],
  [
    "SETTINGS_INVALID_ASSET_URL",
    'settings.favicon_kit["bad name"]',
    { favicon_kit: { "bad name": "/i.png" } },
  ],
  // Customization.
  [
    "CUSTOMIZATION_TYPOGRAPHY_INVALID",
    "settings.customization.typography.font_primary",
    { customization: { typography: { font_primary: "Inter; color: red" } } },
  ],
  [
    "CUSTOMIZATION_TYPOGRAPHY_INVALID",
    "settings.customization.typography.font_secondary",
    { customization: { typography: { font_secondary: "x".repeat(65) } } },
  ],
  [
    "CUSTOMIZATION_TYPOGRAPHY_INVALID",
    "settings.customization.typography.line_height",
    { customization: { typography: { line_height: 3.01 } } },
  ],
  [
    "CUSTOMIZATION_TYPOGRAPHY_INVALID",
    "settings.customization.typography.letter_spacing",
    { customization: { typography: { letter_spacing: -0.51 } } },
  ],
  [
    "CUSTOMIZATION_LAYOUT_OUT_OF_RANGE",
    "settings.customization.layout.radius",
    { customization: { layout: { radius: 65 } } },
  ],
  [
    "CUSTOMIZATION_LAYOUT_OUT_OF_RANGE",
    "settings.customization.layout.radius",
    { customization: { layout: { radius: 1.5 } } },
  ],
  ["CUSTOMIZATION_INVALID_HEADER_MODEL", "settings.header.model", { header: { model: "mega-menu" } }],
  ["CUSTOMIZATION_INVALID_FOOTER_MODEL", "settings.footer.model", { footer: { model: "fancy" } }],
  [
    "CUSTOMIZATION_INVALID_THEME_BASE",
    "settings.customization.theme_base",
    { customization: { theme_base: "neon" } },
  ],
  ["CUSTOMIZATION_INVALID_SHAPE", "settings.customization", { customization: "dark" }],
  // Internal ads.
  [
    "ADS_UNIT_CREATIVE_INVALID",
    "settings.ads.units[0].creative.target_url",
    ads({ ...internalImageUnit("u1"), creative: withoutKey(baseCreative, "target_url") }),
  ],
  [
    "ADS_UNIT_CREATIVE_INVALID",
    "settings.ads.units[0].creative.width",
    ads({ ...internalImageUnit("u1"), creative: withoutKey(baseCreative, "width") }),
  ],
  ["ADS_UNIT_CREATIVE_INVALID", "settings.ads.units[0].creative.height", ads(imageUnit({ height: 0 }))],
  [
    "ADS_UNIT_CREATIVE_INVALID",
    "settings.ads.units[0].creative.image_alt",
    ads({ ...internalImageUnit("u1"), creative: withoutKey(baseCreative, "image_alt") }),
  ],
  ["ADS_UNIT_CREATIVE_INVALID", "settings.ads.units[0].creative.headline", ads(textUnit({ headline: " " }))],
  [
    "ADS_UNIT_CREATIVE_URL_INVALID",
    "settings.ads.units[0].creative.image_url",
    ads(imageUnit({ image_url: "http://img.example.com/b.png" })),
  ],
  [
    "ADS_UNIT_CREATIVE_URL_INVALID",
    "settings.ads.units[0].creative.target_url",
    ads(imageUnit({ target_url: "javascript:alert(1)" })),
  ],
  ["ADS_UNIT_UNKNOWN_KIND", "settings.ads.units[0].creative.kind", ads(imageUnit({ kind: "video" }))],
  [
    "ADS_UNIT_MARKUP_FORBIDDEN",
    "settings.ads.units[0].html",
    ads({ id: "n1", type: "adsense", html: "<script></script>" }),
  ],
  ["ADS_UNIT_MARKUP_FORBIDDEN", "settings.ads.units[0].creative.html", ads(imageUnit({ html: "<b>x</b>" }))],
  ["ADS_UNIT_MARKUP_FORBIDDEN", "settings.ads.html", { ads: { html: "<script></script>", units: [] } }],
  [
    "ADS_UNIT_HTML_RETIRED",
    "settings.ads.units[1].type",
    ads(internalTextUnit("t1"), { id: "h", type: "html" }),
  ],
  ["ADS_UNIT_INVALID_SHAPE", "settings.ads.units", { ads: { units: "all" } }],
  // Logo contract.
  ["LOGO_INVALID_SHAPE", "settings.logo", { logo: "logo.png" }],
  ["LOGO_INVALID_SHAPE", "settings.logo.href", { logo: logoWith({ href: "/" }) }],
  ["LOGO_INVALID_VERSION", "settings.logo.version", { logo: logoWith({ version: 2 }) }],
  ["LOGO_INVALID_VERSION", "settings.logo.version", { logo: logoWith({ version: undefined }) }],
  ["LOGO_INVALID_ALT", "settings.logo.alt", { logo: logoWith({ alt: "a".repeat(201) }) }],
  ["LOGO_INVALID_ALT", "settings.logo.alt", { logo: logoWith({ alt: 5 }) }],
  ["LOGO_INVALID_SIZE", "settings.logo.width", { logo: logoWith({ width: 7 }) }],
  ["LOGO_INVALID_SIZE", "settings.logo.height", { logo: logoWith({ height: 2049 }) }],
  ["LOGO_INVALID_SIZE", "settings.logo.height", { logo: logoWith({ height: undefined }) }],
  ["LOGO_INVALID_VARIANT", "settings.logo.light", { logo: logoWith({ light: {} }) }],
  ["LOGO_INVALID_VARIANT", "settings.logo.dark.src", { logo: logoWith({ dark: { src: "/d.png" } }) }],
  [
    "LOGO_INVALID_SOURCE",
    "settings.logo.light.sources[0]",
    { logo: logoWith({ light: { sources: ["/logo.png"] } }) },
  ],
  [
    "LOGO_INVALID_SOURCE",
    "settings.logo.light.sources[0].media",
    { logo: logoWith({ light: { sources: [{ type: "image/png", url: "/l.png", media: "x" }] } }) },
  ],
  [
    "LOGO_UNSUPPORTED_TYPE",
    "settings.logo.light.sources[0].type",
    { logo: logoWith({ light: { sources: [{ type: "image/gif", url: "/l.gif" }] } }) },
  ],
  [
    "LOGO_DUPLICATE_TYPE",
    "settings.logo.light.sources[1].type",
    {
      logo: logoWith({
        light: {
          sources: [
            { type: "image/png", url: "/a.png" },
            { type: "image/png", url: "/b.png" },
          ],
        },
      }),
    },
  ],
  [
    "LOGO_TOO_MANY_SOURCES",
    "settings.logo.light.sources",
    {
      logo: logoWith({
        light: {
          sources: ["svg+xml", "avif", "webp", "png", "jpeg", "png"].map((t, i) => ({
            type: `image/${t}`,
            url: `/l${i}`,
          })),
        },
      }),
    },
  ],
  [
    "LOGO_MIXED_FORM",
    "settings.logo.light",
    { logo: logoWith({ light: { svg_markup: CLEAN_SVG, sources: [{ type: "image/png", url: "/l.png" }] } }) },
  ],
  ["LOGO_MIXED_FORM", "settings.logo.dark", { logo: logoWith({ dark: { svg_markup: CLEAN_SVG } }) }],
  [
    "LOGO_EMPTY_LIGHT",
    "settings.logo.light",
    { logo: logoWith({ light: undefined, dark: { sources: [{ type: "image/png", url: "/d.png" }] } }) },
  ],
  [
    "SETTINGS_INVALID_ASSET_URL",
    "settings.logo.light.sources[0].url",
    { logo: logoWith({ light: { sources: [{ type: "image/png", url: "http://a.example/l.png" }] } }) },
  ],
  [
    "SETTINGS_INVALID_SVG",
    "settings.logo.dark.svg_markup",
    {
      logo: logoWith({
        light: { svg_markup: CLEAN_SVG },
        dark: { svg_markup: "<math><mi>x</mi></math>" },
      }),
    },
  ],
  // Modals.
  ["MODALS_INVALID_SHAPE", "settings.modals", { modals: { id: "m1" } }],
  ["MODALS_INVALID_SHAPE", "settings.modals[0]", { modals: ["m1"] }],
  [
    "MODALS_TOO_MANY",
    "settings.modals",
    { modals: Array.from({ length: 11 }, (_, i) => formModal(`m${i}`)) },
  ],
  ["MODALS_INVALID", "settings.modals[0].id", { modals: [modalWith({ id: undefined })] }],
  ["MODALS_INVALID", "settings.modals[0].id", { modals: [modalWith({ id: "x".repeat(65) })] }],
  ["MODALS_INVALID", "settings.modals[1].id", { modals: [formModal("same"), formModal("same")] }],
  ["MODALS_INVALID", "settings.modals[0].title", { modals: [modalWith({ title: undefined })] }],
  ["MODALS_INVALID", "settings.modals[0].title", { modals: [modalWith({ title: "t".repeat(121) })] }],
  ["MODALS_INVALID", "settings.modals[0].content", { modals: [modalWith({ content: undefined })] }],
  ["MODALS_UNKNOWN_FIELD", "settings.modals[0].style", { modals: [modalWith({ style: "x" })] }],
  [
    "MODALS_UNKNOWN_FIELD",
    "settings.modals[0].content.css",
    { modals: [modalWith({ content: { kind: "form", form_id: FORM_ULID, css: "x" } })] },
  ],
  ["MODALS_UNKNOWN_FIELD", "settings.modals[0].rules.when", { modals: [rulesWith({ when: "now" })] }],
  [
    "MODALS_UNKNOWN_FIELD",
    "settings.modals[0].rules.trigger.delay",
    { modals: [rulesWith({ trigger: { kind: "delay", seconds: 5, delay: 1 } })] },
  ],
  [
    "MODALS_UNKNOWN_FIELD",
    "settings.modals[0].rules.pages.only",
    { modals: [rulesWith({ pages: { include: ["/"], only: ["/"] } })] },
  ],
  [
    "MODALS_UNKNOWN_FIELD",
    "settings.modals[0].rules.frequency.per_user",
    { modals: [rulesWith({ frequency: { max_shows: 1, days: 1, per_user: true } })] },
  ],
  [
    "MODALS_UNKNOWN_FIELD",
    "settings.modals[0].rules.audience.countries",
    { modals: [rulesWith({ audience: { devices: ["mobile"], countries: ["BR"] } })] },
  ],
  ["MODALS_MARKUP_FORBIDDEN", "settings.modals[0].html", { modals: [modalWith({ html: "<b>x</b>" })] }],
  [
    "MODALS_MARKUP_FORBIDDEN",
    "settings.modals[0].content.html",
    { modals: [modalWith({ content: { kind: "text", html: "<script></script>" } })] },
  ],
  [
    "MODALS_CONTENT_UNKNOWN_KIND",
    "settings.modals[0].content.kind",
    { modals: [modalWith({ content: { kind: "video" } })] },
  ],
  [
    "MODALS_CONTENT_REF_UNKNOWN",
    "settings.modals[0].content.unit_id",
    { ...ads(internalTextUnit("t1")), modals: [modalWith({ content: { kind: "ad", unit_id: "nope" } })] },
  ],
  [
    "MODALS_CONTENT_INVALID_ULID",
    "settings.modals[0].content.form_id",
    { modals: [modalWith({ content: { kind: "form", form_id: crypto.randomUUID() } })] },
  ],
  [
    "MODALS_TRIGGER_UNKNOWN_KIND",
    "settings.modals[0].rules.trigger.kind",
    { modals: [rulesWith({ trigger: { kind: "click" } })] },
  ],
  [
    "MODALS_TRIGGER_INVALID",
    "settings.modals[0].rules.trigger.seconds",
    { modals: [rulesWith({ trigger: { kind: "delay", seconds: 301 } })] },
  ],
  [
    "MODALS_TRIGGER_INVALID",
    "settings.modals[0].rules.trigger.percent",
    { modals: [rulesWith({ trigger: { kind: "scroll", percent: 0 } })] },
  ],
  [
    "MODALS_PAGES_INVALID",
    "settings.modals[0].rules.pages.include",
    { modals: [rulesWith({ pages: { include: Array.from({ length: 21 }, (_, i) => `/p${i}`) } })] },
  ],
  [
    "MODALS_PAGES_INVALID",
    "settings.modals[0].rules.pages.exclude[1]",
    { modals: [rulesWith({ pages: { exclude: ["/ok", "/a/../b"] } })] },
  ],
  [
    "MODALS_PAGES_INVALID",
    "settings.modals[0].rules.pages.include[0]",
    { modals: [rulesWith({ pages: { include: ["/******"] } })] },
  ],
  [
    "MODALS_PAGES_INVALID",
    "settings.modals[0].rules.pages.include[0]",
    { modals: [rulesWith({ pages: { include: ["https://evil.example/"] } })] },
  ],
  [
    "MODALS_FREQUENCY_INVALID",
    "settings.modals[0].rules.frequency.max_shows",
    { modals: [rulesWith({ frequency: { max_shows: 51, days: 1 } })] },
  ],
  [
    "MODALS_FREQUENCY_INVALID",
    "settings.modals[0].rules.frequency.days",
    { modals: [rulesWith({ frequency: { max_shows: 1, days: 366 } })] },
  ],
  [
    "MODALS_FREQUENCY_INVALID",
    "settings.modals[0].rules.frequency.per",
    { modals: [rulesWith({ frequency: { max_shows: 1, per: "weeks", days: 1 } })] },
  ],
  [
    "MODALS_AUDIENCE_INVALID",
    "settings.modals[0].rules.audience.devices",
    { modals: [rulesWith({ audience: { devices: [] } })] },
  ],
  [
    "MODALS_AUDIENCE_INVALID",
    "settings.modals[0].rules.audience.devices",
    { modals: [rulesWith({ audience: { devices: ["tv"] } })] },
  ],
  [
    "MODALS_AUDIENCE_INVALID",
    "settings.modals[0].rules.audience.new_visitors_only",
    { modals: [rulesWith({ audience: { new_visitors_only: "yes" } })] },
  ],
  // Applets.
  ["SETTINGS_INVALID_APPLETS", "settings.applets", { applets: ["forms"] }],
  ["SETTINGS_INVALID_APPLETS", "settings.applets.forms.enabled", { applets: { forms: { enabled: "yes" } } }],
  ["SETTINGS_INVALID_APPLETS", 'settings.applets["Forms!"]', { applets: { "Forms!": { enabled: true } } }],
  // Legal pages' case and owner data.
  ["SETTINGS_INVALID_LEGAL", "settings.legal", { legal: "empresa" }],
  ["SETTINGS_INVALID_LEGAL", "settings.legal.perfil", { legal: { perfil: "governo" } }],
  ["SETTINGS_INVALID_LEGAL", "settings.legal.setor", { legal: { perfil: "empresa", setor: "mineracao" } }],
  ["SETTINGS_INVALID_LEGAL", "settings.legal.cnpj", { legal: { cnpj: 123 } }],
  ["SETTINGS_INVALID_LEGAL", "settings.legal.razao_social", { legal: { razao_social: "x".repeat(301) } }],
  // Shape.
  ["BAD_REQUEST", "settings", [1, 2]],
  ["BAD_REQUEST", "settings", null],
  ["BAD_REQUEST", "settings", "{}"],
  [
    "SETTINGS_INVALID_ASSET_URL",
    "settings.favicon_kit",
    { favicon_kit: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`i${i}`, `/i${i}.png`])) },
  ],
  ["BAD_REQUEST", "settings.seo", { seo: "title" }],
];

/** Every code the spec names for settings (plus the two customization codes of decisions.md). */
const SPEC_CODES = [
  "SETTINGS_INVALID_SVG",
  "SETTINGS_INVALID_ASSET_URL",
  "SETTINGS_INVALID_APPLETS",
  "CUSTOMIZATION_TYPOGRAPHY_INVALID",
  "CUSTOMIZATION_LAYOUT_OUT_OF_RANGE",
  "CUSTOMIZATION_INVALID_HEADER_MODEL",
  "CUSTOMIZATION_INVALID_FOOTER_MODEL",
  "ADS_UNIT_CREATIVE_INVALID",
  "ADS_UNIT_CREATIVE_URL_INVALID",
  "ADS_UNIT_UNKNOWN_KIND",
  "ADS_UNIT_MARKUP_FORBIDDEN",
  "ADS_UNIT_HTML_RETIRED",
  "LOGO_INVALID_SHAPE",
  "LOGO_INVALID_VERSION",
  "LOGO_INVALID_ALT",
  "LOGO_INVALID_SIZE",
  "LOGO_INVALID_VARIANT",
  "LOGO_INVALID_SOURCE",
  "LOGO_UNSUPPORTED_TYPE",
  "LOGO_DUPLICATE_TYPE",
  "LOGO_TOO_MANY_SOURCES",
  "LOGO_MIXED_FORM",
  "LOGO_EMPTY_LIGHT",
  "MODALS_INVALID_SHAPE",
  "MODALS_TOO_MANY",
  "MODALS_INVALID",
  "MODALS_UNKNOWN_FIELD",
  "MODALS_MARKUP_FORBIDDEN",
  "MODALS_CONTENT_UNKNOWN_KIND",
  "MODALS_CONTENT_REF_UNKNOWN",
  "MODALS_CONTENT_INVALID_ULID",
  "MODALS_TRIGGER_UNKNOWN_KIND",
  "MODALS_TRIGGER_INVALID",
  "MODALS_PAGES_INVALID",
  "MODALS_FREQUENCY_INVALID",
  "MODALS_AUDIENCE_INVALID",
];

/** What the site holds before every refused PATCH: an ad unit, a modal, a logo, a layout. */
const STORED = {
  customization: { layout: { radius: 4 }, theme_base: "dark" },
  ads: { units: [internalTextUnit("t1")] },
  modals: [{ ...formModal("m1"), content: { kind: "ad", unit_id: "t1" } }],
  logo: logoWith({}),
  logo_svg: CLEAN_SVG,
};

describe("PATCH /v1/sites/{id}: every settings code over HTTP, nothing stored", () => {
  let site: SiteBody;
  let owner: Record<string, string>;
  let before: Record<string, unknown> | null;

  beforeAll(async () => {
    ({ site, owner } = await makeSite({ settings: STORED }));
    before = await storedRow(site.id);
  });

  it("the table provokes every code the spec names", () => {
    const provoked = new Set(ROWS.map(([code]) => code));
    expect(SPEC_CODES.filter((code) => !provoked.has(code))).toEqual([]);
  });

  it("the stored document is the one the table starts from", () => {
    expect(site.settings).toEqual(STORED);
  });

  for (const [code, path, settings] of ROWS) {
    it(`${code} at ${path}`, async () => {
      const res = await api<{ code: string; detail: string; status: number }>(
        "PATCH",
        `/api/v1/sites/${site.id}`,
        { headers: owner, body: { name: "must not apply", settings } },
      );
      expect(res.status, res.text).toBe(400);
      expect(res.contentType).toContain("application/problem+json");
      expect(res.body.code, res.body.detail).toBe(code);
      expect(res.body.detail.startsWith(`${path}: `), res.body.detail).toBe(true);
      expect(await storedRow(site.id)).toEqual(before);
    });
  }

  it("BAD_REQUEST for a __proto__ key inside settings (raw JSON), nothing stored", async () => {
    const res = await api<{ code: string; detail: string }>("PATCH", `/api/v1/sites/${site.id}`, {
      headers: owner,
      rawBody: '{"name":"must not apply","settings":{"seo":{"__proto__":{"polluted":true}}}}',
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("BAD_REQUEST");
    expect(res.body.detail.startsWith("settings.seo.__proto__: ")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(await storedRow(site.id)).toEqual(before);
  });

  it("BAD_REQUEST for settings nested deeper than 64 levels (and for 100k levels), never a 500", async () => {
    let deep: unknown = 1;
    for (let i = 0; i < 70; i++) deep = { a: deep };
    const res = await api<{ code: string }>("PATCH", `/api/v1/sites/${site.id}`, {
      headers: owner,
      body: { settings: { menu: deep } },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("BAD_REQUEST");
    const huge = `{"settings":{"menu":${"[".repeat(100_000)}${"]".repeat(100_000)}}}`;
    const hugeRes = await api<{ code: string }>("PATCH", `/api/v1/sites/${site.id}`, {
      headers: owner,
      rawBody: huge,
    });
    expect(hugeRes.status).toBe(400);
    expect(hugeRes.body.code).toBe("BAD_REQUEST");
    expect(await storedRow(site.id)).toEqual(before);
  });

  it("BAD_REQUEST above 100 absolute image URLs (each would be an ingest call); 100 pass", async () => {
    const { site: other, owner: otherOwner } = await makeSite();
    const own = (n: number) => `https://${other.slug}.sites.localhost/i${n}.png`;
    const html = (count: number) => Array.from({ length: count }, (_, i) => `<img src="${own(i)}">`).join("");
    const atLimit = await api<SiteBody>("PATCH", `/api/v1/sites/${other.id}`, {
      headers: otherOwner,
      body: { settings: { about_html: html(99), logo_url: own(1000) } },
    });
    expect(atLimit.status, atLimit.text).toBe(200);
    const res = await api<{ code: string; detail: string }>("PATCH", `/api/v1/sites/${site.id}`, {
      headers: owner,
      body: { name: "must not apply", settings: { about_html: html(100), logo_url: own(1000) } },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("BAD_REQUEST");
    expect(res.body.detail).toBe("settings: at most 100 image URLs (found 101)");
    expect(await storedRow(site.id)).toEqual(before);
  });

  it("accepted logo sources are stored in canonical order (svg, avif, webp, png, jpeg)", async () => {
    const { site: fresh, owner: freshOwner } = await makeSite();
    const sources = [
      { type: "image/jpeg", url: "/l.jpg" },
      { type: "image/png", url: "/l.png" },
      { type: "image/svg+xml", url: "/l.svg" },
      { type: "image/avif", url: "/l.avif" },
      { type: "image/webp", url: "/l.webp" },
    ];
    const res = await api<SiteBody>("PATCH", `/api/v1/sites/${fresh.id}`, {
      headers: freshOwner,
      body: { settings: { logo: logoWith({ light: { sources } }) } },
    });
    expect(res.status).toBe(200);
    const order = ["image/svg+xml", "image/avif", "image/webp", "image/png", "image/jpeg"];
    const stored = JSON.parse((await storedRow(fresh.id))!.settings as string);
    expect(stored.logo.light.sources.map((s: { type: string }) => s.type)).toEqual(order);
    expect((res.body.settings.logo as typeof stored.logo).light.sources).toEqual(stored.logo.light.sources);
  });
});
