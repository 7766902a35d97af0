import { FAVICON_KIT_NAME, SITE_ASSET_URL_FIELDS } from "./assets";
import { encodeAttribute, parseSrcset, scanImgTags } from "./html-images";
import { isPlainObject, type JsonObject } from "./json";

/** One external image of the settings, by path, e.g. `settings.logo.light.sources[0].url` or `settings.about_html#img[2].srcset[1]`. */
export interface ExternalImageRef {
  path: string;
  url: string;
}

const ABSOLUTE_HTTP = /^https?:\/\/[^/?#\s]/i;

/** Matches `ownHostOrigins` entries: full origins (`https://cdn.example`) or bare host names (any scheme). */
function ownHostMatcher(ownHostOrigins: readonly string[]): (url: URL) => boolean {
  const origins = new Set<string>();
  const hosts = new Set<string>();
  for (const entry of ownHostOrigins) {
    if (entry.includes("://")) {
      try {
        origins.add(new URL(entry).origin);
      } catch {
        // An unparsable entry matches nothing.
      }
    } else {
      hosts.add(entry.toLowerCase());
    }
  }
  return (url) => origins.has(url.origin) || hosts.has(url.hostname);
}

function externalUrl(value: unknown, isOwn: (url: URL) => boolean): string | null {
  if (typeof value !== "string") return null;
  const trimmed = value.trim();
  if (!ABSOLUTE_HTTP.test(trimmed)) return null;
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  return isOwn(url) ? null : trimmed;
}

/**
 * Every external image URL of the settings that the rehosting step sends to image ingest, in a
 * fixed order: logo_url, favicon_png_url, favicon_ico_url, favicon_kit entries, seo.default_og_image,
 * logo light then dark sources, ads creatives' image_url, then `<img>` src and srcset in about_html.
 * Only absolute http(s) URLs whose origin is not one of `ownHostOrigins` count; site paths never do.
 * The same URL at two paths is listed twice (the caller may ingest it once).
 */
export function collectExternalImageUrls(
  settings: Record<string, unknown>,
  ownHostOrigins: string[] = [],
): ExternalImageRef[] {
  const isOwn = ownHostMatcher(ownHostOrigins);
  const refs: ExternalImageRef[] = [];
  const add = (path: string, value: unknown) => {
    const url = externalUrl(value, isOwn);
    if (url) refs.push({ path, url });
  };

  for (const key of SITE_ASSET_URL_FIELDS) add(`settings.${key}`, settings[key]);
  const kit = settings.favicon_kit;
  if (isPlainObject(kit)) {
    for (const [name, url] of Object.entries(kit)) {
      if (FAVICON_KIT_NAME.test(name)) add(`settings.favicon_kit.${name}`, url);
    }
  }
  const seo = settings.seo;
  if (isPlainObject(seo)) add("settings.seo.default_og_image", seo.default_og_image);

  const logo = settings.logo;
  if (isPlainObject(logo)) {
    for (const variant of ["light", "dark"] as const) {
      const sources = isPlainObject(logo[variant]) ? (logo[variant] as JsonObject).sources : undefined;
      if (!Array.isArray(sources)) continue;
      sources.forEach((source, i) => {
        if (isPlainObject(source)) add(`settings.logo.${variant}.sources[${i}].url`, source.url);
      });
    }
  }

  const ads = settings.ads;
  const units = isPlainObject(ads) ? ads.units : undefined;
  if (Array.isArray(units)) {
    units.forEach((unit, i) => {
      if (isPlainObject(unit) && isPlainObject(unit.creative)) {
        add(`settings.ads.units[${i}].creative.image_url`, unit.creative.image_url);
      }
    });
  }

  const about = settings.about_html;
  if (typeof about === "string") {
    scanImgTags(about).forEach((tag, i) => {
      for (const attribute of tag.attributes) {
        const base = `settings.about_html#img[${i}].${attribute.name}`;
        if (attribute.name === "src") add(base, attribute.value);
        else {
          parseSrcset(attribute.value).forEach((candidate, j) => {
            add(`${base}[${j}]`, candidate.url);
          });
        }
      }
    });
  }
  return refs;
}

type Segment = string | number;

interface ParsedImagePath {
  segments: Segment[];
  img: { index: number; attribute: "src" | "srcset"; candidate: number | null } | null;
}

const PATH_SEGMENT = /\.([A-Za-z0-9_-]+)|\[(\d+)\]/y;
const IMG_FRAGMENT = /^#img\[(\d+)\]\.(src|srcset)(?:\[(\d+)\])?$/;

function parseImagePath(path: string): ParsedImagePath {
  if (!path.startsWith("settings")) throw new Error(`invalid image path: ${path}`);
  const hash = path.indexOf("#");
  const body = hash < 0 ? path : path.slice(0, hash);
  const segments: Segment[] = [];
  PATH_SEGMENT.lastIndex = "settings".length;
  while (PATH_SEGMENT.lastIndex < body.length) {
    const match = PATH_SEGMENT.exec(body);
    if (!match) throw new Error(`invalid image path: ${path}`);
    segments.push(match[1] ?? Number(match[2]));
  }
  if (segments.length === 0) throw new Error(`invalid image path: ${path}`);
  if (hash < 0) return { segments, img: null };
  const fragment = IMG_FRAGMENT.exec(path.slice(hash));
  if (!fragment) throw new Error(`invalid image path: ${path}`);
  const attribute = fragment[2] === "src" ? "src" : "srcset";
  if (attribute === "src" && fragment[3] !== undefined) throw new Error(`invalid image path: ${path}`);
  if (attribute === "srcset" && fragment[3] === undefined) throw new Error(`invalid image path: ${path}`);
  return {
    segments,
    img: {
      index: Number(fragment[1]),
      attribute,
      candidate: fragment[3] === undefined ? null : Number(fragment[3]),
    },
  };
}

/** Rewrites one image URL inside an HTML fragment; null when the image or candidate is not there. */
function replaceInHtml(
  html: string,
  img: NonNullable<ParsedImagePath["img"]>,
  newUrl: string,
  expectedUrl: string | undefined,
): string | null {
  const tag = scanImgTags(html)[img.index];
  const attribute = tag?.attributes.find((a) => a.name === img.attribute);
  if (!attribute) return null;
  let value: string;
  if (img.candidate === null) {
    if (expectedUrl !== undefined && attribute.value.trim() !== expectedUrl) return null;
    value = newUrl;
  } else {
    const candidate = parseSrcset(attribute.value)[img.candidate];
    if (!candidate || (expectedUrl !== undefined && candidate.url !== expectedUrl)) return null;
    value = attribute.value.slice(0, candidate.start) + newUrl + attribute.value.slice(candidate.end);
  }
  return `${html.slice(0, attribute.start)}"${encodeAttribute(value)}"${html.slice(attribute.end)}`;
}

/**
 * Returns a new document with the image at `path` (as given by collectExternalImageUrls) set to
 * `newUrl`; the input is not mutated. Inside about_html only that attribute value is rewritten.
 * When `expectedUrl` is given the swap happens only if the path still holds that URL, so a late
 * worker never overwrites an image the owner changed meanwhile. A path that no longer resolves
 * leaves the copy unchanged; a malformed path throws (a programming error).
 */
export function replaceImageUrl(
  settings: Record<string, unknown>,
  path: string,
  newUrl: string,
  expectedUrl?: string,
): Record<string, unknown> {
  const parsed = parseImagePath(path);
  const copy = structuredClone(settings);
  let parent: unknown = copy;
  for (const segment of parsed.segments.slice(0, -1)) {
    if (typeof segment === "number") parent = Array.isArray(parent) ? parent[segment] : undefined;
    else parent = isPlainObject(parent) ? parent[segment] : undefined;
  }
  const last = parsed.segments[parsed.segments.length - 1]!;
  const container = parent;
  let current: unknown;
  if (typeof last === "number") current = Array.isArray(container) ? container[last] : undefined;
  else current = isPlainObject(container) ? container[last] : undefined;
  if (typeof current !== "string") return copy;

  let next: string | null;
  if (parsed.img) next = replaceInHtml(current, parsed.img, newUrl, expectedUrl);
  else next = expectedUrl !== undefined && current.trim() !== expectedUrl ? null : newUrl;
  if (next === null) return copy;

  if (typeof last === "number" && Array.isArray(container)) container[last] = next;
  else if (typeof last === "string" && isPlainObject(container)) container[last] = next;
  return copy;
}
