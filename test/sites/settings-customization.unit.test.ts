import { describe, expect, it } from "vitest";
import { expectValid, expectViolation } from "../support/settings-fixtures";

const typography = (t: Record<string, unknown>) => ({ customization: { typography: t } });
const TYPO = "CUSTOMIZATION_TYPOGRAPHY_INVALID";

describe("settings.customization", () => {
  it("CUSTOMIZATION_INVALID_SHAPE: customization, typography or layout not an object", () => {
    expectViolation({ customization: "dark" }, "CUSTOMIZATION_INVALID_SHAPE", "settings.customization");
    expectViolation({ customization: [] }, "CUSTOMIZATION_INVALID_SHAPE", "settings.customization");
    expectViolation(
      { customization: { typography: "Inter" } },
      "CUSTOMIZATION_INVALID_SHAPE",
      "settings.customization.typography",
    );
    expectViolation(
      { customization: { layout: 8 } },
      "CUSTOMIZATION_INVALID_SHAPE",
      "settings.customization.layout",
    );
  });

  it("customization keys the schema does not declare are SETTINGS_UNKNOWN_KEY (issue 31), any color name passes", () => {
    expectViolation(
      { customization: { colors: { bg: "#fff" }, typography: { scale: 1.2 } } },
      "SETTINGS_UNKNOWN_KEY",
      "settings.customization.typography.scale",
    );
    expectViolation(
      { customization: { layout: { container: "wide" } } },
      "SETTINGS_UNKNOWN_KEY",
      "settings.customization.layout.container",
    );
    const doc = { customization: { colors: { brand_2: "#fff", dark: { brand_2: "#000" } } } };
    expect(expectValid(doc)).toEqual(doc);
  });

  it("theme_base: light, auto, dark, sepia, high_contrast; anything else is CUSTOMIZATION_INVALID_THEME_BASE", () => {
    for (const base of ["light", "auto", "dark", "sepia", "high_contrast"]) {
      expectValid({ customization: { theme_base: base } });
    }
    for (const base of ["Dark", "high-contrast", "", 1, true]) {
      expectViolation(
        { customization: { theme_base: base } },
        "CUSTOMIZATION_INVALID_THEME_BASE",
        "settings.customization.theme_base",
      );
    }
  });

  describe("CUSTOMIZATION_TYPOGRAPHY_INVALID", () => {
    it.each(["font_primary", "font_secondary"])(
      "%s: family names of letters, digits, space and hyphen",
      (key) => {
        const path = `settings.customization.typography.${key}`;
        for (const ok of [
          "Inter",
          "Noto Sans JP",
          "Source Serif 4",
          "IBM Plex-Mono",
          "Inter, sans-serif",
          "Fira Code, ui-monospace, monospace",
          "Ébène",
        ]) {
          expectValid(typography({ [key]: ok }));
        }
        for (const bad of [
          "'Inter'",
          '"Inter"',
          "Inter;",
          "Inter}body{color:red",
          "Inter, Arial",
          "Inter, sans-serif, serif, monospace, cursive",
          "Inter,",
          "url(https://evil.test/f.woff)",
          "",
          " ",
          "-",
          "Inter\u0000",
          12,
        ]) {
          expectViolation(typography({ [key]: bad }), TYPO, path);
        }
      },
    );

    it.each(["font_primary", "font_secondary"])("%s: 64 characters pass, 65 are refused", (key) => {
      expectValid(typography({ [key]: "A".repeat(64) }));
      expectValid(typography({ [key]: `${"A".repeat(64)}, serif` }));
      expectViolation(
        typography({ [key]: "A".repeat(65) }),
        TYPO,
        `settings.customization.typography.${key}`,
      );
    });

    it("line_height: a number 0.8..3", () => {
      for (const ok of [0.8, 1, 1.5, 3]) expectValid(typography({ line_height: ok }));
      for (const bad of [0.79, 3.01, 0, -1, "1.5", "normal"]) {
        expectViolation(
          typography({ line_height: bad }),
          TYPO,
          "settings.customization.typography.line_height",
        );
      }
    });

    it("letter_spacing: a number -0.5..0.5 (em)", () => {
      for (const ok of [-0.5, -0.49, 0, 0.49, 0.5]) expectValid(typography({ letter_spacing: ok }));
      for (const bad of [-0.51, 0.51, 1, "0.1em", "0.1"]) {
        expectViolation(
          typography({ letter_spacing: bad }),
          TYPO,
          "settings.customization.typography.letter_spacing",
        );
      }
    });
  });

  it("CUSTOMIZATION_LAYOUT_OUT_OF_RANGE: layout.radius is an integer 0..64", () => {
    for (const ok of [0, 1, 63, 64]) expectValid({ customization: { layout: { radius: ok } } });
    for (const bad of [-1, 65, 1.5, "8", "8px", true]) {
      expectViolation(
        { customization: { layout: { radius: bad } } },
        "CUSTOMIZATION_LAYOUT_OUT_OF_RANGE",
        "settings.customization.layout.radius",
      );
    }
  });
});

describe("settings.header.model and settings.footer.model (render enums)", () => {
  it("header models: auto, classic-centered, split-nav, minimal, stacked", () => {
    for (const model of ["auto", "classic-centered", "split-nav", "minimal", "stacked"]) {
      expectValid({ header: { model, cta: { label: "Go" } } });
    }
    expectValid({ header: { cta: { label: "Go" } } });
  });

  it("CUSTOMIZATION_INVALID_HEADER_MODEL: outside the enum, or header not an object", () => {
    for (const model of ["columns", "Auto", "", 3]) {
      expectViolation({ header: { model } }, "CUSTOMIZATION_INVALID_HEADER_MODEL", "settings.header.model");
    }
    expectViolation({ header: "split-nav" }, "CUSTOMIZATION_INVALID_HEADER_MODEL", "settings.header");
  });

  it("footer models: auto, columns, minimal-centered, compact", () => {
    for (const model of ["auto", "columns", "minimal-centered", "compact"])
      expectValid({ footer: { model } });
  });

  it("CUSTOMIZATION_INVALID_FOOTER_MODEL: outside the enum, or footer not an object", () => {
    for (const model of ["split-nav", "minimal", "COLUMNS", 0]) {
      expectViolation({ footer: { model } }, "CUSTOMIZATION_INVALID_FOOTER_MODEL", "settings.footer.model");
    }
    expectViolation({ footer: ["columns"] }, "CUSTOMIZATION_INVALID_FOOTER_MODEL", "settings.footer");
  });
});
