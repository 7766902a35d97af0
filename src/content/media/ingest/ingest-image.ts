/**
 * The image-ingest core: fetch an external image URL safely and decide what it is. Storage (R2, the
 * media row, the CDN URL) belongs to the caller; this only answers "these bytes, of this type" or why
 * not, and whether "why not" is definitive.
 *
 * Outcomes and reasons:
 * - `ok`: `bytes` to store as `contentType` with extension `ext` (raster as fetched; SVG as the
 *   sanitizer's output, which for an accepted SVG equals the fetched root element).
 * - `rejected` (definitive; the spec's 422 for a new image): `invalid_url`, `forbidden_scheme`,
 *   `credentials_in_url`, `non_public_host`, `bad_redirect`, `too_many_redirects`, `http_404`,
 *   `http_410`, `http_<other 4xx>`, `too_large`, `not_image`, `hostile_svg`.
 * - `transient` (keep the external URL, retry later): `timeout`, `network_error`, `http_5xx`,
 *   `http_408`, `http_425`, `http_429`, `dns_nxdomain`, `dns_no_address`, `dns_unavailable`.
 */
import { dohResolver, type Resolver } from "../../../lib/doh";
import { type GuardOptions, guardedFetch } from "../../../lib/safe-fetch";
import { judgeSvg, sniffRaster } from "./sniff";

export type IngestOutcome =
  | { kind: "ok"; bytes: Uint8Array; contentType: string; ext: string }
  | { kind: "transient"; reason: string }
  | { kind: "rejected"; reason: string };

export interface IngestDeps {
  resolver: Resolver;
  fetcher?: typeof fetch;
  maxBytes: number;
  maxRedirects?: number;
  timeoutMs?: number;
}

/** The SSRF-safe image fetcher the ingest service is handed (through its services). */
export interface ImageFetcher {
  fetchImage(url: string): Promise<IngestOutcome>;
}

/** The real fetcher: DNS-over-HTTPS resolution, public addresses only, size and time bounds. */
export function safeImageFetcher(config: {
  dohUrl: string;
  maxBytes: number;
  timeoutMs?: number;
}): ImageFetcher {
  const deps: IngestDeps = {
    resolver: dohResolver(config.dohUrl),
    maxBytes: config.maxBytes,
    ...(config.timeoutMs !== undefined ? { timeoutMs: config.timeoutMs } : {}),
  };
  return { fetchImage: (url) => fetchImageSafely(url, deps) };
}

/** Bytes of a fetched body as an image, by content only (the remote Content-Type is ignored). */
export function classifyImage(bytes: Uint8Array): IngestOutcome {
  const raster = sniffRaster(bytes);
  if (raster) return { kind: "ok", bytes, ...raster };
  const svg = judgeSvg(bytes);
  if (svg.kind === "ok") {
    return { kind: "ok", bytes: new TextEncoder().encode(svg.svg), contentType: "image/svg+xml", ext: "svg" };
  }
  if (svg.kind === "rejected") return { kind: "rejected", reason: svg.reason };
  return { kind: "rejected", reason: "not_image" };
}

/** Redirects an image URL may take (each one checked like the first URL); one more is refused. */
const MAX_REDIRECTS = 5;
/** Deadline for one image: DNS, every hop and the body. */
const TIMEOUT_MS = 8000;
const IMAGE_ACCEPT = "image/avif,image/webp,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.1";
/** 4xx that say "try later", not "this URL is bad". */
const TRANSIENT_4XX = new Set([408, 425, 429]);

/** The outbound guard's options for an image: http(s), up to 5 redirects, the size cap, one deadline. */
export function imageGuardOptions(deps: IngestDeps): GuardOptions {
  return {
    schemes: ["http:", "https:"],
    resolver: deps.resolver,
    body: { read: "2xx", maxBytes: deps.maxBytes },
    redirects: deps.maxRedirects ?? MAX_REDIRECTS,
    timeoutMs: deps.timeoutMs ?? TIMEOUT_MS,
    ...(deps.fetcher ? { fetcher: deps.fetcher } : {}),
  };
}

/**
 * The image at `url` through the outbound guard (src/lib/safe-fetch.ts). Rejections are definitive
 * (the URL is bad or unsafe); transient failures may succeed later (timeouts, 5xx, DNS trouble,
 * 408/425/429).
 */
export async function fetchImageSafely(url: string, deps: IngestDeps): Promise<IngestOutcome> {
  const fetched = await guardedFetch(
    url,
    { method: "GET", headers: { accept: IMAGE_ACCEPT } },
    imageGuardOptions(deps),
  );
  if (fetched.kind !== "answer") return fetched;
  if (fetched.body === null) {
    const transient = fetched.status >= 500 || TRANSIENT_4XX.has(fetched.status);
    return { kind: transient ? "transient" : "rejected", reason: `http_${fetched.status}` };
  }
  return classifyImage(fetched.body);
}
