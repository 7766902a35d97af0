import {
  charLength,
  fieldPath,
  isIntegerInRange,
  isNumberInRange,
  isOneOf,
  isPlainObject,
  isPresent,
  type JsonObject,
} from "./json";
import { refuse } from "./violation";

export const THEME_BASES = ["light", "auto", "dark", "sepia", "high_contrast"] as const;
/** Render enums of the public site's header and footer (`auto` lets the theme decide). */
export const HEADER_MODELS = ["auto", "classic-centered", "split-nav", "minimal", "stacked"] as const;
export const FOOTER_MODELS = ["auto", "columns", "minimal-centered", "compact"] as const;
/** CSS generic families accepted as fallbacks after the family name. */
export const GENERIC_FONT_FAMILIES = [
  "serif",
  "sans-serif",
  "monospace",
  "cursive",
  "fantasy",
  "system-ui",
  "ui-serif",
  "ui-sans-serif",
  "ui-monospace",
  "ui-rounded",
  "math",
  "emoji",
  "fangsong",
] as const;
export const FONT_FAMILY_MAX = 64;
export const FONT_MAX_FALLBACKS = 3;
export const LINE_HEIGHT_RANGE = [0.8, 3] as const;
export const LETTER_SPACING_RANGE = [-0.5, 0.5] as const;
export const LAYOUT_RADIUS_RANGE = [0, 64] as const;

/** Letters, digits, space and hyphen only: the value lands in CSS, so no quotes, semicolons or braces. */
const FAMILY_NAME = /^[\p{L}\p{N} -]+$/u;
const HAS_LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

function isFontStack(value: unknown): boolean {
  if (typeof value !== "string") return false;
  const [family = "", ...fallbacks] = value.split(",");
  const name = family.trim();
  if (charLength(name) < 1 || charLength(name) > FONT_FAMILY_MAX || !FAMILY_NAME.test(name)) return false;
  if (!HAS_LETTER_OR_DIGIT.test(name)) return false;
  if (fallbacks.length > FONT_MAX_FALLBACKS) return false;
  return fallbacks.every((fallback) => isOneOf(fallback.trim(), GENERIC_FONT_FAMILIES));
}

function checkTypography(typography: unknown): void {
  const path = "settings.customization.typography";
  if (!isPresent(typography)) return;
  if (!isPlainObject(typography)) refuse("CUSTOMIZATION_INVALID_SHAPE", path, "must be an object");
  for (const key of ["font_primary", "font_secondary"] as const) {
    const value = typography[key];
    if (!isPresent(value)) continue;
    if (!isFontStack(value)) {
      refuse(
        "CUSTOMIZATION_TYPOGRAPHY_INVALID",
        `${path}.${key}`,
        `must be a family name of 1..${FONT_FAMILY_MAX} letters, digits, spaces or hyphens, optionally followed by up to ${FONT_MAX_FALLBACKS} generic fallbacks after commas`,
      );
    }
  }
  const lineHeight = typography.line_height;
  if (isPresent(lineHeight) && !isNumberInRange(lineHeight, ...LINE_HEIGHT_RANGE)) {
    refuse("CUSTOMIZATION_TYPOGRAPHY_INVALID", `${path}.line_height`, "must be a number from 0.8 to 3");
  }
  const spacing = typography.letter_spacing;
  if (isPresent(spacing) && !isNumberInRange(spacing, ...LETTER_SPACING_RANGE)) {
    refuse(
      "CUSTOMIZATION_TYPOGRAPHY_INVALID",
      `${path}.letter_spacing`,
      "must be a number from -0.5 to 0.5 (em)",
    );
  }
}

/** `#rgb`, `#rgba`, `#rrggbb` or `#rrggbbaa`: the value lands in CSS, so nothing else is accepted. */
export const HEX_COLOR = /^#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/;
/** Nesting of a palette: `colors` may hold one `dark` palette of the same shape. */
function checkColors(colors: unknown, path: string, nested: boolean): void {
  if (!isPresent(colors)) return;
  if (!isPlainObject(colors)) refuse("CUSTOMIZATION_INVALID_SHAPE", path, "must be an object");
  for (const [key, value] of Object.entries(colors)) {
    if (key === "dark" && !nested) {
      checkColors(value, `${path}.dark`, true);
      continue;
    }
    if (isPresent(value) && (typeof value !== "string" || !HEX_COLOR.test(value))) {
      refuse(
        "CUSTOMIZATION_INVALID_COLOR",
        fieldPath(path, key),
        "must be a hex color (#rgb or #rrggbb, optional alpha)",
      );
    }
  }
}

function checkLayout(layout: unknown): void {
  const path = "settings.customization.layout";
  if (!isPresent(layout)) return;
  if (!isPlainObject(layout)) refuse("CUSTOMIZATION_INVALID_SHAPE", path, "must be an object");
  const radius = layout.radius;
  if (isPresent(radius) && !isIntegerInRange(radius, ...LAYOUT_RADIUS_RANGE)) {
    refuse("CUSTOMIZATION_LAYOUT_OUT_OF_RANGE", `${path}.radius`, "must be an integer from 0 to 64");
  }
}

function checkModel(
  settings: JsonObject,
  key: "header" | "footer",
  models: readonly string[],
  code: "CUSTOMIZATION_INVALID_HEADER_MODEL" | "CUSTOMIZATION_INVALID_FOOTER_MODEL",
): void {
  const block = settings[key];
  if (!isPresent(block)) return;
  if (!isPlainObject(block)) refuse(code, `settings.${key}`, "must be an object");
  const model = block.model;
  if (!isPresent(model)) return;
  if (!isOneOf(model, models)) {
    refuse(code, `settings.${key}.model`, `must be one of ${models.join(", ")}`);
  }
}

/**
 * Customization family. Order: `customization` shape, `theme_base`, colors, typography, layout, then
 * `header.model` and `footer.model`. Keys not named here are theme data and pass through.
 */
export function checkCustomization(settings: JsonObject): void {
  const customization = settings.customization;
  if (isPresent(customization)) {
    if (!isPlainObject(customization)) {
      refuse("CUSTOMIZATION_INVALID_SHAPE", "settings.customization", "must be an object");
    }
    const base = customization.theme_base;
    if (isPresent(base)) {
      if (!isOneOf(base, THEME_BASES)) {
        refuse(
          "CUSTOMIZATION_INVALID_THEME_BASE",
          "settings.customization.theme_base",
          `must be one of ${THEME_BASES.join(", ")}`,
        );
      }
    }
    checkColors(customization.colors, "settings.customization.colors", false);
    checkTypography(customization.typography);
    checkLayout(customization.layout);
  }
  checkModel(settings, "header", HEADER_MODELS, "CUSTOMIZATION_INVALID_HEADER_MODEL");
  checkModel(settings, "footer", FOOTER_MODELS, "CUSTOMIZATION_INVALID_FOOTER_MODEL");
}
