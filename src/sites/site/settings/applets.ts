import { fieldPath, isPlainObject, isPresent, type JsonObject } from "./json";
import { refuse } from "./violation";

export const APPLETS_MAX = 64;
export const APPLET_SLUG = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z$/;

/**
 * `settings.applets`: an object of slug -> `{ enabled: boolean, installed_at?: ISO-8601 UTC | null,
 * ...app settings }`. Other keys of an entry are the app's own settings and pass through. Catalog
 * membership is not checked here (the catalog lives with the route).
 */
export function checkApplets(settings: JsonObject): void {
  const applets = settings.applets;
  if (!isPresent(applets)) return;
  if (!isPlainObject(applets))
    refuse("SETTINGS_INVALID_APPLETS", "settings.applets", "must be an object of slug -> state");
  const entries = Object.entries(applets);
  if (entries.length > APPLETS_MAX)
    refuse("SETTINGS_INVALID_APPLETS", "settings.applets", `at most ${APPLETS_MAX} applets`);
  for (const [slug, state] of entries) {
    const path = fieldPath("settings.applets", slug);
    if (!APPLET_SLUG.test(slug))
      refuse("SETTINGS_INVALID_APPLETS", path, "slug must be 1..64 of a-z, 0-9, '_' or '-'");
    if (!isPlainObject(state)) refuse("SETTINGS_INVALID_APPLETS", path, "must be an object {enabled, ...}");
    if (typeof state.enabled !== "boolean")
      refuse("SETTINGS_INVALID_APPLETS", `${path}.enabled`, "must be a boolean");
    const installedAt = state.installed_at;
    if (isPresent(installedAt)) {
      if (
        typeof installedAt !== "string" ||
        !ISO_TIMESTAMP.test(installedAt) ||
        Number.isNaN(Date.parse(installedAt))
      ) {
        refuse(
          "SETTINGS_INVALID_APPLETS",
          `${path}.installed_at`,
          "must be an ISO-8601 UTC timestamp or null",
        );
      }
    }
  }
}
