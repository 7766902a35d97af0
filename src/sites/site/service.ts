/** The operations on sites: each parses nothing from HTTP, takes plain input and returns plain data. */
import type { EdgeIdentity } from "../../lib/edge";
import { newId, parseId, parseUlid } from "../../lib/ids";
import type { ApiError } from "../../lib/problem";
import { SLUG_RE, slugFromName } from "../../lib/slug";
import type { Services } from "../core/app-env";
import { fail, problem } from "../errors";
import { reportPendingHosts, withDomainProof } from "../health/domain-proof";
import {
  isPlatformHost,
  LANGUAGE_RE,
  MAX_ALIASES,
  normalizeHost,
  normalizeRequestHost,
  slugOfPlatformHost,
} from "../health/domains";
import { provedHostsOf, provedHostsOfSites } from "../health/domains-store";
import { isReader, mayCreateIn } from "./access";
import {
  enqueueImageSwaps,
  type ImageRef,
  ownOrigins,
  type RehostOptions,
  rehostSettingsImages,
  withoutStaleMediaIds,
} from "./image-rehost";
import { canAccessSite, mayWriteCodeIn } from "./permissions";
import {
  aliasesOf,
  hostsOf,
  languagesOf,
  type PublicSite,
  readSettings,
  type SettingsDocument,
  type SiteRecord,
  siteRecordOf,
  toPublicSite,
  toSiteRecord,
} from "./record";
import { carriesMarkup, changedMarkup, MARKUP_FIELDS } from "./settings/markup";
import {
  collectExternalImageUrls,
  type SettingsViolation,
  validateSettings,
} from "./settings/validate-settings";
import {
  findSiteBySlug,
  findSiteIdByProvedHost,
  getSite,
  getVisibleSite,
  getVisibleSites,
  hostEntries,
  insertSite,
  type SiteRow,
  type SiteUpdate,
  sharesOf,
  softDeleteSite,
  updateSite,
} from "./store";
import { pushSiteToContent } from "./sync";

export const MAX_BATCH_IDS = 200;

function badRequest(detail: string): ApiError {
  return problem("BAD_REQUEST", { detail });
}

function now() {
  return new Date().toISOString();
}

function parseDomain(value: string, field: string, platformDomain: string): string {
  const host = normalizeHost(value);
  if (!host)
    throw badRequest(`${field}: must be a host name such as www.example.com (no scheme, port or path)`);
  if (isPlatformHost(host, platformDomain)) {
    throw badRequest(`${field}: hosts under ${platformDomain} are reserved for the platform`);
  }
  return host;
}

function parseAliases(values: string[], primary: string | null, platformDomain: string): string[] {
  if (values.length > MAX_ALIASES) throw badRequest(`aliases: at most ${MAX_ALIASES}`);
  const out: string[] = [];
  values.forEach((value, i) => {
    const host = parseDomain(value, `aliases.${i}`, platformDomain);
    if (host === primary) throw badRequest(`aliases.${i}: is the primary domain`);
    if (!out.includes(host)) out.push(host);
  });
  return out;
}

function parseName(value: string): string {
  const name = value.trim();
  if (name.length === 0) throw badRequest("name: must not be empty");
  return name;
}

function parseSlug(value: string): string {
  if (!SLUG_RE.test(value)) {
    throw badRequest("slug: 1 to 63 lower-case letters, digits or inner hyphens");
  }
  return value;
}

function parseLanguage(value: string, field: string): string {
  if (!LANGUAGE_RE.test(value)) throw badRequest(`${field}: must be a language tag such as en or pt-BR`);
  return value;
}

/** The stored list always holds the default language (first when it had to be added). */
function languageList(defaultLanguage: string, languages: string[]): string[] {
  const unique = [...new Set(languages.map((l, i) => parseLanguage(l, `languages.${i}`)))];
  return unique.includes(defaultLanguage) ? unique : [defaultLanguage, ...unique];
}

/** A validator refusal as the answer: its code, the message (it starts with the path) and `details.path`. */
export function refuseSettings(violation: SettingsViolation): never {
  fail(violation.code, { detail: violation.message, details: { path: violation.path } });
}

/**
 * The validated document to store; `stored` is the document it replaces, whose keys pass the declared
 * schema unchanged (settings/declared.ts).
 */
export function validSettings(settings: unknown, stored: SettingsDocument = {}): SettingsDocument {
  const result = validateSettings(settings, stored);
  if (!result.ok) refuseSettings(result.violation);
  return result.settings;
}

