/**
 * The declared schema of a site's settings document: every key the document accepts, with its kind, in
 * this one place (issue 31; docs/decisions/settings-schema.md). The families (assets.ts, logo.ts,
 * modals.ts, ...) judge values with the spec's codes; `declared.ts` walks the document against this
 * schema, so a key declared nowhere is 400 SETTINGS_UNKNOWN_KEY, and `markup.ts` derives from it which
 * values reach the page as markup (the `code` permission).
 *
 * Why a closed schema: a key no rule knows is a key no rule guards. A `site_editor` stored
 * `home.sections[].html` (script on every page) because the markup rule listed four places and the
 * builder let other keys through; with every key declared, markup can only sit where a `markup` kind
 * says so (or under a free-form value, where a markup-named key is markup by its name).
 *
 * Free-form (`open`): `ads` (the spec: unknown keys tolerated there, unlike modals), the values both
 * specs name without their fields (`menu`, `cookies`, `social`, `footer_columns`, `legal_links`,
 * `search`, `integrations`, the inert legacy `colors`, `typography`, `layout`), and an applet's own
 * settings beside `enabled` and `installed_at`.
 */

import { LEGAL_DATA_KEYS, LEGAL_DATA_MAX, PERFIS, SETORES } from "../../legal/cases";
import { JURISDICTIONS } from "../../legal/catalog";
import { BLOCK_TYPES } from "./builder";
import { FOOTER_MODELS, HEADER_MODELS, THEME_BASES } from "./customization";

/** Kinds of a leaf value: what the walk checks (`null` is absent for every kind). */
export type LeafKind =
  /** A string shown as text (the renderer escapes it); `max` characters when given. */
  | "text"
  /** A link a visitor follows: http(s), a path of the site, `mailto:`, `tel:` or `#fragment`. */
  | "link"
  /** An image or file of the site: http(s) or a path of the site (spec (b)). */
  | "asset_url"
  /** The strict rule: `https://host/path` or a path of the site. */
  | "strict_url"
  /** SVG markup, sanitized on write (no script survives): not `markup`. */
  | "svg"
  /** Reaches the page as markup or script, whatever its shape: needs the `code` permission. */
  | "markup"
  | "color"
  | "timestamp"
  | "integer"
  | "number"
  | "boolean";

export type SettingsNode =
  | { kind: LeafKind; max?: number }
  | { kind: "enum"; values: readonly string[] }
  /** Declared keys; `rest` (when given) is the kind of every other key. */
  | { kind: "object"; fields: Readonly<Record<string, SettingsNode>>; rest?: SettingsNode }
  /** An object whose `tag` key picks the set of keys it may carry. */
  | {
      kind: "tagged";
      tag: string;
      variants: Readonly<Record<string, Readonly<Record<string, SettingsNode>>>>;
    }
  | { kind: "list"; items: SettingsNode }
  /** An object of any key names (the family checks them) to values of one kind. */
  | { kind: "map"; values: SettingsNode }
  /** Free-form: any JSON; only a markup-named key inside it is judged (as markup). */
  | { kind: "open" };

export type ObjectNode = Extract<SettingsNode, { kind: "object" }>;
export type TaggedNode = Extract<SettingsNode, { kind: "tagged" }>;

const leaf = (kind: LeafKind, max?: number): SettingsNode => (max === undefined ? { kind } : { kind, max });
const text = (max?: number) => leaf("text", max);
const oneOf = (values: readonly string[]): SettingsNode => ({ kind: "enum", values });
const object = (fields: Record<string, SettingsNode>, rest?: SettingsNode): ObjectNode =>
  rest ? { kind: "object", fields, rest } : { kind: "object", fields };
const list = (items: SettingsNode): SettingsNode => ({ kind: "list", items });
const map = (values: SettingsNode): SettingsNode => ({ kind: "map", values });
const OPEN: SettingsNode = { kind: "open" };
const MARKUP = leaf("markup");

