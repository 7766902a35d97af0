/**
 * The theme package: the look of a site, cut out of its settings. A look is the visual allowlist of
 * settings paths below; everything else in settings (menu, logo, SEO, `code_injection`, ads, modals,
 * applets, cookies, legal, `header.cta`, `footer.cta`, ...) is the site's own and never part of a
 * theme. Saving a look removes the origin site's content: `html` blocks leave, a block's
 * `source.filter` keeps only `language`, and keys outside this schema are dropped. Pure functions over
 * plain JSON; inputs are never mutated.
 */
import { isPlainObject, type JsonObject } from "../site/settings/json";

/** The containers of look paths in settings, and the allowlist paths inside each, in a fixed order. */
export const LOOK_PATHS = [
  ["customization", "theme_base"],
  ["customization", "colors"],
  ["customization", "typography"],
  ["customization", "layout"],
  ["header", "model"],
  ["footer", "model"],
  ["home", "blocks"],
] as const satisfies readonly (readonly [string, string])[];

export type LookPath = (typeof LOOK_PATHS)[number];
export type LookContainer = LookPath[0];
export const LOOK_CONTAINERS: readonly LookContainer[] = [...new Set(LOOK_PATHS.map(([c]) => c))];

/** Palette keys a theme carries; `bg`, `text`, `primary`, `accent` are the contrast gate's. */
export const COLOR_KEYS = ["bg", "text", "primary", "accent", "surface", "muted", "border", "link"] as const;
const TYPOGRAPHY_KEYS = ["font_primary", "font_secondary", "line_height", "letter_spacing"] as const;
const LAYOUT_KEYS = ["radius"] as const;
const BLOCK_KEYS = ["type", "variant", "columns", "source"] as const;
const SOURCE_KEYS = ["filter", "limit"] as const;

/** A theme package: settings-shaped, holding only look paths. */
export type ThemePackage = JsonObject;

export function pathName([container, key]: LookPath): string {
  return `${container}.${key}`;
}

function pick(value: unknown, keys: readonly string[]): unknown {
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([k]) => keys.includes(k)));
}

function cutColors(colors: unknown): unknown {
  if (!isPlainObject(colors)) return colors;
  const palette = pick(colors, COLOR_KEYS) as JsonObject;
  const dark = pick(colors.dark, COLOR_KEYS);
  if (!isEmptyValue(dark)) palette.dark = dark;
  return palette;
}

function cutSource(source: unknown): unknown {
  if (!isPlainObject(source)) return source;
  const out = pick(source, SOURCE_KEYS) as JsonObject;
  // The origin site's categories and tags are its content; only the language choice is look.
  if (out.filter !== undefined) out.filter = pick(out.filter, ["language"]);
  return out;
}

function cutBlocks(blocks: unknown): unknown {
  if (!Array.isArray(blocks)) return blocks;
  return blocks
    .filter((b) => !(isPlainObject(b) && b.type === "html"))
    .map((b) => {
      if (!isPlainObject(b)) return b;
      const block = pick(b, BLOCK_KEYS) as JsonObject;
      if (block.source !== undefined) block.source = cutSource(block.source);
      return block;
    });
}

function cutValue(path: LookPath, value: unknown): unknown {
  switch (pathName(path)) {
    case "customization.colors":
      return cutColors(value);
    case "customization.typography":
      return pick(value, TYPOGRAPHY_KEYS);
    case "customization.layout":
      return pick(value, LAYOUT_KEYS);
    case "home.blocks":
      return cutBlocks(value);
    default:
      return value;
  }
}

/** Nothing to carry: absent, null, an empty object or an empty list. */
function isEmptyValue(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  return isPlainObject(value) && Object.keys(value).length === 0;
}

/** The value at a look path of a settings-shaped document, or undefined. */
export function lookValue(document: JsonObject, [container, key]: LookPath): unknown {
  const parent = document[container];
  return isPlainObject(parent) && Object.hasOwn(parent, key) ? parent[key] : undefined;
}

/**
 * The look of a settings-shaped document as a theme package: the allowlist paths with content
 * removed. Values of the wrong type are kept as they are, for the settings validator to refuse with
 * its code; empty values are left out.
 */
export function cutLook(document: JsonObject): ThemePackage {
  const out: JsonObject = {};
  for (const path of LOOK_PATHS) {
    const value = cutValue(path, lookValue(document, path));
    if (isEmptyValue(value)) continue;
    const [container, key] = path;
    const parent = (out[container] ?? {}) as JsonObject;
    parent[key] = value;
    out[container] = parent;
  }
  return out;
}

export function isEmptyLook(pkg: ThemePackage): boolean {
  return LOOK_PATHS.every((path) => lookValue(pkg, path) === undefined);
}

/** The look of a site before an apply: every allowlist path's value (absent ones left out). */
export interface LookSnapshot {
  values: Record<string, unknown>;
  /** Containers (`customization`, `header`, ...) absent from settings, to be absent again on undo. */
  absent: string[];
}

export function snapshotLook(settings: JsonObject): LookSnapshot {
  const values: Record<string, unknown> = {};
  for (const path of LOOK_PATHS) {
    const value = lookValue(settings, path);
    if (value !== undefined) values[pathName(path)] = value;
  }
  return { values, absent: LOOK_CONTAINERS.filter((c) => !Object.hasOwn(settings, c)) };
}

function container(settings: JsonObject, name: string): JsonObject {
  const current = settings[name];
  // Replaced in place (same key position) by a copy: the caller's document is never mutated.
  const copy: JsonObject = isPlainObject(current) ? { ...current } : {};
  settings[name] = copy;
  return copy;
}

/**
 * `settings` with the package applied: each look path the package carries replaces the site's; every
 * other path and key stays exactly as it was (same values, same key order).
 */
export function applyLook(settings: JsonObject, pkg: ThemePackage): JsonObject {
  const next: JsonObject = { ...settings };
  for (const path of LOOK_PATHS) {
    const value = lookValue(pkg, path);
    if (value === undefined) continue;
    container(next, path[0])[path[1]] = structuredClone(value);
  }
  return next;
}

/**
 * `settings` with a snapshot restored: every look path returns to its value before the apply, or to
 * absence; a container that did not exist then and holds nothing now is removed again.
 */
export function restoreLook(settings: JsonObject, snapshot: LookSnapshot): JsonObject {
  const next: JsonObject = { ...settings };
  for (const path of LOOK_PATHS) {
    const name = pathName(path);
    const [parentName, key] = path;
    const has = Object.hasOwn(snapshot.values, name);
    if (!has && !isPlainObject(next[parentName])) continue;
    const parent = container(next, parentName);
    if (has) parent[key] = structuredClone(snapshot.values[name]);
    else delete parent[key];
  }
  for (const name of snapshot.absent) {
    const value = next[name];
    if (isPlainObject(value) && Object.keys(value).length === 0) delete next[name];
  }
  return next;
}

/** A stored snapshot read back; one that does not parse is a storage failure, never "restore nothing". */
export function readSnapshot(json: string): LookSnapshot {
  const parsed: unknown = JSON.parse(json);
  if (isPlainObject(parsed) && isPlainObject(parsed.values) && Array.isArray(parsed.absent)) {
    return { values: parsed.values, absent: parsed.absent.filter((c): c is string => typeof c === "string") };
  }
  throw new Error("theme snapshot: not a look snapshot");
}
