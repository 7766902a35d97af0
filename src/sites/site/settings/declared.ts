/**
 * The document against its declared schema (schema.ts): every key must be declared (400
 * SETTINGS_UNKNOWN_KEY with its path) and every declared value of its kind (400 BAD_REQUEST with its
 * path), except where the stored document already holds the same value at the same place: a
 * read-modify-write of a document stored before the schema (or before a key left it) passes unchanged,
 * while a new or changed value is judged. Runs after the families (their codes come first) on the
 * validated copy. Also the markup the document puts on the page, derived from the same schema.
 */
import { isSiteAssetUrl, isStrictAssetUrl } from "./asset-urls";
import { HEX_COLOR } from "./customization";
import { charLength, fieldPath, indexPath, isOneOf, isPlainObject, type JsonObject } from "./json";
import {
  isMarkupName,
  type LeafKind,
  type ObjectNode,
  SETTINGS_SCHEMA,
  type SettingsNode,
  type TaggedNode,
} from "./schema";
import { refuse } from "./violation";

/** JSON with object keys sorted, so that key order alone never counts as a change. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    isPlainObject(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, v[k]]),
        )
      : v,
  );
}

/** The one characters a link may never hold: they break out of an attribute or hide a scheme. */
const UNSAFE_LINK = /[\s"'`<>\\\p{Cc}]/u;
const LINK_MAX = 2048;

/**
 * A link a visitor follows (a call to action's `href`): an http(s) URL or a path of the site (the asset
 * rule), `mailto:`, `tel:`, or a `#fragment`. Never `javascript:`, `data:` or another scheme: the value
 * lands in an `href`, where those run script.
 */
function isLink(value: string): boolean {
  if (value.length === 0 || value.length > LINK_MAX || UNSAFE_LINK.test(value)) return false;
  if (isSiteAssetUrl(value)) return true;
  return /^(mailto:[^/]|tel:\+?[0-9][0-9().-]*$|#[A-Za-z0-9_-]*$)/i.test(value);
}

const LEAF_RULES: Record<LeafKind, [test: (v: unknown, max?: number) => boolean, rule: string]> = {
  text: [(v, max) => typeof v === "string" && (max === undefined || charLength(v) <= max), "must be text"],
  link: [
    (v) => typeof v === "string" && isLink(v),
    "must be an http(s) URL, a path of the site, mailto:, tel: or #fragment",
  ],
  asset_url: [isSiteAssetUrl, "must be an http(s) URL or an absolute path of the site"],
  strict_url: [isStrictAssetUrl, "must be https://host/path or an absolute path of the site"],
  svg: [(v) => typeof v === "string", "must be SVG markup"],
  markup: [() => true, ""],
  color: [(v) => typeof v === "string" && HEX_COLOR.test(v), "must be a hex color"],
  timestamp: [(v) => typeof v === "string", "must be an ISO-8601 timestamp"],
  integer: [(v) => typeof v === "number" && Number.isInteger(v), "must be an integer"],
  number: [(v) => typeof v === "number" && Number.isFinite(v), "must be a number"],
  boolean: [(v) => typeof v === "boolean", "must be true or false"],
};

/**
 * What the stored document holds at the place being walked: the value at the same key path, and for a
 * list item every item of the stored list (a block moved or a block inserted before it keeps its stored
 * fields), so "stored unchanged" never depends on an index.
 */
type Stored = readonly unknown[];

function storedAt(stored: Stored, key: string): Stored {
  return stored.flatMap((s) => (isPlainObject(s) && Object.hasOwn(s, key) ? [s[key]] : []));
}

function storedItems(stored: Stored): Stored {
  return stored.flatMap((s) => (Array.isArray(s) ? s : []));
}

function storedUnchanged(stored: Stored, value: unknown): boolean {
  if (stored.length === 0) return false;
  const wanted = canonicalJson(value);
  return stored.some((s) => canonicalJson(s) === wanted);
}

/** 400 BAD_REQUEST at `path` unless the same value is stored there. */
function wrongKind(value: unknown, stored: Stored, path: string, rule: string): void {
  if (!storedUnchanged(stored, value)) refuse("BAD_REQUEST", path, rule);
}

function tagOf(node: TaggedNode, value: JsonObject): ObjectNode | null {
  const variant = value[node.tag];
  if (typeof variant !== "string" || !Object.hasOwn(node.variants, variant)) return null;
  return {
    kind: "object",
    fields: { [node.tag]: { kind: "enum", values: Object.keys(node.variants) }, ...node.variants[variant] },
  };
}

function walkObject(value: JsonObject, node: ObjectNode, stored: Stored, path: string): void {
  for (const [key, child] of Object.entries(value)) {
    const childPath = fieldPath(path, key);
    const declared = Object.hasOwn(node.fields, key) ? node.fields[key] : node.rest;
    if (declared) {
      walk(child, declared, storedAt(stored, key), childPath);
    } else if (!storedUnchanged(storedAt(stored, key), child)) {
      refuse(
        "SETTINGS_UNKNOWN_KEY",
        childPath,
        "not a key of the settings document (every key is declared; only settings.ads and free-form values take others)",
      );
    }
  }
}

/** Why `value` is not of `node`'s kind (and where), or null. */
function kindProblem(value: unknown, node: SettingsNode, path: string): { at: string; rule: string } | null {
  switch (node.kind) {
    case "open":
      return null;
    case "enum":
      return isOneOf(value, node.values)
        ? null
        : { at: path, rule: `must be one of ${node.values.join(", ")}` };
    case "object":
    case "map":
      return isPlainObject(value) ? null : { at: path, rule: "must be an object" };
    case "tagged":
      if (!isPlainObject(value)) return { at: path, rule: "must be an object" };
      return tagOf(node, value) ? null : { at: `${path}.${node.tag}`, rule: "unknown kind" };
    case "list":
      return Array.isArray(value) ? null : { at: path, rule: "must be a list" };
    default: {
      const [test, rule] = LEAF_RULES[node.kind];
      if (test(value, node.max)) return null;
      return { at: path, rule: node.max === undefined ? rule : `${rule} of at most ${node.max} characters` };
    }
  }
}

/** A key whose string value lands in an `href` or a `src` wherever the front end renders it. */
const LINK_NAME = /^(href|src|url|link)$|_(href|src|url|link)$/i;
/** Schemes that run script where a link lands (browsers drop whitespace and control characters in them). */
const SCRIPT_SCHEME = /^(javascript|data|vbscript):/i;

/**
 * A free-form value keeps its shape, but a link in it is still a link: a site_editor must not plant
 * `javascript:` in a menu item's `href` (stored exactly, the front end renders it). Judged by the key's
 * name, as markup in free-form values is (`html`, `*_html`).
 */
function walkOpen(value: unknown, stored: Stored, path: string, key: string | undefined): void {
  if (typeof value === "string") {
    if (key && LINK_NAME.test(key) && SCRIPT_SCHEME.test(value.replace(/[\s\p{Cc}]/gu, ""))) {
      wrongKind(value, stored, path, "must not be a javascript:, data: or vbscript: URL");
    }
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => {
      walkOpen(item, storedItems(stored), indexPath(path, i), key);
    });
  } else if (isPlainObject(value)) {
    for (const [name, child] of Object.entries(value)) {
      walkOpen(child, storedAt(stored, name), fieldPath(path, name), name);
    }
  }
}

function walk(value: unknown, node: SettingsNode, stored: Stored, path: string): void {
  if (value === null || value === undefined) return;
  const problem = kindProblem(value, node, path);
  if (problem) {
    // Stored as it is: not judged again (nor what it holds).
    wrongKind(value, stored, problem.at, problem.rule);
  } else if (node.kind === "object" && isPlainObject(value)) {
    walkObject(value, node, stored, path);
  } else if (node.kind === "tagged" && isPlainObject(value)) {
    const variant = tagOf(node, value);
    if (variant) walkObject(value, variant, stored, path);
  } else if (node.kind === "list" && Array.isArray(value)) {
    value.forEach((item, i) => {
      walk(item, node.items, storedItems(stored), indexPath(path, i));
    });
  } else if (node.kind === "map" && isPlainObject(value)) {
    for (const [key, child] of Object.entries(value)) {
      walk(child, node.values, storedAt(stored, key), fieldPath(path, key));
    }
  } else if (node.kind === "open") {
    walkOpen(value, stored, path, /\.([^.[\]]+)$/.exec(path)?.[1]);
  }
}

/** SETTINGS_UNKNOWN_KEY / BAD_REQUEST for the first key or value outside the schema (`stored` tolerated). */
export function checkDeclared(document: JsonObject, stored: JsonObject): void {
  walk(document, SETTINGS_SCHEMA, [stored], "settings");
}

/** One value on the page as markup: where (list indexes left out, so moving blocks is layout) and what. */
type MarkupEntry = [where: string, value: unknown];

function namedMarkup(value: unknown, where: string, out: MarkupEntry[]): void {
  if (Array.isArray(value)) {
    for (const item of value) namedMarkup(item, `${where}[]`, out);
  } else if (isPlainObject(value)) {
    for (const [key, child] of Object.entries(value)) {
      if (child === null || child === undefined) continue;
      if (isMarkupName(key)) out.push([fieldPath(where, key), child]);
      else namedMarkup(child, fieldPath(where, key), out);
    }
  }
}

function collectObject(value: JsonObject, node: ObjectNode, where: string, out: MarkupEntry[]): void {
  for (const [key, child] of Object.entries(value)) {
    const declared = Object.hasOwn(node.fields, key) ? node.fields[key] : node.rest;
    // A free-form key, or an undeclared one (stored before the schema): judged by its names, its own too.
    if (!declared || declared.kind === "open") namedMarkup({ [key]: child }, where, out);
    else collect(child, declared, fieldPath(where, key), out);
  }
}

function collect(value: unknown, node: SettingsNode, where: string, out: MarkupEntry[]): void {
  if (value === null || value === undefined) return;
  if (node.kind === "markup") {
    out.push([where, value]);
    return;
  }
  const shape = node.kind === "tagged" && isPlainObject(value) ? tagOf(node, value) : node;
  if (shape?.kind === "object" && isPlainObject(value)) {
    collectObject(value, shape, where, out);
  } else if (shape?.kind === "list" && Array.isArray(value)) {
    for (const item of value) collect(item, shape.items, `${where}[]`, out);
  } else if (shape?.kind === "map" && isPlainObject(value)) {
    for (const [key, child] of Object.entries(value)) {
      collect(child, shape.values, fieldPath(where, key), out);
    }
  } else {
    // Free-form, or a value not of its declared shape (refused on write, but possibly stored): by names.
    namedMarkup(value, where, out);
  }
}

/**
 * The markup a document puts on the page, as a comparable string: entries sorted by place (a stable
 * sort, so the html blocks of one list keep their order), so object key order never counts.
 */
export function markupOf(settings: JsonObject): string {
  const out: MarkupEntry[] = [];
  collect(settings, SETTINGS_SCHEMA, "settings", out);
  out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return canonicalJson(out);
}