/** Logo sources' formats, most capable first (stored sources are sorted into this order). */
export const LOGO_SOURCE_TYPES = [
  "image/svg+xml",
  "image/avif",
  "image/webp",
  "image/png",
  "image/jpeg",
] as const;
export const MODAL_CONTENT_KINDS = ["form", "ad", "text"] as const;
export const MODAL_TRIGGER_KINDS = ["delay", "scroll", "exit_intent"] as const;
export const AUDIENCE_DEVICES = ["desktop", "mobile"] as const;
export const TWITTER_CARDS = ["summary", "summary_large_image"] as const;

/** Spec (d): one variant is EITHER `svg_markup` OR `sources` (logo.ts judges which). */
const LOGO_VARIANT = object({
  svg_markup: leaf("svg"),
  sources: list(object({ type: oneOf(LOGO_SOURCE_TYPES), url: leaf("strict_url") })),
});
export const LOGO = object({
  version: leaf("integer"),
  alt: text(),
  width: leaf("integer"),
  height: leaf("integer"),
  light: LOGO_VARIANT,
  dark: LOGO_VARIANT,
});

export const MODAL_CONTENT: TaggedNode = {
  kind: "tagged",
  tag: "kind",
  variants: { form: { form_id: text() }, ad: { unit_id: text() }, text: { text: text() } } satisfies Record<
    (typeof MODAL_CONTENT_KINDS)[number],
    Record<string, SettingsNode>
  >,
};
export const MODAL_TRIGGER: TaggedNode = {
  kind: "tagged",
  tag: "kind",
  variants: {
    delay: { seconds: leaf("integer") },
    scroll: { percent: leaf("integer") },
    exit_intent: {},
  } satisfies Record<(typeof MODAL_TRIGGER_KINDS)[number], Record<string, SettingsNode>>,
};
export const MODAL_PAGES = object({ include: list(text()), exclude: list(text()) });
export const MODAL_FREQUENCY = object({
  max_shows: leaf("integer"),
  per: oneOf(["days"]),
  days: leaf("integer"),
});
export const MODAL_AUDIENCE = object({
  devices: list(oneOf(AUDIENCE_DEVICES)),
  new_visitors_only: leaf("boolean"),
});
export const MODAL_RULES = object({
  trigger: MODAL_TRIGGER,
  pages: MODAL_PAGES,
  frequency: MODAL_FREQUENCY,
  audience: MODAL_AUDIENCE,
});
export const MODAL = object({
  id: text(),
  title: text(),
  enabled: leaf("boolean"),
  content: MODAL_CONTENT,
  rules: MODAL_RULES,
});

/** A palette: any color name to a hex color; `colors` may hold one `dark` palette of the same shape. */
const PALETTE = object({ dark: map(leaf("color")) }, leaf("color"));

/** A call to action of the header or the footer (spec: `header.cta`, `footer.cta`). */
const CTA = object({ label: text(120), href: leaf("link") });

/**
 * A block of the home page builder. `title` is the block's heading (plain text; a theme never carries
 * it); `html` is the site's own markup (an `html` block's, or any block carrying one).
 */
const BLOCK = object({
  type: oneOf(BLOCK_TYPES),
  variant: text(),
  columns: leaf("integer"),
  title: text(200),
  source: object({
    filter: object({ language: text(), category_slugs: list(text()), tag_slugs: list(text()) }),
    limit: leaf("integer"),
  }),
  html: MARKUP,
});

const LEGAL = object({
  perfil: oneOf(PERFIS),
  setor: oneOf(SETORES),
  jurisdiction: oneOf(JURISDICTIONS),
  ...Object.fromEntries(LEGAL_DATA_KEYS.map((key) => [key, text(LEGAL_DATA_MAX)])),
});

/** Site-level SEO (spec: `seo` with `default_og_image`; content's SiteSeo keys merge into it). */
const SEO = object({
  default_og_image: leaf("asset_url"),
  meta_title: text(300),
  meta_description: text(1000),
  og_title: text(300),
  og_description: text(1000),
  twitter_card: oneOf(TWITTER_CARDS),
  noindex: leaf("boolean"),
});

