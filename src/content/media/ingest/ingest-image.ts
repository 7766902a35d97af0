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
import { dohResolver, type Resolver } from "./resolver";
import { safeFetch } from "./safe-fetch";
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

export async function fetchImageSafely(url: string, deps: IngestDeps): Promise<IngestOutcome> {
  const fetched = await safeFetch(url, deps);
  if (fetched.kind !== "ok") return fetched;
  return classifyImage(fetched.bytes);
}