/**
 * 403 FORBIDDEN when `after` would put other markup or script on the page than `before` (a field added,
 * changed or removed): only callers holding `code` may (issue 19). Resending it unchanged passes.
 */
export function refuseMarkupChange(before: SettingsDocument, after: SettingsDocument): void {
  if (changedMarkup(before, after)) {
    fail(
      "FORBIDDEN",
      `Your role on this site does not allow changing settings that reach the page as markup or script (${MARKUP_FIELDS}; needs "code").`,
    );
  }
}

/**
 * The settings step of every write of a site's settings document (the PATCH's replacement, content's
 * merge over RPC), so both refuse with the same codes: the stored document must be a JSON object (409
 * SETTINGS_UNREADABLE), `next(stored)` must pass the validator (its code, 400), and new external images
 * are rehosted (422 IMAGEM_EXTERNA_INVALIDA). A caller without the `code` permission (`mayEditCode`
 * false) may not change the markup the page carries (settings/markup.ts): 403 FORBIDDEN, nothing
 * written. Returns the document to store and the swaps to queue.
 */
export async function settingsToStore(
  env: SitesEnv,
  services: Services,
  site: SiteRow,
  next: (stored: SettingsDocument) => unknown,
  nextHosts: string[],
  mayEditCode: boolean,
  rehost: RehostOptions = {},
): Promise<{ settings: string; pending: ImageRef[] }> {
  const stored = readSettings(site.settings);
  if (stored.unreadable) {
    fail(
      "SETTINGS_UNREADABLE",
      "The stored settings are not a JSON object; they cannot be replaced through this route.",
    );
  }
  const validated = validSettings(next(stored.settings), stored.settings);
  if (!mayEditCode) refuseMarkupChange(stored.settings, validated);
  const origins = ownOrigins([...hostsOf(site, env.PLATFORM_DOMAIN), ...nextHosts], env.MEDIA_PUBLIC_BASE);
  const rehosted = await rehostSettingsImages(
    env,
    services,
    { siteId: site.id, settings: validated, stored: stored.settings, origins },
    rehost,
  );
  return { settings: JSON.stringify(rehosted.settings), pending: rehosted.pending };
}

/**
 * Drops what caches hold of a site's hosts: the by-host KV entries and the full-page cache (both best
 * effort; the page purge is retried by the cron when it fails).
 */
export async function invalidateSiteCaches(
  services: Services,
  siteId: string,
  hosts: string[],
  reason: string,
) {
  await services.hostCache.invalidate(hosts);
  await services.pageCache.invalidate(siteId, hosts, reason);
}

/**
 * Everything that follows a write: host and page caches (of the hosts before and after), content's
 * projection, deferred image swaps. `reason` names the change in the purge outbox and the logs.
 */
export async function afterWrite(
  env: SitesEnv,
  services: Services,
  before: SiteRow | null,
  after: SiteRow,
  pending: ImageRef[] = [],
  reason = "site_changed",
) {
  const hosts = [
    ...(before ? hostsOf(before, env.PLATFORM_DOMAIN) : []),
    ...hostsOf(after, env.PLATFORM_DOMAIN),
  ];
  await invalidateSiteCaches(services, after.id, [...new Set(hosts)], reason);
  await pushSiteToContent(env, services, after);
  await enqueueImageSwaps(env, services, after.id, pending);
}

export interface UpdateSiteInput {
  name?: string | undefined;
  slug?: string | undefined;
  primary_domain?: string | null | undefined;
  aliases?: string[] | undefined;
  default_language?: string | undefined;
  languages?: string[] | undefined;
  theme?: string | null | undefined;
  settings?: unknown;
}

export interface CreateSiteInput extends UpdateSiteInput {
  org_id: string;
  name: string;
}

