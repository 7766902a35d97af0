/**
 * The theme operations (spec: "Themes of a site" and the platform themes of the operator console). Each
 * takes plain input and returns plain data; storage is theme-store.ts, the look rules package.ts, the
 * contrast gate contrast.ts.
 */
import { z } from "@hono/zod-openapi";
import { newId, parseUlid } from "../../lib/ids";
import type { Services } from "../core/app-env";
import { LOST, untilSwapped } from "../core/compare-and-swap";
import { fail } from "../errors";
import { readSettings, type SiteRecord, siteRecordOf } from "../site/record";
import { afterWrite, refuseMarkupChange, validSettings } from "../site/service";
import { isPlainObject, type JsonObject } from "../site/settings/json";
import { getSite, getVisibleSite, type SiteRow } from "../site/store";
import { contrastFailure, describeFailure } from "./contrast";
import {
  applyLook,
  cutLook,
  isEmptyLook,
  readSnapshot,
  restoreLook,
  snapshotLook,
  type ThemePackage,
} from "./package";
import {
  ORG_THEME_VERSION,
  parseDescription,
  parsePreviewUrl,
  parseThemeName,
  parseThemeSlug,
  parseThemeVersion,
} from "./theme-input";
import {
  deleteTheme,
  findApplicableTheme,
  hasSnapshot,
  insertTheme,
  latestSnapshot,
  listThemes,
  replacePlatformTheme,
  storeAppliedLook,
  storeUndoneLook,
  type ThemeRow,
  themesStorage,
} from "./theme-store";

/** Attempts of a settings compare-and-swap (apply, undo) before EDIT_CONFLICT, each on a fresh read. */
export const MAX_SWAP_ATTEMPTS = 8;

