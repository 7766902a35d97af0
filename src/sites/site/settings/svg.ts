import { SVG_MAX_BYTES, sanitizeSvg } from "../../../lib/svg-sanitizer";
import { refuse } from "./violation";

const REASONS: Record<"too_large" | "not_svg" | "malformed", string> = {
  too_large: `SVG exceeds the ${SVG_MAX_BYTES}-byte limit`,
  not_svg: "not an SVG document after sanitizing",
  malformed: "malformed SVG markup",
};

/** Sanitizes one SVG field; the clean markup is what gets stored (spec (a), (c)). */
export function sanitizeSvgField(value: unknown, path: string): string {
  if (typeof value !== "string") refuse("SETTINGS_INVALID_SVG", path, "must be a string of SVG markup");
  const result = sanitizeSvg(value);
  if (!result.ok) refuse("SETTINGS_INVALID_SVG", path, REASONS[result.reason]);
  return result.svg;
}