export async function createSite(
  env: SitesEnv,
  services: Services,
  identity: EdgeIdentity,
  input: CreateSiteInput,
): Promise<SiteRecord> {
  const orgId = parseId(input.org_id);
  if (!orgId) throw badRequest("org_id: must be a ULID or UUID");
  if (!mayCreateIn(identity, orgId)) {
    fail("FORBIDDEN", "org_id is not one of your organizations.");
  }
  const name = parseName(input.name);
  let slug: string;
  if (input.slug !== undefined) {
    slug = parseSlug(input.slug);
  } else {
    slug = slugFromName(name);
    if (!SLUG_RE.test(slug)) throw badRequest("slug: cannot be derived from name; send a slug");
  }
  const primary =
    input.primary_domain == null
      ? null
      : parseDomain(input.primary_domain, "primary_domain", env.PLATFORM_DOMAIN);
  const aliases = parseAliases(input.aliases ?? [], primary, env.PLATFORM_DOMAIN);
  const defaultLanguage = parseLanguage(input.default_language ?? "en", "default_language");
  const languages = languageList(defaultLanguage, input.languages ?? []);
  const validated = input.settings === undefined ? {} : validSettings(input.settings);
  if (carriesMarkup(validated) && !mayWriteCodeIn(identity, orgId)) {
    fail("FORBIDDEN", `Only owners and admins of the organization may create a site with ${MARKUP_FIELDS}.`);
  }

  const at = now();
  const row: SiteRow = {
    id: newId(),
    org_id: orgId,
    name,
    slug,
    primary_domain: primary,
    aliases: JSON.stringify(aliases),
    default_language: defaultLanguage,
    languages: JSON.stringify(languages),
    theme: input.theme ?? null,
    status: "active",
    status_reason: null,
    status_changed_at: at,
    previous_status: null,
    settings: "{}",
    created_at: at,
    updated_at: at,
  };
  // External images of a new site are rehosted in the background: the site must exist before content
  // can own its media, and a create is never refused for an image.
  const origins = ownOrigins(hostsOf(row, env.PLATFORM_DOMAIN), env.MEDIA_PUBLIC_BASE);
  const external = collectExternalImageUrls(validated, origins);
  row.settings = JSON.stringify(withoutStaleMediaIds(validated, external));
  const limit = Number.parseInt(env.DEFAULT_SITE_LIMIT, 10);
  const hosts = hostEntries(primary, aliases);
  const created = await withDomainProof(
    env.DB,
    null,
    hosts.map((h) => h.host),
    () => insertSite(env.DB, row, hosts, Number.isFinite(limit) ? limit : 10),
  );
  if (!created) {
    fail("SITE_LIMIT_REACHED", "The organization's plan has no room for another site.");
  }
  await afterWrite(env, services, null, row, external);
  return siteRecordOf(env.DB, row, env.PLATFORM_DOMAIN);
}

/** `mayEditCode`: the caller holds `code` (markup settings, settings/markup.ts). */
export async function patchSite(
  env: SitesEnv,
  services: Services,
  site: SiteRow,
  input: UpdateSiteInput,
  mayEditCode: boolean,
): Promise<SiteRecord> {
  const update: SiteUpdate = {};
  if (input.name !== undefined) update.name = parseName(input.name);
  if (input.slug !== undefined) update.slug = parseSlug(input.slug);

  let hosts: ReturnType<typeof hostEntries> | null = null;
  if (input.primary_domain !== undefined || input.aliases !== undefined) {
    const primary =
      input.primary_domain === undefined
        ? site.primary_domain
        : input.primary_domain === null
          ? null
          : parseDomain(input.primary_domain, "primary_domain", env.PLATFORM_DOMAIN);
    const aliases = parseAliases(
      input.aliases ?? aliasesOf(site).filter((a) => a !== primary),
      primary,
      env.PLATFORM_DOMAIN,
    );
    update.primary_domain = primary;
    update.aliases = JSON.stringify(aliases);
    hosts = hostEntries(primary, aliases);
  }
  if (input.default_language !== undefined || input.languages !== undefined) {
    const defaultLanguage =
      input.default_language === undefined
        ? site.default_language
        : parseLanguage(input.default_language, "default_language");
    const current = languagesOf(site);
    update.default_language = defaultLanguage;
    update.languages = JSON.stringify(languageList(defaultLanguage, input.languages ?? current));
  }
  if (input.theme !== undefined) update.theme = input.theme;

  let pending: ImageRef[] = [];
  if (input.settings !== undefined) {
    const nextHosts = hostsOf({ ...site, ...(update as Partial<SiteRow>) }, env.PLATFORM_DOMAIN);
    const written = await settingsToStore(env, services, site, () => input.settings, nextHosts, mayEditCode);
    update.settings = written.settings;
    pending = written.pending;
  }

  if (Object.keys(update).length === 0) return siteRecordOf(env.DB, site, env.PLATFORM_DOMAIN);
  // Without the `code` permission the markup was judged against the settings read: write only over them.
  const judgedAgainst = update.settings !== undefined && !mayEditCode ? site.settings : undefined;
  const written = await withDomainProof(
    env.DB,
    site.id,
    (hosts ?? []).map((h) => h.host),
    () => updateSite(env.DB, site.id, update, hosts, now(), judgedAgainst),
  );
  if (!written && judgedAgainst !== undefined && (await getVisibleSite(env.DB, site.id))) {
    fail("EDIT_CONFLICT", "The settings changed while this PATCH was checked; read them again and resend.");
  }
  const after = written ? await getSite(env.DB, site.id) : null;
  if (!after) fail("NOT_FOUND", "Site not found.");
  await afterWrite(env, services, site, after, pending);
  const added = (hosts ?? [])
    .map((h) => h.host)
    .filter((h) => !hostsOf(site, env.PLATFORM_DOMAIN).includes(h));
  await reportPendingHosts(services.health, services.log, site.id, added);
  return siteRecordOf(env.DB, after, env.PLATFORM_DOMAIN);
}

