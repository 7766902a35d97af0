/**
 * The applets of a site (spec "Applets"): the catalog with each app's state for the site, and the
 * install/uninstall write. The state lives in the site's settings document, `settings.applets.<slug>` =
 * `{enabled, installed_at, ...the app's own settings}`. An install or uninstall of an app with a
 * `post_type_template` first makes content agree (the type defined or disabled); only then is the flag
 * stored, with a compare-and-swap on the whole document through the PATCH's settings step (same
 * validator, same codes), and the write's after-effects run (caches purged, content's projection pushed,
 * which is what switches content's forms area). Nothing is ever deleted: uninstalling only turns the
 * switch off.
 */
import type { Services } from "../core/app-env";
import { LOST, untilSwapped } from "../core/compare-and-swap";
import { fail } from "../errors";
import { appletEnabled, readSettings, type SettingsDocument } from "../site/record";
import { afterWrite, refuseSettings, settingsToStore } from "../site/service";
import { validateSettings } from "../site/settings/validate-settings";
import { getVisibleSite, type SiteRow, swapSettings } from "../site/store";
import { APPLET_CATALOG, type Applet, findApplet, type PostTypeTemplate } from "./catalog";

/** Bound on content's answer to a post type change: a hung content service must not hang the write. */
export const CONTENT_TIMEOUT_MS = 5000;

/**
 * Attempts of the compare-and-swap before EDIT_CONFLICT (each re-reads the document). An attempt only
 * loses to another write that landed meanwhile, so N concurrent writers need at most N attempts.
 */
export const MAX_APPLET_WRITE_ATTEMPTS = 32;

