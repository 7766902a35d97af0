/** The site as the API shows it, as content's projection sees it, and as the renderer reads it. */
import { z } from "@hono/zod-openapi";
import type { SiteProjection } from "../../lib/rpc";
import { canonicalHost } from "../health/domains";
import { provedHostsOf } from "../health/domains-store";
import type { SiteRow } from "./store";

export type SettingsDocument = Record<string, unknown>;

/** A stored document that is not a JSON object reads as `{}` with `unreadable` (never a 500). */
export function readSettings(stored: string): { settings: SettingsDocument; unreadable: boolean } {
  try {
    const parsed: unknown = JSON.parse(stored);
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) {
      return { settings: parsed as SettingsDocument, unreadable: false };
    }
  } catch {
    // falls through: unreadable
  }
  return { settings: {}, unreadable: true };
}

function stringArray(stored: string): string[] {
  try {
    const parsed: unknown = JSON.parse(stored);
    return Array.isArray(parsed) ? parsed.filter((v): v is string => typeof v === "string") : [];
  } catch {
    return [];
  }
}

export const SiteSchema = z
  .object({
    id: z.string(),
    org_id: z.string(),
    name: z.string(),
    slug: z.string(),
    primary_domain: z.string().nullable(),
    aliases: z.array(z.string()),
    canonical_host: z.string(),
    default_language: z.string(),
    languages: z.array(z.string()),
    theme: z.string().nullable(),
    status: z.string(),
    status_reason: z.string().nullable(),
    status_changed_at: z.string().nullable(),
    previous_status: z.string().nullable(),
    settings: z.record(z.string(), z.unknown()),
    settings_unreadable: z.boolean().optional(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Site");

export type SiteRecord = z.infer<typeof SiteSchema>;

/** `toSiteRecord` with the site's proved hosts read from the database. */
export async function siteRecordOf(
  db: D1Database,
  row: SiteRow,
  platformDomain: string,
): Promise<SiteRecord> {
  return toSiteRecord(row, platformDomain, await provedHostsOf(db, row.id));
}

/**
 * The site as its members see it: the domains as set; `canonical_host` is the primary domain only once
 * proved (`proved`: the site's proved custom hosts), else the platform host.
 */
export function toSiteRecord(row: SiteRow, platformDomain: string, proved: ReadonlySet<string>): SiteRecord {
  const { settings, unreadable } = readSettings(row.settings);
  return {
    id: row.id,
    org_id: row.org_id,
    name: row.name,
    slug: row.slug,
    primary_domain: row.primary_domain,
    aliases: stringArray(row.aliases),
    canonical_host: canonicalHost(row, platformDomain, proved),
    default_language: row.default_language,
    languages: languagesOf(row),
    theme: row.theme,
    status: row.status,
    status_reason: row.status_reason,
    status_changed_at: row.status_changed_at,
    previous_status: row.previous_status,
    settings,
    ...(unreadable ? { settings_unreadable: true } : {}),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/**
 * What the renderer needs to serve a host. `by-host` is public (any visitor's request resolves a host),
 * so it carries no owner organization and no lifecycle bookkeeping.
 */
const LogoVariantSchema = z
  .object({
    svg_markup: z.string().optional(),
    sources: z.array(z.object({ type: z.string(), url: z.string() })).optional(),
  })
  .openapi("LogoVariant");

export const ResolvedLogoSchema = z
  .object({
    alt: z.string().nullable(),
    width: z.number().int(),
    height: z.number().int(),
    light: LogoVariantSchema,
    dark: LogoVariantSchema.openapi({ description: "The dark variant, or the light one when none is set" }),
    dark_is_fallback: z
      .boolean()
      .openapi({ description: "true when dark repeats light (no dark variant set)" }),
  })
  .openapi("ResolvedLogo", {
    description:
      "settings.logo as the renderer shows it. The renderer uses `dark` wherever it shows the dark palette " +
      "(settings.customization.theme_base); null when settings carry no logo contract (legacy logo_svg / " +
      "logo_url then apply).",
  });

export type ResolvedLogo = z.infer<typeof ResolvedLogoSchema>;
type LogoVariant = z.infer<typeof LogoVariantSchema>;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function readVariant(value: unknown): LogoVariant | null {
  if (!isObject(value)) return null;
  if (typeof value.svg_markup === "string") return { svg_markup: value.svg_markup };
  if (!Array.isArray(value.sources) || value.sources.length === 0) return null;
  const sources = value.sources.filter(
    (s): s is { type: string; url: string } =>
      isObject(s) && typeof s.type === "string" && typeof s.url === "string",
  );
  return sources.length === value.sources.length
    ? { sources: sources.map(({ type, url }) => ({ type, url })) }
    : null;
}

/**
 * The logo contract resolved for display: "dark variant optional (falls back to light)". The stored
 * document keeps exactly what the owner sent (no dark is written); the fallback is applied here, on the
 * read model the renderer uses. A stored logo that does not follow the contract (legacy data written
 * before validation) resolves to null rather than failing the read.
 */
export function resolveLogo(settings: SettingsDocument): ResolvedLogo | null {
  const logo = settings.logo;
  if (!isObject(logo)) return null;
  const { width, height } = logo;
  if (typeof width !== "number" || !Number.isInteger(width)) return null;
  if (typeof height !== "number" || !Number.isInteger(height)) return null;
  const light = readVariant(logo.light);
  if (!light) return null;
  const dark = readVariant(logo.dark);
  return {
    alt: typeof logo.alt === "string" ? logo.alt : null,
    width,
    height,
    light,
    dark: dark ?? light,
    dark_is_fallback: dark === null,
  };
}

export const PublicSiteSchema = SiteSchema.pick({
  id: true,
  name: true,
  slug: true,
  primary_domain: true,
  aliases: true,
  canonical_host: true,
  default_language: true,
  languages: true,
  theme: true,
  status: true,
  settings: true,
  settings_unreadable: true,
  updated_at: true,
})
  .extend({ resolved_logo: ResolvedLogoSchema.nullable() })
  .openapi("PublicSite");

export type PublicSite = z.infer<typeof PublicSiteSchema>;

/** The public view serves only proved hosts: an unproved primary domain or alias is not shown. */
export function toPublicSite(record: SiteRecord, proved: ReadonlySet<string>): PublicSite {
  const {
    org_id: _o,
    status_reason: _r,
    status_changed_at: _c,
    previous_status: _p,
    created_at: _a,
    ...rest
  } = record;
  return {
    ...rest,
    primary_domain: record.primary_domain && proved.has(record.primary_domain) ? record.primary_domain : null,
    aliases: record.aliases.filter((a) => proved.has(a)),
    resolved_logo: resolveLogo(record.settings),
  };
}

/**
 * Whether an applet is switched on: `settings.applets.<slug>.enabled === true` (what the applets routes
 * store). Anything else, an unreadable document included, is off.
 */
export function appletEnabled(settings: SettingsDocument, slug: string): boolean {
  const applets = settings.applets;
  if (applets === null || typeof applets !== "object" || Array.isArray(applets)) return false;
  const state = (applets as Record<string, unknown>)[slug];
  return state !== null && typeof state === "object" && (state as { enabled?: unknown }).enabled === true;
}

/** Content's projection: `primary_domain` only once proved, so content's URLs keep the platform host. */
export function toProjection(row: SiteRow, proved: ReadonlySet<string>): SiteProjection {
  return {
    id: row.id,
    org_id: row.org_id,
    slug: row.slug,
    name: row.name,
    default_language: row.default_language,
    status: row.status,
    primary_domain: row.primary_domain && proved.has(row.primary_domain) ? row.primary_domain : null,
    updated_at: row.updated_at,
    forms_enabled: appletEnabled(readSettings(row.settings).settings, "forms"),
  };
}

export function hostsOf(row: SiteRow, platformDomain: string): string[] {
  return [
    `${row.slug}.${platformDomain}`,
    ...(row.primary_domain ? [row.primary_domain] : []),
    ...stringArray(row.aliases),
  ];
}

export function aliasesOf(row: SiteRow): string[] {
  return stringArray(row.aliases);
}

export function languagesOf(row: SiteRow): string[] {
  return stringArray(row.languages);
}