export async function deleteSite(env: SitesEnv, services: Services, site: SiteRow): Promise<void> {
  const deleted = await softDeleteSite(env.DB, site.id, now());
  const after = deleted ? await getSite(env.DB, site.id) : null;
  if (!after) fail("NOT_FOUND", "Site not found.");
  await afterWrite(env, services, site, after, [], "site_deleted");
}

/** Parses `ids` of the batch route: required, comma-separated ULIDs, at most 200. */
export function parseBatchIds(raw: string | undefined): string[] {
  if (raw === undefined) throw badRequest("ids: required");
  const parts = raw.split(",").map((p) => p.trim());
  if (raw.trim() === "" || parts.length === 0) throw badRequest("ids: must not be empty");
  if (parts.length > MAX_BATCH_IDS) throw badRequest(`ids: at most ${MAX_BATCH_IDS}`);
  const ids: string[] = [];
  for (const part of parts) {
    const id = parseUlid(part);
    if (!id) throw badRequest(`ids: "${part.slice(0, 40)}" is not a ULID`);
    if (!ids.includes(id)) ids.push(id);
  }
  return ids;
}

/** The visible sites among `ids` that the caller may see, in request order; the rest is omitted. */
export async function batchSites(
  env: SitesEnv,
  identity: EdgeIdentity,
  ids: string[],
): Promise<SiteRecord[]> {
  if (isReader(identity)) return [];
  const rows = await getVisibleSites(env.DB, ids);
  const shares = await sharesOf(
    env.DB,
    rows.map((r) => r.id),
  );
  const byId = new Map(
    rows.filter((r) => canAccessSite(identity, r, shares.get(r.id) ?? [])).map((r) => [r.id, r]),
  );
  const proved = await provedHostsOfSites(env.DB, [...byId.keys()]);
  return ids.flatMap((id) => {
    const row = byId.get(id);
    return row ? [toSiteRecord(row, env.PLATFORM_DOMAIN, proved.get(id) ?? new Set())] : [];
  });
}

async function resolveHostFromDb(env: SitesEnv, host: string): Promise<SiteRow | null> {
  const slug = slugOfPlatformHost(host, env.PLATFORM_DOMAIN);
  const row = slug ? await findSiteBySlug(env.DB, slug) : await lookupCustomHost(env.DB, host);
  return row && row.status === "active" ? row : null;
}

/** Only a proved custom host resolves: an unproved one answers exactly like an unknown one. */
async function lookupCustomHost(db: D1Database, host: string): Promise<SiteRow | null> {
  const id = await findSiteIdByProvedHost(db, host);
  return id ? getSite(db, id) : null;
}

/**
 * The active site serving `host` (a PROVED primary domain or alias, or `<slug>.<platform domain>`), cached
 * in KV. The public view names only proved hosts, and its canonical host is the platform host until the
 * primary domain is proved.
 */
export async function siteByHost(
  env: SitesEnv,
  services: Services,
  rawHost: string | undefined,
): Promise<PublicSite | null> {
  if (rawHost === undefined || rawHost.trim() === "") throw badRequest("host: required");
  const host = normalizeRequestHost(rawHost);
  if (!host) throw badRequest("host: must be a host name");
  const cached = await services.hostCache.read(host).catch(() => null);
  if (cached) return cached.site;
  const row = await resolveHostFromDb(env, host);
  const proved = row ? await provedHostsOf(env.DB, row.id) : new Set<string>();
  const site = row ? toPublicSite(toSiteRecord(row, env.PLATFORM_DOMAIN, proved), proved) : null;
  await services.hostCache.write(host, site).catch(() => undefined);
  return site;
}