export interface AppletState {
  slug: string;
  name: string;
  description: string;
  post_type_template: PostTypeTemplate | null;
  enabled: boolean;
  /** When the current installation began; null while the app is not installed. */
  installed_at: string | null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function storedEntry(settings: SettingsDocument, slug: string): Record<string, unknown> | null {
  const applets = settings.applets;
  if (!isObject(applets) || !Object.hasOwn(applets, slug)) return null;
  const entry = applets[slug];
  return isObject(entry) ? entry : null;
}

/** The app's state on a site whose settings are `settings` (anything unreadable reads as not installed). */
export function appletState(app: Applet, settings: SettingsDocument): AppletState {
  const enabled = appletEnabled(settings, app.slug);
  const installedAt = storedEntry(settings, app.slug)?.installed_at;
  return {
    slug: app.slug,
    name: app.name,
    description: app.description,
    post_type_template: app.post_type_template ?? null,
    enabled,
    installed_at: enabled && typeof installedAt === "string" ? installedAt : null,
  };
}

/** The whole catalog, in catalog order, each app with its state on `site`. */
export function listApplets(site: SiteRow): AppletState[] {
  const { settings } = readSettings(site.settings);
  return APPLET_CATALOG.map((app) => appletState(app, settings));
}

/**
 * The app's entry after the operation: its other keys (the app's own settings) kept; `installed_at`
 * kept while it stays installed, set on a fresh install, null once uninstalled.
 */
function nextEntry(stored: SettingsDocument, slug: string, enabled: boolean, at: string) {
  const entry = storedEntry(stored, slug) ?? {};
  const installed = entry.enabled === true && typeof entry.installed_at === "string";
  return { ...entry, enabled, installed_at: enabled ? (installed ? entry.installed_at : at) : null };
}

function withEntry(stored: SettingsDocument, slug: string, entry: Record<string, unknown>) {
  const applets = isObject(stored.applets) ? stored.applets : {};
  return { ...stored, applets: { ...applets, [slug]: entry } };
}

/**
 * The document to store, through the PATCH's settings step: 409 SETTINGS_UNREADABLE for a stored
 * document that is not an object, the stored `applets` refused as it stands (400
 * SETTINGS_INVALID_APPLETS: an install never papers over a broken entry), then the whole result through
 * the validator. `changed` is false when the app's entry would stay as it is.
 */
async function documentToStore(
  env: SitesEnv,
  services: Services,
  site: SiteRow,
  slug: string,
  enabled: boolean,
  at: string,
) {
  let changed = false;
  const written = await settingsToStore(
    env,
    services,
    site,
    (stored) => {
      const current = validateSettings({ applets: stored.applets }, { applets: stored.applets });
      if (!current.ok) refuseSettings(current.violation);
      const entry = nextEntry(stored, slug, enabled, at);
      const before = storedEntry(stored, slug);
      changed = before?.enabled !== entry.enabled || before?.installed_at !== entry.installed_at;
      return withEntry(stored, slug, entry);
    },
    [],
    // An install writes `applets` only; it never changes the page's markup.
    false,
    { onlyNew: true },
  );
  return { ...written, changed };
}

type ContentAnswer = { ok: boolean } | "timeout" | { error: unknown };

/** Content's post type change for the app, bounded by `timeoutMs`; never throws. */
async function changePostType(
  services: Services,
  siteId: string,
  template: PostTypeTemplate,
  enabled: boolean,
  timeoutMs: number,
): Promise<ContentAnswer> {
  let timer: ReturnType<typeof setTimeout> | null = null;
  const deadline = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  // Inside an async function so a synchronous throw of the binding (a method missing) is a rejection.
  const call = (async (): Promise<ContentAnswer> => {
    try {
      const answer: unknown = enabled
        ? await services.content.definePostType({ site_id: siteId, ...template })
        : await services.content.removePostType({ site_id: siteId, slug: template.slug });
      return { ok: isObject(answer) && answer.ok === true };
    } catch (error) {
      return { error };
    }
  })();
  try {
    return await Promise.race([call, deadline]);
  } finally {
    if (timer !== null) clearTimeout(timer);
  }
}

/** Makes content agree with the app's new state BEFORE the flag is stored; 502 when it cannot. */
async function materialize(
  services: Services,
  siteId: string,
  app: Applet,
  enabled: boolean,
  timeoutMs: number,
) {
  const template = app.post_type_template;
  if (!template) return;
  const answer = await changePostType(services, siteId, template, enabled, timeoutMs);
  if (answer !== "timeout" && "ok" in answer && answer.ok) return;
  const reason = answer === "timeout" ? "timeout" : "error" in answer ? String(answer.error) : "refused";
  services.log.warn("applet_content_unavailable", { site_id: siteId, applet: app.slug, enabled, reason });
  fail(
    "APPLET_CONTENT_UNAVAILABLE",
    `The content service could not ${enabled ? "create" : "remove"} the "${template.slug}" content type; nothing was changed, retry later.`,
  );
}

/**
 * After content changed but the flag could not be stored (a concurrent write won every attempt, or made
 * the document unacceptable, or deleted the site): content is put back to what the stored flag says,
 * best effort (a failure is logged; the next PUT of the app converges both sides again).
 */
async function reconcile(env: SitesEnv, services: Services, siteId: string, app: Applet, enabled: boolean) {
  const template = app.post_type_template;
  if (!template) return;
  const site = await getVisibleSite(env.DB, siteId).catch(() => null);
  const stored = site ? appletEnabled(readSettings(site.settings).settings, app.slug) : false;
  if (stored === enabled) return;
  const answer = await changePostType(services, siteId, template, stored, CONTENT_TIMEOUT_MS);
  if (answer === "timeout" || !("ok" in answer) || !answer.ok) {
    services.log.error("applet_content_reconcile_failed", { site_id: siteId, applet: app.slug, stored });
  }
}

async function storeFlag(
  env: SitesEnv,
  services: Services,
  siteId: string,
  app: Applet,
  enabled: boolean,
): Promise<AppletState> {
  const conflict = "The site's settings kept changing during this update; retry.";
  return untilSwapped(MAX_APPLET_WRITE_ATTEMPTS, conflict, async () => {
    const site = await getVisibleSite(env.DB, siteId);
    if (!site) fail("NOT_FOUND", "Site not found.");
    const at = new Date().toISOString();
    const next = await documentToStore(env, services, site, app.slug, enabled, at);
    if (!next.changed) return appletState(app, readSettings(site.settings).settings);
    if (!(await swapSettings(env.DB, site.id, site.settings, next.settings, at))) return LOST;
    const after = { ...site, settings: next.settings, updated_at: at };
    await afterWrite(env, services, site, after, next.pending, `applet_${enabled ? "in" : "un"}stalled`);
    return appletState(app, readSettings(next.settings).settings);
  });
}

/**
 * Installs (`enabled: true`) or uninstalls an app on `site`. Idempotent: installing an installed app
 * keeps its `installed_at`, and an operation that changes nothing stores nothing (content is still
 * asked, so a PUT also repairs a content type left behind by an earlier failure).
 */
export async function setApplet(
  env: SitesEnv,
  services: Services,
  site: SiteRow,
  slug: string,
  enabled: boolean,
  options: { contentTimeoutMs?: number } = {},
): Promise<AppletState> {
  const app = findApplet(slug);
  if (!app) fail("APPLET_NOT_FOUND", `No app "${slug.slice(0, 64)}" in the catalog.`);
  // Refusals that need no content (unreadable document, broken stored applets) come before content moves.
  await documentToStore(env, services, site, app.slug, enabled, new Date().toISOString());
  await materialize(services, site.id, app, enabled, options.contentTimeoutMs ?? CONTENT_TIMEOUT_MS);
  try {
    return await storeFlag(env, services, site.id, app, enabled);
  } catch (err) {
    await reconcile(env, services, site.id, app, enabled);
    throw err;
  }
}
