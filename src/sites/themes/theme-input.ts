/** Rules of a theme's own fields (name, slug, version, preview URL, description). Pure functions. */

import { SLUG_RE } from "../../lib/slug";
import { fail } from "../errors";
import { charLength } from "../site/settings/json";

export const THEME_NAME_MAX = 80;
export const THEME_DESCRIPTION_MAX = 500;
export const PREVIEW_URL_MAX = 2048;
/** The first version of a new organization theme (spec). */
export const ORG_THEME_VERSION = "1.0.0";

/** Semantic Versioning 2.0.0 (semver.org's reference expression). */
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/** What an URL may not contain anywhere: whitespace, quotes, angle brackets, backslash, backtick. */
const URL_FORBIDDEN = /[\s"'<>\\`]/;

export function parseThemeName(value: string): string {
  const name = value.trim();
  if (charLength(name) < 1 || charLength(name) > THEME_NAME_MAX || CONTROL.test(name)) {
    fail("THEME_INVALID_NAME", `name: 1 to ${THEME_NAME_MAX} characters, no control characters`);
  }
  return name;
}

export function parseThemeSlug(value: string): string {
  if (!SLUG_RE.test(value)) {
    fail("THEME_INVALID_SLUG", "slug: 1 to 63 lower-case letters, digits or inner hyphens");
  }
  return value;
}

export function parseThemeVersion(value: string): string {
  if (value.length > 64 || !SEMVER.test(value)) {
    fail("THEME_INVALID_VERSION", "version: a semantic version such as 1.0.0 or 2.1.0-beta.1");
  }
  return value;
}

export function parsePreviewUrl(value: string | null | undefined): string | null {
  if (value === undefined || value === null) return null;
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    url = null;
  }
  const ok =
    url !== null &&
    url.protocol === "https:" &&
    url.hostname !== "" &&
    url.username === "" &&
    url.password === "" &&
    value.length <= PREVIEW_URL_MAX &&
    !URL_FORBIDDEN.test(value) &&
    !CONTROL.test(value);
  if (!ok) fail("THEME_INVALID_PREVIEW_URL", "preview_url: an https URL with a host (no credentials)");
  return value;
}

export function parseDescription(value: string | null | undefined): string | null {
  if (value === undefined || value === null) return null;
  const text = value.trim();
  if (charLength(text) > THEME_DESCRIPTION_MAX || CONTROL.test(text.replace(/[\n\t]/g, " "))) {
    fail("BAD_REQUEST", `description: at most ${THEME_DESCRIPTION_MAX} characters, no control characters`);
  }
  return text === "" ? null : text;
}
