import { isStrictAssetUrl, STRICT_URL_RULE } from "./asset-urls";
import {
  charLength,
  fieldPath,
  indexPath,
  isIntegerInRange,
  isOneOf,
  isPlainObject,
  isPresent,
  type JsonObject,
} from "./json";
import { LOGO, LOGO_SOURCE_TYPES, type SettingsNode } from "./schema";
import { sanitizeSvgField } from "./svg";
import { refuse } from "./violation";

/** Canonical order, most capable format first; stored sources are sorted into this order (schema.ts). */
export { LOGO_SOURCE_TYPES };
export const LOGO_MAX_SOURCES = 5;
export const LOGO_MIN_SIZE = 8;
export const LOGO_MAX_SIZE = 2048;
export const LOGO_MAX_ALT = 200;

/** The contract's keys at each level, from the declared schema; anything else is LOGO_INVALID_SHAPE / _VARIANT / _SOURCE. */
const fieldsOf = (node: SettingsNode | undefined): SettingsNode & { kind: "object" } => {
  if (node?.kind !== "object") throw new Error("settings schema: the logo contract is made of objects");
  return node;
};
const LOGO_KEYS = new Set(Object.keys(LOGO.fields));
const VARIANT = fieldsOf(LOGO.fields.light);
const VARIANT_KEYS = new Set(Object.keys(VARIANT.fields));
const SOURCES = VARIANT.fields.sources;
const SOURCE_KEYS = new Set(
  Object.keys(fieldsOf(SOURCES?.kind === "list" ? SOURCES.items : undefined).fields),
);

type VariantForm = "svg_markup" | "sources";

type LogoSourceType = (typeof LOGO_SOURCE_TYPES)[number];

interface LogoSource {
  type: LogoSourceType;
  url: string;
}

function rank(source: LogoSource): number {
  return LOGO_SOURCE_TYPES.indexOf(source.type);
}

function checkSources(sources: unknown, path: string): LogoSource[] {
  if (!Array.isArray(sources) || sources.length === 0) {
    refuse("LOGO_INVALID_VARIANT", path, "must be a non-empty array of {type, url}");
  }
  if (sources.length > LOGO_MAX_SOURCES) {
    refuse("LOGO_TOO_MANY_SOURCES", path, `at most ${LOGO_MAX_SOURCES} sources per variant`);
  }
  const checked: LogoSource[] = [];
  sources.forEach((source, i) => {
    const sourcePath = indexPath(path, i);
    if (!isPlainObject(source)) refuse("LOGO_INVALID_SOURCE", sourcePath, "must be an object {type, url}");
    for (const key of Object.keys(source)) {
      if (!SOURCE_KEYS.has(key)) refuse("LOGO_INVALID_SOURCE", fieldPath(sourcePath, key), "unknown field");
    }
    const { type, url } = source;
    if (typeof type !== "string") refuse("LOGO_INVALID_SOURCE", `${sourcePath}.type`, "must be a string");
    if (typeof url !== "string") refuse("LOGO_INVALID_SOURCE", `${sourcePath}.url`, "must be a string");
    if (!isOneOf(type, LOGO_SOURCE_TYPES)) {
      refuse("LOGO_UNSUPPORTED_TYPE", `${sourcePath}.type`, `must be one of ${LOGO_SOURCE_TYPES.join(", ")}`);
    }
    if (checked.some((earlier) => earlier.type === type)) {
      refuse("LOGO_DUPLICATE_TYPE", `${sourcePath}.type`, `${type} appears more than once`);
    }
    if (!isStrictAssetUrl(url)) refuse("SETTINGS_INVALID_ASSET_URL", `${sourcePath}.url`, STRICT_URL_RULE);
    checked.push({ type, url });
  });
  return checked.sort((a, b) => rank(a) - rank(b));
}

/** Shape of one variant: an object with exactly one of the two forms. */
function variantForm(variant: unknown, path: string): { form: VariantForm; variant: JsonObject } {
  if (!isPlainObject(variant))
    refuse("LOGO_INVALID_VARIANT", path, "must be an object with svg_markup or sources");
  for (const key of Object.keys(variant)) {
    if (!VARIANT_KEYS.has(key)) refuse("LOGO_INVALID_VARIANT", fieldPath(path, key), "unknown field");
  }
  const hasMarkup = isPresent(variant.svg_markup);
  const hasSources = isPresent(variant.sources);
  if (hasMarkup && hasSources) refuse("LOGO_MIXED_FORM", path, "use svg_markup or sources, never both");
  if (hasMarkup) return { form: "svg_markup", variant };
  if (hasSources) return { form: "sources", variant };
  return refuse("LOGO_INVALID_VARIANT", path, "needs svg_markup or sources");
}

/** Rewrites the variant in place: clean SVG markup, or sources in canonical order. */
function checkVariantContent(variant: JsonObject, form: VariantForm, path: string): void {
  if (form === "svg_markup") variant.svg_markup = sanitizeSvgField(variant.svg_markup, `${path}.svg_markup`);
  else variant.sources = checkSources(variant.sources, `${path}.sources`);
}

/**
 * Logo contract (spec (d)). Order: shape, version, alt, width, height, light present, light
 * variant shape, dark variant shape, same form in both, light content, dark content.
 */
export function checkLogo(settings: JsonObject): void {
  const logo = settings.logo;
  if (!isPresent(logo)) return;
  if (!isPlainObject(logo)) refuse("LOGO_INVALID_SHAPE", "settings.logo", "must be an object");
  for (const key of Object.keys(logo)) {
    if (!LOGO_KEYS.has(key)) refuse("LOGO_INVALID_SHAPE", fieldPath("settings.logo", key), "unknown field");
  }
  if (logo.version !== 1) refuse("LOGO_INVALID_VERSION", "settings.logo.version", "must be 1");
  if (
    logo.alt !== undefined &&
    logo.alt !== null &&
    (typeof logo.alt !== "string" || charLength(logo.alt) > LOGO_MAX_ALT)
  ) {
    refuse("LOGO_INVALID_ALT", "settings.logo.alt", `must be a string of at most ${LOGO_MAX_ALT} characters`);
  }
  for (const dimension of ["width", "height"] as const) {
    if (!isIntegerInRange(logo[dimension], LOGO_MIN_SIZE, LOGO_MAX_SIZE)) {
      refuse(
        "LOGO_INVALID_SIZE",
        `settings.logo.${dimension}`,
        `must be an integer from ${LOGO_MIN_SIZE} to ${LOGO_MAX_SIZE}`,
      );
    }
  }
  if (!isPresent(logo.light)) {
    refuse(
      "LOGO_EMPTY_LIGHT",
      "settings.logo.light",
      "the light variant is required (dark falls back to it)",
    );
  }
  const light = variantForm(logo.light, "settings.logo.light");
  const dark = isPresent(logo.dark) ? variantForm(logo.dark, "settings.logo.dark") : null;
  if (dark && dark.form !== light.form) {
    refuse("LOGO_MIXED_FORM", "settings.logo.dark", `must use the same form as light (${light.form})`);
  }
  checkVariantContent(light.variant, light.form, "settings.logo.light");
  if (dark) checkVariantContent(dark.variant, dark.form, "settings.logo.dark");
}
