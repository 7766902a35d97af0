/**
 * Issue 31: the declared settings schema (src/sites/site/settings/schema.ts) and the markup rule derived
 * from it (no hand-listed places). That it holds every key the specs name: test/structure/settings-schema.unit.test.ts.
 */
import { describe, expect, it } from "vitest";
import { SITE_SEO_KEYS, SITE_SETTINGS_KEYS } from "../../src/content/site/settings";
import { changedMarkup, MARKUP_FIELDS } from "../../src/sites/site/settings/markup";
import { declaredPaths, MARKUP_PATHS } from "../../src/sites/site/settings/schema";
import { validateSettings } from "../../src/sites/site/settings/validate-settings";
import { expectValid, expectViolation, fullSettings } from "../support/settings-fixtures";

const kindOf = (p: string) => declaredPaths().find((d) => d.path === p)?.kind;

describe("the declared settings schema", () => {
  it("keeps ads open, as the spec says, and markup fields of kind markup", () => {
    expect(kindOf("ads")).toBe("open");
    expect([...MARKUP_PATHS].sort()).toEqual([
      "about_html",
      "advanced",
      "code_injection",
      "home.blocks[].html",
    ]);
    expect(MARKUP_FIELDS).toContain("home.blocks[].html");
  });

  it("declares content's allowlist and its SEO keys (merged into settings.seo)", () => {
    const declared = new Set(declaredPaths().map((p) => p.path));
    for (const key of SITE_SETTINGS_KEYS) expect(declared.has(key), key).toBe(true);
    for (const key of SITE_SEO_KEYS) expect(declared.has(`seo.${key}`), `seo.${key}`).toBe(true);
  });

  it("a document that uses every area passes with every key declared", () => {
    expect(expectValid(fullSettings())).toEqual(fullSettings());
  });

  it("refuses an undeclared key at its path, and passes it when the stored document holds the same value", () => {
    expectViolation({ home: { sections: [] } }, "SETTINGS_UNKNOWN_KEY", "settings.home.sections");
    expectViolation({ seo: { title_suffix: "x" } }, "SETTINGS_UNKNOWN_KEY", "settings.seo.title_suffix");
    const older = { seo: { meta_title: "T", title_suffix: "x" }, home: { sections: [{ html: "<p>" }] } };
    expect(validateSettings({ ...older, social: {} }, older).ok).toBe(true);
    const changed = validateSettings({ ...older, seo: { title_suffix: "y" } }, older);
    expect(changed.ok ? null : changed.violation.path).toBe("settings.seo.title_suffix");
  });
});

describe("markup, derived from the schema", () => {
  const SCRIPT = "<script>x()</script>";
  it("a declared markup field, a markup-named key in a free-form value or under an undeclared key changes markup", () => {
    for (const after of [
      { code_injection: SCRIPT },
      { advanced: { head: SCRIPT } },
      { home: { blocks: [{ type: "hero", html: SCRIPT }] } },
      { menu: [{ label: "x", html: SCRIPT }] },
      { applets: { forms: { enabled: true, footer_html: SCRIPT } } },
      { home: { sections: [{ html: SCRIPT }] } },
      { future: { deep: [{ Body_HTML: SCRIPT }] } },
    ]) {
      expect(changedMarkup({}, after), JSON.stringify(after)).toBe(true);
    }
  });

  it("text, layout and key order are not markup", () => {
    const before = {
      about_html: "<p>a</p>",
      code_injection: SCRIPT,
      home: { blocks: [{ type: "hero" }, { type: "html", html: "<p>b</p>" }] },
    };
    const after = {
      code_injection: SCRIPT,
      home: { blocks: [{ type: "html", html: "<p>b</p>", variant: "wide" }, { type: "divider" }] },
      about_html: "<p>a</p>",
      menu: [{ label: "<b>escaped text</b>" }],
      header: { cta: { label: "Buy", href: "/buy" } },
    };
    expect(changedMarkup(before, after)).toBe(false);
  });
});