export const ThemeSchema = z
  .object({
    id: z.string(),
    scope: z.enum(["platform", "org"]),
    org_id: z.string().nullable().openapi({ description: "Owner organization of an org theme" }),
    name: z.string(),
    slug: z.string(),
    version: z.string(),
    description: z.string().nullable(),
    preview_url: z.string().nullable(),
    package: z.record(z.string(), z.unknown()).openapi({
      description:
        "The look: customization (theme_base, colors, typography, layout), header.model, footer.model, home.blocks",
    }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Theme");

export type Theme = z.infer<typeof ThemeSchema>;

function toTheme(row: ThemeRow): Theme {
  const parsed: unknown = JSON.parse(row.package_json);
  return {
    id: row.id,
    scope: row.scope === "platform" ? "platform" : "org",
    org_id: row.org_id,
    name: row.name,
    slug: row.slug,
    version: row.version,
    description: row.description,
    preview_url: row.preview_url,
    package: isPlainObject(parsed) ? parsed : {},
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function now() {
  return new Date().toISOString();
}

/** The settings validator's verdict on `document`; `stored` (the site's document) passes unchanged keys. */
function validOrFail(document: JsonObject, stored: JsonObject = {}): JsonObject {
  return validSettings(document, stored);
}

/**
 * A look cut into a theme package: the containers' shapes and values judged by the settings validator
 * (its codes), the allowlist cut with content removed, THEME_EMPTY when nothing is left.
 */
export function themePackageOf(source: JsonObject): ThemePackage {
  if (
    source.customization !== undefined &&
    source.customization !== null &&
    !isPlainObject(source.customization)
  ) {
    fail("CUSTOMIZATION_INVALID_SHAPE", "customization: must be an object");
  }
  const containers = Object.fromEntries(
    ["customization", "header", "footer", "home"]
      .filter((k) => Object.hasOwn(source, k))
      .map((k) => [k, source[k]]),
  );
  const pkg = cutLook(validOrFail(containers));
  if (isEmptyLook(pkg))
    fail(
      "THEME_EMPTY",
      "There is no look to save: no customization, header or footer model, or home blocks.",
    );
  return validOrFail(pkg);
}

function themeNotFound(): never {
  fail("THEME_NOT_FOUND", "Theme not found.");
}

export async function themeGallery(
  env: SitesEnv,
  services: Services,
  site: SiteRow,
): Promise<{ items: Theme[]; undo_available: boolean }> {
  return themesStorage(services, async () => {
    const [rows, undo] = await Promise.all([listThemes(env.DB, site.org_id), hasSnapshot(env.DB, site.id)]);
    return { items: rows.map(toTheme), undo_available: undo };
  });
}

export interface SaveThemeInput {
  name: string;
  slug: string;
  description?: string | null | undefined;
}

/** Saves the site's current look as a theme of its owner organization (taken from storage). */
export async function saveOrgTheme(
  env: SitesEnv,
  services: Services,
  site: SiteRow,
  input: SaveThemeInput,
): Promise<Theme> {
  const name = parseThemeName(input.name);
  const slug = parseThemeSlug(input.slug);
  const description = parseDescription(input.description);
  const pkg = themePackageOf(readSettings(site.settings).settings);
  const at = now();
  const row: ThemeRow = {
    id: newId(),
    scope: "org",
    org_id: site.org_id,
    slug,
    name,
    version: ORG_THEME_VERSION,
    description,
    preview_url: null,
    package_json: JSON.stringify(pkg),
    created_at: at,
    updated_at: at,
  };
  await themesStorage(services, () => insertTheme(env.DB, row));
  return toTheme(row);
}

async function freshSite(env: SitesEnv, site: SiteRow, attempt: number): Promise<SiteRow> {
  const row = attempt === 0 ? site : await getVisibleSite(env.DB, site.id);
  if (!row) fail("NOT_FOUND", "Site not found.");
  return row;
}

function storedDocument(site: SiteRow): JsonObject {
  const stored = readSettings(site.settings);
  if (stored.unreadable) {
    fail(
      "SETTINGS_UNREADABLE",
      "The stored settings are not a JSON object; a theme cannot be applied or undone.",
    );
  }
  return stored.settings;
}

async function written(
  env: SitesEnv,
  services: Services,
  before: SiteRow,
  reason: string,
): Promise<SiteRecord> {
  const after = await getSite(env.DB, before.id);
  if (!after) fail("NOT_FOUND", "Site not found.");
  await afterWrite(env, services, before, after, [], reason);
  return siteRecordOf(env.DB, after, env.PLATFORM_DOMAIN);
}

/**
 * Applies a platform theme or one of the owner organization's: only look paths are written, the result
 * passes the PATCH's validator (nothing stored on refusal), and the look before is kept as an undo
 * snapshot in the same batch as the settings compare-and-swap.
 */
export async function applyTheme(
  env: SitesEnv,
  services: Services,
  site: SiteRow,
  rawThemeId: string,
  mayEditCode: boolean,
): Promise<SiteRecord> {
  const themeId = parseUlid(rawThemeId);
  if (!themeId) themeNotFound();
  const theme = await themesStorage(services, () => findApplicableTheme(env.DB, themeId, site.org_id));
  if (!theme) themeNotFound();
  const pkg = toTheme(theme).package;
  const conflict = "The site's settings kept changing during this apply; retry.";
  return untilSwapped(MAX_SWAP_ATTEMPTS, conflict, async (attempt) => {
    const current = await freshSite(env, site, attempt);
    const stored = storedDocument(current);
    const applied = validOrFail(applyLook(stored, pkg), stored);
    // A theme never carries html blocks, but its home.blocks replace the site's (theirs leave).
    if (!mayEditCode) refuseMarkupChange(stored, applied);
    const next = JSON.stringify(applied);
    const at = now();
    const snapshot = {
      id: newId(),
      theme_id: theme.id,
      look_json: JSON.stringify(snapshotLook(stored)),
      created_at: at,
    };
    const ok = await themesStorage(services, () =>
      storeAppliedLook(env.DB, { siteId: current.id, expected: current.settings, next, snapshot, at }),
    );
    return ok ? written(env, services, current, "theme_applied") : LOST;
  });
}

/** Restores the latest snapshot (validated; kept on refusal) and deletes it, in one batch. */
/** `mayEditCode` false: an undo that would change the page's markup (html blocks back) is 403. */
export async function undoTheme(
  env: SitesEnv,
  services: Services,
  site: SiteRow,
  mayEditCode: boolean,
): Promise<SiteRecord> {
  const conflict = "The site's settings kept changing during this undo; retry.";
  return untilSwapped(MAX_SWAP_ATTEMPTS, conflict, async (attempt) => {
    const current = await freshSite(env, site, attempt);
    const stored = storedDocument(current);
    const snapshot = await themesStorage(services, () => latestSnapshot(env.DB, current.id));
    if (!snapshot) fail("THEME_NOTHING_TO_UNDO", "No applied theme is left to undo on this site.");
    const look = await themesStorage(services, async () => readSnapshot(snapshot.look_json));
    const restored = validOrFail(restoreLook(stored, look), stored);
    if (!mayEditCode) refuseMarkupChange(stored, restored);
    const next = JSON.stringify(restored);
    const at = now();
    const ok = await themesStorage(services, () =>
      storeUndoneLook(env.DB, {
        siteId: current.id,
        snapshotId: snapshot.id,
        expected: current.settings,
        next,
        at,
      }),
    );
    return ok ? written(env, services, current, "theme_undone") : LOST;
  });
}

/** Deletes an org theme of the site's owner organization; sites that applied it keep their look. */
export async function deleteOrgTheme(
  env: SitesEnv,
  services: Services,
  site: SiteRow,
  rawThemeId: string,
): Promise<void> {
  const themeId = parseUlid(rawThemeId);
  if (!themeId) themeNotFound();
  const deleted = await themesStorage(services, () =>
    deleteTheme(env.DB, themeId, { scope: "org", orgId: site.org_id }),
  );
  if (!deleted) themeNotFound();
}

export async function listPlatformThemes(env: SitesEnv, services: Services): Promise<Theme[]> {
  const rows = await themesStorage(services, () => listThemes(env.DB, null));
  return rows.map(toTheme);
}

export interface PlatformThemeInput {
  name: string;
  slug: string;
  version: string;
  description?: string | null | undefined;
  preview_url?: string | null | undefined;
  package: Record<string, unknown>;
}

/** Every rule of a platform theme: fields, the cut, the settings validator, then the contrast gate. */
function platformThemeFields(input: PlatformThemeInput) {
  const fields = {
    name: parseThemeName(input.name),
    slug: parseThemeSlug(input.slug),
    version: parseThemeVersion(input.version),
    preview_url: parsePreviewUrl(input.preview_url),
    description: parseDescription(input.description),
  };
  const pkg = themePackageOf(input.package);
  const failure = contrastFailure(pkg);
  if (failure) {
    fail("THEME_CONTRAST_INSUFFICIENT", { detail: describeFailure(failure), details: { ...failure } });
  }
  return { ...fields, package_json: JSON.stringify(pkg) };
}

export async function createPlatformTheme(
  env: SitesEnv,
  services: Services,
  input: PlatformThemeInput,
): Promise<Theme> {
  const at = now();
  const row: ThemeRow = {
    id: newId(),
    scope: "platform",
    org_id: null,
    ...platformThemeFields(input),
    created_at: at,
    updated_at: at,
  };
  await themesStorage(services, () => insertTheme(env.DB, row));
  return toTheme(row);
}

/** Replaces a platform theme entirely; an org theme, a backup or a missing id is THEME_NOT_FOUND. */
export async function replacePlatformThemeById(
  env: SitesEnv,
  services: Services,
  rawThemeId: string,
  input: PlatformThemeInput,
): Promise<Theme> {
  const themeId = parseUlid(rawThemeId);
  if (!themeId) themeNotFound();
  const fields = platformThemeFields(input);
  const row = await themesStorage(services, () =>
    replacePlatformTheme(env.DB, { id: themeId, ...fields, updated_at: now() }),
  );
  if (!row) themeNotFound();
  return toTheme(row);
}

export async function deletePlatformTheme(
  env: SitesEnv,
  services: Services,
  rawThemeId: string,
): Promise<void> {
  const themeId = parseUlid(rawThemeId);
  if (!themeId) themeNotFound();
  const deleted = await themesStorage(services, () => deleteTheme(env.DB, themeId, { scope: "platform" }));
  if (!deleted) themeNotFound();
}
