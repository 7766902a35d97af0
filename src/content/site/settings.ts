/**
 * `GET|PATCH /v1/site/settings` and `GET|PATCH /v1/site/seo`: the site's settings document, owned by
 * the sites service, read and written through its RPC (`siteSettings`, `mergeSiteSettings`). Content
 * keeps no copy, so a read never serves settings older than the last write. Content decides only what
 * an API key may see and send (the allowlists below); sites merges, validates (its settings validator,
 * the same codes as its PATCH), rehosts images and stores, and content answers with the code and status
 * sites gave.
 */

import { z } from "@hono/zod-openapi";
import { bearerRefusal } from "../../lib/bearer";
import { rpc, type SiteSettingsMerge, type SitesRpc, type StoredSiteSettings } from "../../lib/rpc";
import { isSettingsWriteCode } from "../../lib/settings-codes";
import type { Env } from "../core/bindings";
import { fail } from "../errors";

/**
 * The SiteSettings allowlist: the only top-level keys a key reads or writes. Everything else stays out,
 * including `integrations`, `code_injection`, `ads`, `applets`, `modals`, `seo` (its own operations), the
 * inert legacy `colors`, `typography`, `layout`, `header`, `footer`, `custom_css`, and any key added later.
 */
export const SITE_SETTINGS_KEYS = [
  "social",
  "footer_columns",
  "legal_links",
  "search",
  "customization",
  "advanced",
  "subscriptions_enabled",
  "language_url_mode",
] as const;

const anyJson = (description: string) => z.unknown().openapi({ description });

export const SiteSettingsSchema = z
  .strictObject({
    social: anyJson("Social profiles of the site"),
    footer_columns: anyJson("Footer link columns"),
    legal_links: anyJson("Links to the legal pages"),
    search: anyJson("Site search options"),
    customization: anyJson(
      "Look of the site: theme_base (light, auto, dark, sepia, high_contrast), typography, layout, colors; checked by the sites settings validator (CUSTOMIZATION_*)",
    ),
    advanced: anyJson(
      "Advanced options; the renderer may output them as markup, so changing them needs scope site:code",
    ),
    subscriptions_enabled: anyJson("Whether readers may subscribe"),
    language_url_mode: anyJson("How languages appear in URLs"),
  })
  .partial()
  .openapi("SiteSettings", {
    description:
      "The allowlisted top-level keys of the site's settings document; a key absent from the stored document is absent here.",
  });

/**
 * Members the spec says a settings write ignores (`org_id`, `status`, `site_id`, `slug` "in the body"): declared,
 * so they are not refused as unknown, and never read. They come from the key's site, never from a body.
 */
const IGNORED_SETTINGS_MEMBERS = ["org_id", "status", "site_id", "slug"] as const;

const ignoredMembers = Object.fromEntries(
  IGNORED_SETTINGS_MEMBERS.map((name) => [
    name,
    z.unknown().optional().openapi({
      description: "Ignored: the site is the key's, never the body's",
    }),
  ]),
) as Record<(typeof IGNORED_SETTINGS_MEMBERS)[number], z.ZodOptional<z.ZodUnknown>>;

/** The `settings` of a write: the allowlisted keys, and the ignored members (any other key is refused). */
const SiteSettingsChangeSchema = SiteSettingsSchema.extend(ignoredMembers).openapi("SiteSettingsChange", {
  description:
    "The allowlisted keys to merge, each replacing that key's stored value whole (no deep merge); null removes it. org_id, status, site_id and slug are ignored; any other key is 400 BAD_REQUEST naming it (details.path), nothing stored.",
});

/**
 * Body of `PATCH /v1/site/settings` (strict, issue 33): `settings`, and the ignored members; any other
 * member is refused (400 BAD_REQUEST naming it), never dropped.
 */
export const SiteSettingsPatchSchema = z
  .strictObject({
    settings: SiteSettingsChangeSchema.optional(),
    ...ignoredMembers,
  })
  .openapi("SiteSettingsPatch");

export const SiteSettingsViewSchema = z
  .object({
    settings: SiteSettingsSchema,
    settings_unreadable: z.literal(true).optional().openapi({
      description: "Present when the stored document is not a JSON object (settings is then {})",
    }),
  })
  .openapi("SiteSettingsView");

/**
 * Site-level SEO, merged into `settings.seo`: the post SEO keys that make sense for a whole site (no
 * per-page `canonical_url`, `og_image` or `focus_keyword`) plus `default_og_image`, the key the sites
 * validator checks (and rehosts) under `seo`. Other keys of `settings.seo` (search-console
 * verifications, anything added later) are neither shown nor writable with a key.
 */