/** The whole document. */
export const SETTINGS_SCHEMA: ObjectNode = object({
  // Assets (spec (a), (b)) and the media ids rehosting writes beside them.
  logo_svg: leaf("svg"),
  favicon_svg: leaf("svg"),
  logo_url: leaf("asset_url"),
  favicon_png_url: leaf("asset_url"),
  favicon_ico_url: leaf("asset_url"),
  logo_media_id: text(),
  favicon_png_media_id: text(),
  favicon_ico_media_id: text(),
  favicon_kit: map(leaf("strict_url")),
  seo: SEO,
  logo: LOGO,
  customization: object({
    theme_base: oneOf(THEME_BASES),
    colors: PALETTE,
    typography: object({
      font_primary: text(),
      font_secondary: text(),
      line_height: leaf("number"),
      letter_spacing: leaf("number"),
    }),
    layout: object({ radius: leaf("integer") }),
  }),
  header: object({ model: oneOf(HEADER_MODELS), cta: CTA }),
  footer: object({ model: oneOf(FOOTER_MODELS), cta: CTA }),
  home: object({ blocks: list(BLOCK) }),
  ads: OPEN,
  modals: list(MODAL),
  applets: map(object({ enabled: leaf("boolean"), installed_at: leaf("timestamp") }, OPEN)),
  legal: LEGAL,
  code_injection: MARKUP,
  about_html: MARKUP,
  advanced: MARKUP,
  menu: OPEN,
  cookies: OPEN,
  // Content's SiteSettings allowlist (its spec names the keys, not their fields).
  social: OPEN,
  footer_columns: OPEN,
  legal_links: OPEN,
  search: OPEN,
  subscriptions_enabled: leaf("boolean"),
  language_url_mode: text(64),
  // Named by content's spec among the keys a key never reads: private, and the inert legacy ones.
  integrations: OPEN,
  colors: OPEN,
  typography: OPEN,
  layout: OPEN,
  custom_css: text(),
});

/** The keys of a tagged object's variant, the tag included. */
export function variantKeys(node: TaggedNode, variant: string): string[] {
  return [node.tag, ...Object.keys(node.variants[variant] ?? {})];
}

/** Every key any variant of a tagged object may carry. */
export function taggedKeys(node: TaggedNode): string[] {
  return [...new Set(Object.keys(node.variants).flatMap((v) => variantKeys(node, v)))];
}

/** The node of `key` in whichever variant declares it (variants never give one key two kinds). */
function variantField(node: TaggedNode, key: string): SettingsNode {
  for (const fields of Object.values(node.variants)) if (Object.hasOwn(fields, key)) return fields[key]!;
  return OPEN;
}

/**
 * A key inside a free-form value that reaches the page as markup by its name: `html`, or a name ending
 * in `_html` (`banner_html`), any case. Free-form values have no declared kinds, so the name decides.
 */
export function isMarkupName(key: string): boolean {
  const lower = key.toLowerCase();
  return lower === "html" || lower.endsWith("_html");
}

/**
 * Every declared path, as `a.b`, `a[].b` for list items and `a.*.b` for map values (and an object's
 * other keys); a tagged object lists the keys of all its variants. `kind` is the node's kind.
 */
export function declaredPaths(
  node: SettingsNode = SETTINGS_SCHEMA,
  prefix = "",
): { path: string; kind: string }[] {
  const join = (key: string) => (prefix ? `${prefix}.${key}` : key);
  switch (node.kind) {
    case "object":
      return [
        ...Object.entries(node.fields).flatMap(([key, child]) => [
          { path: join(key), kind: child.kind },
          ...declaredPaths(child, join(key)),
        ]),
        ...(node.rest
          ? [{ path: join("*"), kind: node.rest.kind }, ...declaredPaths(node.rest, join("*"))]
          : []),
      ];
    case "tagged":
      return taggedKeys(node).flatMap((key) => {
        const child = key === node.tag ? oneOf(Object.keys(node.variants)) : variantField(node, key);
        return [{ path: join(key), kind: child.kind }, ...declaredPaths(child, join(key))];
      });
    case "list":
      return declaredPaths(node.items, `${prefix}[]`);
    case "map":
      return [{ path: join("*"), kind: node.values.kind }, ...declaredPaths(node.values, join("*"))];
    default:
      return [];
  }
}

/** The declared markup fields, as errors name them: `code_injection, about_html, advanced, home.blocks[].html`. */
export const MARKUP_PATHS: readonly string[] = declaredPaths()
  .filter((p) => p.kind === "markup")
  .map((p) => p.path);
