/**
 * The contrast gate of platform themes (spec: "text on bg at least 4.5:1, primary and accent on bg at
 * least 3:1, for the light palette and for `colors.dark` when present"). Contrast is WCAG 2.x's:
 * relative luminance of sRGB colors (WCAG 2.2, "relative luminance" definition; the 0.04045 threshold
 * of IEC 61966-2-1, which gives the same result as WCAG's 0.03928 for every 8-bit channel value) and
 * the ratio (L1 + 0.05) / (L2 + 0.05). Colors are opaque hex: `#rgb` or `#rrggbb` (a translucent color's
 * contrast depends on what lies beneath, so it cannot be judged here). Pure functions.
 */
import { isPlainObject, type JsonObject } from "../site/settings/json";

const OPAQUE_HEX = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

export const CONTRAST_RULES = [
  { fg: "text", min: 4.5 },
  { fg: "primary", min: 3 },
  { fg: "accent", min: 3 },
] as const;

/** `[r, g, b]` 0..255 of an opaque hex color, or null. */
export function parseHexColor(value: unknown): [number, number, number] | null {
  if (typeof value !== "string" || !OPAQUE_HEX.test(value)) return null;
  const hex = value.length === 4 ? [...value.slice(1)].map((c) => c + c).join("") : value.slice(1);
  return [0, 2, 4].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];
}

function channel(value: number): number {
  const c = value / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

/** WCAG 2.x relative luminance, 0 (black) to 1 (white). */
export function relativeLuminance([r, g, b]: [number, number, number]): number {
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

/** WCAG 2.x contrast ratio of two colors, 1 to 21, whichever is lighter. */
export function contrastRatio(a: [number, number, number], b: [number, number, number]): number {
  const [hi, lo] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

export interface ContrastFailure {
  /** e.g. `customization.colors.dark`. */
  palette: string;
  /** e.g. `text/bg`, or the color key that is missing or not an opaque hex color. */
  pair: string;
  /** The measured ratio (rounded down to 2 decimals), null when a color is missing or malformed. */
  ratio: number | null;
  required: number | null;
}

function checkPalette(palette: unknown, name: string): ContrastFailure | null {
  if (!isPlainObject(palette)) return { palette: name, pair: "colors", ratio: null, required: null };
  const bg = parseHexColor(palette.bg);
  if (!bg) return { palette: name, pair: "bg", ratio: null, required: null };
  for (const { fg, min } of CONTRAST_RULES) {
    const color = parseHexColor(palette[fg]);
    if (!color) return { palette: name, pair: fg, ratio: null, required: null };
    const ratio = contrastRatio(color, bg);
    if (ratio < min)
      return { palette: name, pair: `${fg}/bg`, ratio: Math.floor(ratio * 100) / 100, required: min };
  }
  return null;
}

/** The first failing palette pair of a package (light palette first, then `colors.dark`), or null. */
export function contrastFailure(pkg: JsonObject): ContrastFailure | null {
  const customization = isPlainObject(pkg.customization) ? pkg.customization : {};
  const colors = customization.colors;
  const light = checkPalette(colors, "customization.colors");
  if (light) return light;
  const dark = isPlainObject(colors) ? colors.dark : undefined;
  return dark === undefined || dark === null ? null : checkPalette(dark, "customization.colors.dark");
}

export function describeFailure(f: ContrastFailure): string {
  if (f.ratio === null) {
    return f.pair === "colors"
      ? `${f.palette}: required, with bg, text, primary and accent`
      : `${f.palette}.${f.pair}: required, an opaque hex color (#rgb or #rrggbb)`;
  }
  return `${f.palette}: ${f.pair} contrast is ${f.ratio}:1, at least ${f.required}:1 is required`;
}