export const SiteSeoSchema = z
  .strictObject({
    meta_title: z.string().max(300).nullable(),
    meta_description: z.string().max(1000).nullable(),
    og_title: z.string().max(300).nullable(),
    og_description: z.string().max(1000).nullable(),
    default_og_image: z.string().nullable().openapi({
      description:
        "http(s) URL or an absolute path of the site (else 400 SETTINGS_INVALID_ASSET_URL); an external image is rehosted on the platform CDN, and one that image ingest refuses for good is 422 IMAGEM_EXTERNA_INVALIDA",
    }),
    twitter_card: z.enum(["summary", "summary_large_image"]).nullable(),
    noindex: z.boolean().nullable(),
  })
  .partial()
  .openapi("SiteSeo");

export const SITE_SEO_KEYS = SiteSeoSchema.keyof().options;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The allowed keys present in `source` (own keys only, `undefined` = absent). */
function pick(source: unknown, keys: readonly string[]): Record<string, unknown> {
  if (!isObject(source)) return {};
  return Object.fromEntries(
    keys.filter((k) => Object.hasOwn(source, k) && source[k] !== undefined).map((k) => [k, source[k]]),
  );
}

function nothingEditable(keys: readonly string[], where: string): never {
  fail("NOTHING_EDITABLE", `The body contains no editable key (${where}: ${keys.join(", ")}).`);
}

/** The allowlisted keys of `body.settings`; none is 400 NOTHING_EDITABLE. */
export function settingsPatch(body: { settings?: unknown }): Record<string, unknown> {
  const patch = pick(body.settings, SITE_SETTINGS_KEYS);
  if (Object.keys(patch).length === 0) nothingEditable(SITE_SETTINGS_KEYS, "settings");
  return patch;
}

/** The allowlisted SEO keys of the body; none is 400 NOTHING_EDITABLE. */
export function seoPatch(body: Record<string, unknown>): Record<string, unknown> {
  const patch = pick(body, SITE_SEO_KEYS);
  if (Object.keys(patch).length === 0) nothingEditable(SITE_SEO_KEYS, "the body");
  return patch;
}

/** What a key sees of a stored document: the allowlisted keys only. */
export function settingsView(stored: StoredSiteSettings): z.infer<typeof SiteSettingsViewSchema> {
  return {
    settings: pick(stored.settings, SITE_SETTINGS_KEYS),
    ...(stored.unreadable ? { settings_unreadable: true as const } : {}),
  };
}

/** Every allowed SEO key, null when unset. */
export function seoView(settings: Record<string, unknown>): Record<string, unknown> {
  const seo = pick(settings.seo, SITE_SEO_KEYS);
  return Object.fromEntries(SITE_SEO_KEYS.map((k) => [k, seo[k] ?? null]));
}

function sitesUnavailable(err: unknown): never {
  fail("SITES_UNAVAILABLE", {
    detail: "The site registry did not answer; retry.",
    reason: String(err),
  });
}

/** A site sites no longer shows (deleted or archived, before content's projection caught up). */
function siteGone(): never {
  throw bearerRefusal("invalid", "The API key is invalid or revoked.");
}

/** The key's site's stored settings, fresh from sites. */
export async function readStoredSettings(env: Env, siteId: string): Promise<StoredSiteSettings> {
  let stored: StoredSiteSettings | null;
  try {
    stored = await rpc<SitesRpc>(env.SITES).siteSettings(siteId);
  } catch (err) {
    sitesUnavailable(err);
  }
  return stored ?? siteGone();
}

/**
 * Sites refused a change of markup settings (`advanced`, or an `html` / `*_html` key inside a free-form
 * value such as `social`): the key lacks site:code; nothing was stored.
 */
function markupNeedsScope(): never {
  fail("INSUFFICIENT_SCOPE", {
    detail:
      "Changing settings output as markup (advanced, or an html or *_html key inside a free-form value) requires the scope(s): site:write, site:code.",
    details: { required_scopes: ["site:write", "site:code"], missing_scopes: ["site:code"] },
  });
}

/** Merges through sites; answers sites' refusal with its code (and `invalid_images`). */
export async function mergeStoredSettings(
  env: Env,
  merge: SiteSettingsMerge,
): Promise<Record<string, unknown>> {
  let result: Awaited<ReturnType<SitesRpc["mergeSiteSettings"]>>;
  try {
    result = await rpc<SitesRpc>(env.SITES).mergeSiteSettings(merge);
  } catch (err) {
    sitesUnavailable(err);
  }
  if (result.ok) return result.settings;
  // Sites refused a change of markup settings: the key lacks site:code (nothing was stored).
  if (result.code === "FORBIDDEN") markupNeedsScope();
  if (result.code === "NOT_FOUND") siteGone();
  if (!isSettingsWriteCode(result.code)) sitesUnavailable(`unexpected refusal code ${String(result.code)}`);
  fail(result.code, {
    detail: result.detail,
    ...(result.details ? { details: result.details } : {}),
    ...(Array.isArray(result.invalid_images)
      ? { extensions: { invalid_images: result.invalid_images } }
      : {}),
  });
}
