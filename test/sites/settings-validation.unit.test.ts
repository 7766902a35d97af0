import { describe, expect, it } from "vitest";
import { SVG_MAX_BYTES } from "../../src/lib/svg-sanitizer";
import { validateSettings } from "../../src/sites/site/settings/validate-settings";
import { testCorpora } from "../support/corpora-binding";
import {
  CLEAN_SVG,
  expectValid,
  expectViolation,
  formModal,
  fullSettings,
  internalImageUnit,
} from "../support/settings-fixtures";

/** Legitimate SVG of exactly `bytes` UTF-8 bytes (padding inside the path data). */
function svgOfBytes(bytes: number): string {
  const head = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="M0 0';
  const tail = 'h24v24H0z"/></svg>';
  return head + " ".repeat(bytes - head.length - tail.length) + tail;
}

describe("validateSettings: the document", () => {
  it("a document that uses every area passes and comes back equal", () => {
    const input = fullSettings();
    expect(expectValid(input)).toEqual(fullSettings());
  });

  it("an empty object passes", () => {
    expect(expectValid({})).toEqual({});
  });

  it("never mutates the input, even when it sanitizes or reorders", () => {
    const input = fullSettings();
    input.logo_svg =
      '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script><path d="M0 0h1v1z"/></svg>';
    (input.logo as { light: { sources: unknown[] } }).light.sources.reverse();
    const before = structuredClone(input);
    const result = validateSettings(input);
    expect(result.ok).toBe(true);
    expect(input).toEqual(before);
    if (result.ok) {
      expect(result.settings).not.toBe(input);
      expect(result.settings.logo).not.toBe(input.logo);
    }
  });

  it("never mutates the input when refusing", () => {
    const input = { ...fullSettings(), modals: "nope" };
    const before = structuredClone(input);
    expect(validateSettings(input).ok).toBe(false);
    expect(input).toEqual(before);
  });

  it.each([
    ["null", null],
    ["an array", [{ logo_url: "/x.png" }]],
    ["a string", '{"logo_url":"/x.png"}'],
    ["a number", 1],
    ["undefined", undefined],
    ["a class instance", new Date()],
  ])("input that is %s is BAD_REQUEST", (_label, input) => {
    expectViolation(input, "BAD_REQUEST", "settings");
  });

  it("values JSON cannot carry are BAD_REQUEST with their path", () => {
    expectViolation(
      { customization: { layout: { radius: Number.NaN } } },
      "BAD_REQUEST",
      "settings.customization.layout.radius",
    );
    expectViolation({ menu: [1, () => 1] }, "BAD_REQUEST", "settings.menu[1]");
    expectViolation({ seo: { at: new Map() } }, "BAD_REQUEST", "settings.seo.at");
  });

  it("a __proto__ key is BAD_REQUEST (prototype pollution)", () => {
    expectViolation(
      JSON.parse('{"menu":{"__proto__":{"polluted":true}}}'),
      "BAD_REQUEST",
      "settings.menu.__proto__",
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("keys whose value is undefined are dropped, like JSON.stringify does", () => {
    expect(expectValid({ logo_url: undefined, menu: [] })).toEqual({ menu: [] });
  });

  it("nesting at 64 levels passes, at 65 is BAD_REQUEST", () => {
    const nest = (levels: number) => {
      let value: unknown = "leaf";
      for (let i = 0; i < levels; i++) value = { a: value };
      return value;
    };
    expectValid({ menu: nest(63) });
    const result = validateSettings({ menu: nest(64) });
    expect(result.ok ? null : result.violation.code).toBe("BAD_REQUEST");
  });

  it("reports the first violation in the documented order: assets, customization, ads, logo, modals, applets", () => {
    const broken = {
      applets: "x",
      modals: "x",
      logo: "x",
      ads: "x",
      customization: "x",
      logo_url: "javascript:alert(1)",
    };
    expectViolation(broken, "SETTINGS_INVALID_ASSET_URL", "settings.logo_url");
    const { logo_url: _a, ...noAssets } = broken;
    expectViolation(noAssets, "CUSTOMIZATION_INVALID_SHAPE", "settings.customization");
    const { customization: _b, ...noCustomization } = noAssets;
    expectViolation(noCustomization, "ADS_UNIT_INVALID_SHAPE", "settings.ads");
    const { ads: _c, ...noAds } = noCustomization;
    expectViolation(noAds, "LOGO_INVALID_SHAPE", "settings.logo");
    const { logo: _d, ...noLogo } = noAds;
    expectViolation(noLogo, "MODALS_INVALID_SHAPE", "settings.modals");
    const { modals: _e, ...noModals } = noLogo;
    expectViolation(noModals, "SETTINGS_INVALID_APPLETS", "settings.applets");
  });

  it("null is the same as absent for every optional field", () => {
    const doc = {
      logo_svg: null,
      favicon_svg: null,
      logo_url: null,
      favicon_png_url: null,
      favicon_ico_url: null,
      favicon_kit: null,
      seo: { default_og_image: null },
      logo: {
        version: 1,
        alt: null,
        width: 8,
        height: 8,
        light: { svg_markup: CLEAN_SVG, sources: null },
        dark: null,
      },
      customization: {
        theme_base: null,
        typography: { font_primary: null, font_secondary: null, line_height: null, letter_spacing: null },
        layout: { radius: null },
      },
      header: { model: null },
      footer: null,
      ads: { units: [{ id: null, type: "adsense" }] },
      modals: [
        {
          id: "m",
          title: "M",
          enabled: null,
          content: { kind: "text", text: "x" },
          rules: {
            trigger: null,
            pages: { include: null, exclude: null },
            frequency: { max_shows: 1, per: null, days: 1 },
            audience: { devices: null, new_visitors_only: null },
          },
        },
      ],
      applets: { forms: { enabled: true, installed_at: null } },
    };
    expect(expectValid(doc)).toEqual(doc);
  });

  it("a malicious SVG corpus never reaches storage: each sample is cleaned or refused", () => {
    const { svgMalicious } = testCorpora();
    expect(svgMalicious.length).toBeGreaterThan(10);
    const places: [(markup: string) => Record<string, unknown>, (doc: Record<string, unknown>) => unknown][] =
      [
        [(markup) => ({ logo_svg: markup }), (doc) => doc.logo_svg],
        [
          (markup) => ({ logo: { version: 1, width: 10, height: 10, light: { svg_markup: markup } } }),
          (doc) => (doc.logo as { light: { svg_markup: unknown } }).light.svg_markup,
        ],
      ];
    for (const { name, svg } of svgMalicious) {
      for (const [build, read] of places) {
        const result = validateSettings(build(svg));
        if (!result.ok) {
          expect(result.violation.code, name).toBe("SETTINGS_INVALID_SVG");
          continue;
        }
        const stored = read(result.settings);
        expect(typeof stored, name).toBe("string");
        // Inside tags only: escaped text such as "&lt;img onerror=...&gt;" is inert.
        expect(stored, name).not.toMatch(
          /<script|<foreignObject|<!ENTITY|<!DOCTYPE|<[^>]*\son[a-z]+\s*=|<[^>]*javascript:/i,
        );
      }
    }
  });

  it("legitimate icons (simple-icons) pass unchanged in both SVG places", () => {
    const { simpleIcons } = testCorpora();
    for (const { slug, svg } of simpleIcons.slice(0, 100)) {
      expect(expectValid({ favicon_svg: svg }).favicon_svg, slug).toBe(svg);
      const logo = { version: 1, width: 24, height: 24, light: { svg_markup: svg } };
      expect(expectValid({ logo }).logo, slug).toEqual(logo);
    }
  });

  it("the same input always gives the same answer", () => {
    const input = { ...fullSettings(), modals: [formModal("a"), formModal("a")] };
    expect(validateSettings(input)).toEqual(validateSettings(input));
  });
});

describe("validateSettings: SVG fields (sanitizing on write (a), (c))", () => {
  it.each(["logo_svg", "favicon_svg"])("%s: legitimate SVG passes unchanged", (key) => {
    expect(expectValid({ [key]: CLEAN_SVG })[key]).toBe(CLEAN_SVG);
  });

  it.each(["logo_svg", "favicon_svg"])(
    "%s: hostile parts are removed and the clean markup is stored",
    (key) => {
      const hostile =
        '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x "y">]><svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script><path d="M0 0h1v1z"/></svg>';
      const stored = expectValid({ [key]: hostile })[key];
      expect(typeof stored).toBe("string");
      expect(stored).not.toMatch(/script|onload|DOCTYPE|ENTITY|<\?xml/i);
      expect(stored).toContain("<path");
      expect(expectValid({ [key]: stored })[key]).toBe(stored);
    },
  );

  it.each(["logo_svg", "favicon_svg"])("%s: null clears the field", (key) => {
    expect(expectValid({ [key]: null })).toEqual({ [key]: null });
  });

  it.each(["logo_svg", "favicon_svg"])("%s: not an SVG is SETTINGS_INVALID_SVG", (key) => {
    expectViolation({ [key]: "<html><body>hi</body></html>" }, "SETTINGS_INVALID_SVG", `settings.${key}`);
    expectViolation({ [key]: "" }, "SETTINGS_INVALID_SVG", `settings.${key}`);
    expectViolation({ [key]: 42 }, "SETTINGS_INVALID_SVG", `settings.${key}`);
    expectViolation(
      { [key]: '<svg xmlns="http://www.w3.org/2000/svg"><path' },
      "SETTINGS_INVALID_SVG",
      `settings.${key}`,
    );
  });

  it.each(["logo_svg", "favicon_svg"])("%s: 32 KiB passes, one byte more is SETTINGS_INVALID_SVG", (key) => {
    expect(SVG_MAX_BYTES).toBe(32 * 1024);
    expectValid({ [key]: svgOfBytes(SVG_MAX_BYTES) });
    expectViolation({ [key]: svgOfBytes(SVG_MAX_BYTES + 1) }, "SETTINGS_INVALID_SVG", `settings.${key}`);
  });
});

describe("validateSettings: asset URLs (sanitizing on write (b))", () => {
  const fields: [string, (url: unknown) => Record<string, unknown>][] = [
    ["settings.logo_url", (url) => ({ logo_url: url })],
    ["settings.favicon_png_url", (url) => ({ favicon_png_url: url })],
    ["settings.favicon_ico_url", (url) => ({ favicon_ico_url: url })],
    ["settings.seo.default_og_image", (url) => ({ seo: { default_og_image: url } })],
  ];

  const accepted = [
    "https://cdn.example.com/logo.png",
    "http://cdn.example.com/logo.png",
    "HTTPS://CDN.EXAMPLE.COM/logo.png",
    "https://cdn.example.com",
    "https://cdn.example.com:8443/a/b.png?v=2#x",
    "/logo.png",
    "/",
    "/assets/logo%20final.png",
  ];
  const refused = [
    "javascript:alert(1)",
    "JavaScript:alert(1)",
    "data:image/png;base64,AAAA",
    "data:image/svg+xml,<svg onload=alert(1)>",
    "//evil.test/logo.png",
    "/\\evil.test/logo.png",
    "ftp://cdn.example.com/logo.png",
    "logo.png",
    "../logo.png",
    "https:/cdn.example.com/logo.png",
    "https:cdn.example.com/logo.png",
    "https://",
    "https:///logo.png",
    "https://user:pass@cdn.example.com/logo.png",
    "https://cdn.example.com@evil.test/logo.png",
    "https://cdn.example.com/logo one.png",
    " https://cdn.example.com/logo.png",
    "https://cdn.example.com/logo.png\n",
    "https://cdn.example.com/\tlogo.png",
    'https://cdn.example.com/logo.png"onerror="alert(1)',
    "https://cdn.example.com/logo.png'",
    "https://cdn.example.com/`x`",
    "https://cdn.example.com/<script>",
    "/logo.png>",
    "https://cdn.example.com/\u0000.png",
    "https://cdn.example.com:99999/logo.png",
    "",
  ];

  for (const [path, build] of fields) {
    it(`${path}: http(s) URLs and site paths pass unchanged`, () => {
      for (const url of accepted) expect(expectValid(build(url))).toEqual(build(url));
    });

    it(`${path}: javascript:, data:, //host, spaces, quotes, angle brackets are SETTINGS_INVALID_ASSET_URL`, () => {
      for (const url of refused) expectViolation(build(url), "SETTINGS_INVALID_ASSET_URL", path);
    });

    it(`${path}: a non-string is SETTINGS_INVALID_ASSET_URL, null clears`, () => {
      expectViolation(build(42), "SETTINGS_INVALID_ASSET_URL", path);
      expectViolation(build({ url: "/x.png" }), "SETTINGS_INVALID_ASSET_URL", path);
      expectValid(build(null));
    });

    it(`${path}: 2048 characters pass, 2049 are refused`, () => {
      const base = "https://cdn.example.com/";
      expectValid(build(base + "a".repeat(2048 - base.length)));
      expectViolation(build(base + "a".repeat(2049 - base.length)), "SETTINGS_INVALID_ASSET_URL", path);
    });
  }

  it("settings.seo that is not an object is BAD_REQUEST", () => {
    expectViolation({ seo: "x" }, "BAD_REQUEST", "settings.seo");
  });
});

describe("validateSettings: favicon_kit (object of name -> URL, strict rule)", () => {
  it("https URLs with a path and site paths pass", () => {
    const kit = {
      "apple-touch-icon": "https://img.example.com/apple.png",
      icon_192: "/icons/192.png",
      root: "https://img.example.com/",
    };
    expect(expectValid({ favicon_kit: kit })).toEqual({ favicon_kit: kit });
  });

  it("http, no path, javascript: and //host are SETTINGS_INVALID_ASSET_URL with the entry path", () => {
    for (const url of [
      "http://img.example.com/a.png",
      "https://img.example.com",
      "javascript:alert(1)",
      "//evil.test/a.png",
      7,
    ]) {
      expectViolation(
        { favicon_kit: { icon: url } },
        "SETTINGS_INVALID_ASSET_URL",
        "settings.favicon_kit.icon",
      );
    }
  });

  it("a kit that is not an object, a bad entry name, or more than 16 entries is refused", () => {
    expectViolation(
      { favicon_kit: ["https://img.example.com/a.png"] },
      "SETTINGS_INVALID_ASSET_URL",
      "settings.favicon_kit",
    );
    expectViolation(
      { favicon_kit: { "apple-touch-icon": "http://img.example.com/a.png" } },
      "SETTINGS_INVALID_ASSET_URL",
      "settings.favicon_kit.apple-touch-icon",
    );
    expectViolation(
      { favicon_kit: { "a.b": "/a.png" } },
      "SETTINGS_INVALID_ASSET_URL",
      'settings.favicon_kit["a.b"]',
    );
    const kit = (n: number) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`icon${i}`, `/icons/${i}.png`]));
    expectValid({ favicon_kit: kit(16) });
    expectViolation({ favicon_kit: kit(17) }, "SETTINGS_INVALID_ASSET_URL", "settings.favicon_kit");
  });
});

