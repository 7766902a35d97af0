/**
 * The rules of a collected page view: who is a bot, what is no view at all, and what of the path and the
 * referrer is kept. Pure functions over the request's headers and body text.
 */
import { unknownFieldDetail } from "../../lib/input-issues";
import { fail } from "../errors";

export type HitKind = "human" | "bot" | "prefetch";

/** The largest collection body read (a path, a referrer and JSON punctuation fit many times over). */
export const PAGE_VIEW_MAX_BYTES = 4096;
export const PATH_MAX_LENGTH = 512;
const REFERRER_MAX_LENGTH = 2048;

/**
 * User agents that are not a person reading the page (case-insensitive), in families:
 * self-declared crawlers and link previewers ("Googlebot", "bingbot", "GPTBot", "Slackbot",
 * "facebookexternalhit"; `bot` as the end of a word, except the CUBOT phone brand), headless and automated
 * browsers, performance and uptime probes, HTTP libraries and command-line clients, feed readers and
 * archivers, AI and search crawlers that do not say "bot".
 */
const BOT_USER_AGENT = new RegExp(
  [
    "(?<!cu)bot\\b",
    "crawl",
    "spider",
    "slurp",
    "scraper",
    "facebookexternalhit",
    "facebookcatalog",
    "meta-externalagent",
    "embedly",
    "quora link preview",
    "outbrain",
    "pinterest",
    "vkshare",
    "whatsapp",
    "skypeuripreview",
    "preview",
    "headless",
    "phantomjs",
    "selenium",
    "webdriver",
    "puppeteer",
    "playwright",
    "lighthouse",
    "pagespeed",
    "gtmetrix",
    "pingdom",
    "uptime",
    "monitor",
    "statuscake",
    "site24x7",
    "curl/",
    "wget/",
    "python",
    "go-http-client",
    "java/",
    "okhttp",
    "httpclient",
    "axios/",
    "node-fetch",
    "undici",
    "libwww",
    "lwp::",
    "httpie",
    "postman",
    "insomnia",
    "guzzle",
    "feedfetcher",
    "feedly",
    "ia_archiver",
    "archive\\.org",
    "validator",
    "mediapartners-google",
    "google-inspectiontool",
    "googleother",
    "yandex",
    "baiduspider",
    "bytespider",
    "petalsearch",
    "ccbot",
    "perplexity",
    "anthropic",
    "chatgpt",
    "cohere",
  ].join("|"),
  "i",
);

/** Every browser that runs the collection script sends a user agent beginning like this. */
const BROWSER_USER_AGENT = /^(Mozilla|Opera)\//;

/**
 * The kind of a hit, by its headers:
 * - "prefetch": a speculative load (`Sec-Purpose: prefetch` or `prefetch;prerender`, `Purpose: prefetch`
 *   or `preview`, `X-Purpose: preview`, `X-Moz: prefetch`): the page may never be shown, so it is no
 *   view at all, human or bot;
 * - "bot": no user agent, a user agent that is not a browser's (does not begin `Mozilla/` or `Opera/`:
 *   scripts, libraries, command-line clients), or one matching the patterns above;
 * - "human": everything else.
 */
export function classifyHit(headers: Headers): HitKind {
  const purpose = [
    headers.get("sec-purpose"),
    headers.get("purpose"),
    headers.get("x-purpose"),
    headers.get("x-moz"),
  ]
    .filter((v): v is string => v !== null)
    .join(",")
    .toLowerCase();
  if (/prefetch|prerender|preview/.test(purpose)) return "prefetch";
  const userAgent = headers.get("user-agent")?.trim() ?? "";
  if (userAgent === "" || !BROWSER_USER_AGENT.test(userAgent) || BOT_USER_AGENT.test(userAgent)) return "bot";
  return "human";
}

/**
 * The stored path: what the page sent, without its query and fragment (they may carry personal data:
 * e-mail addresses, tokens, search terms) and without a trailing slash (`/a/` and `/a` are one page).
 * Null when it is no path of a page: empty, not starting with one `/`, over 512 characters, or with
 * whitespace or control characters.
 */
export function normalizePagePath(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const path = value.split(/[?#]/, 1)[0]!;
  if (!path.startsWith("/") || path.startsWith("//") || path.length > PATH_MAX_LENGTH) return null;
  if (/[\s\p{Cc}]/u.test(path)) return null;
  return path.length > 1 ? path.replace(/\/+$/, "") || "/" : path;
}

function comparableHost(host: string): string {
  return host.toLowerCase().replace(/^www\./, "");
}

/**
 * The referring host worth keeping: the host of an http(s) `referrer` that is another site (not the
 * page's own origin, `www.` ignored). Only the host is kept: the rest of a referring URL may carry
 * personal data. Anything unreadable counts as no referrer (referrers are messy, the view still counts).
 */
export function referrerHost(value: unknown, pageOrigin: string | undefined): string | null {
  if (typeof value !== "string" || value === "" || value.length > REFERRER_MAX_LENGTH) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  const host = url.hostname.toLowerCase();
  if (pageOrigin !== undefined) {
    try {
      if (comparableHost(new URL(pageOrigin).hostname) === comparableHost(host)) return null;
    } catch {
      // An unreadable Origin never reaches here (the key's allowlist holds exact origins).
    }
  }
  return host;
}

const PAGE_VIEW_MEMBERS = new Set(["path", "referrer"]);

export interface PageViewBody {
  path: string;
  referrer: unknown;
}

/**
 * The body `navigator.sendBeacon` sends: JSON `{"path": "/…", "referrer": "…"}` as `text/plain` (no
 * preflight) or `application/json`. A body that is not that is 400 INVALID_PAGE_VIEW; a member other than
 * those two is 400 BAD_REQUEST naming it (`details.path`), as an unknown field is everywhere.
 */
export function parsePageView(text: string): PageViewBody {
  if (text.length > PAGE_VIEW_MAX_BYTES) {
    fail("INVALID_PAGE_VIEW", `The body is limited to ${PAGE_VIEW_MAX_BYTES} bytes.`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    fail("INVALID_PAGE_VIEW", 'The body must be JSON: {"path": "/…", "referrer": "…"}.');
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    fail("INVALID_PAGE_VIEW", 'The body must be a JSON object: {"path": "/…", "referrer": "…"}.');
  }
  const record = body as Record<string, unknown>;
  // Nothing sent is dropped silently (issue 33): a member other than path and referrer is refused, named.
  const unknown = Object.keys(record).filter((name) => !PAGE_VIEW_MEMBERS.has(name));
  if (unknown.length > 0) {
    fail("BAD_REQUEST", {
      detail: unknownFieldDetail(unknown[0]!, unknown),
      details: { path: unknown[0]!, unknown },
    });
  }
  const path = normalizePagePath(record.path);
  if (path === null) {
    fail(
      "INVALID_PAGE_VIEW",
      `path must be the page's path: starting with one "/", at most ${PATH_MAX_LENGTH} characters, no whitespace.`,
    );
  }
  return { path, referrer: record.referrer };
}