describe("validateSettings: applets (SETTINGS_INVALID_APPLETS)", () => {
  it("slug -> {enabled, installed_at, app settings} passes unchanged", () => {
    const applets = {
      forms: { enabled: true, installed_at: "2026-03-01T10:00:00Z" },
      legal_pages: { enabled: false, installed_at: null, custom: { any: ["thing"] } },
    };
    expect(expectValid({ applets })).toEqual({ applets });
  });

  it.each([
    ["not an object", ["forms"], "settings.applets"],
    ["an entry that is not an object", { forms: true }, "settings.applets.forms"],
    ["enabled missing", { forms: {} }, "settings.applets.forms.enabled"],
    ["enabled not a boolean", { forms: { enabled: "true" } }, "settings.applets.forms.enabled"],
    ["a bad slug", { "Forms!": { enabled: true } }, 'settings.applets["Forms!"]'],
    [
      "installed_at not a timestamp",
      { forms: { enabled: true, installed_at: "yesterday" } },
      "settings.applets.forms.installed_at",
    ],
    [
      "installed_at an impossible date",
      { forms: { enabled: true, installed_at: "2026-13-45T10:00:00Z" } },
      "settings.applets.forms.installed_at",
    ],
  ])("%s is refused", (_label, applets, path) => {
    expectViolation({ applets }, "SETTINGS_INVALID_APPLETS", path);
  });

  it("64 applets pass, 65 are refused", () => {
    const applets = (n: number) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`app-${i}`, { enabled: true }]));
    expectValid({ applets: applets(64) });
    expectViolation({ applets: applets(65) }, "SETTINGS_INVALID_APPLETS", "settings.applets");
  });
});

describe("validateSettings: pass-through", () => {
  it("markup fields, free-form values and the open ads are kept as sent", () => {
    const doc = {
      code_injection: { head: "<script>1</script>", body_end: "" },
      about_html: "<p>hi</p>",
      legal: { perfil: "empresa", setor: "saude", foro: "São Paulo/SP" },
      cookies: { banner: true },
      ads: { units: [internalImageUnit()], extra: { anything: 1 } },
    };
    expect(expectValid(doc)).toEqual(doc);
  });

  it("a key the schema does not declare is SETTINGS_UNKNOWN_KEY, unless stored with the same value", () => {
    const doc = { legal: { perfil: "empresa", outra_chave: "x" } };
    expectViolation(doc, "SETTINGS_UNKNOWN_KEY", "settings.legal.outra_chave");
    expect(validateSettings(doc, doc)).toEqual({ ok: true, settings: doc });
    const changed = validateSettings({ legal: { perfil: "empresa", outra_chave: "y" } }, doc);
    expect(changed.ok ? null : changed.violation.path).toBe("settings.legal.outra_chave");
  });
});
