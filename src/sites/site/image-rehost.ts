/**
 * Rehosting of the external images of a settings document through content's image ingest.
 * On PATCH: every external URL is ingested in parallel and waited for up to IMAGE_INGEST_TIMEOUT_MS in
 * total. Ready -> the CDN URL replaces it (and the logo/favicon media ids are set). Pending, transient
 * or ingest down -> the external URL is kept and an `image-swap` message lets the consumer below swap
 * it later. A definitive refusal of a NEW URL refuses the whole PATCH (422, nothing stored); a URL the
 * stored document already had never causes a refusal.
 */
import type { ImageIngestResult } from "../../lib/rpc";
import { tracedMessage } from "../../lib/trace";
import type { Services } from "../core/app-env";
import { fail } from "../errors";
import { readSettings, type SettingsDocument } from "./record";
import { collectExternalImageUrls, replaceImageUrl } from "./settings/validate-settings";
import { getVisibleSite, type SiteRow, swapSettings } from "./store";

export interface ImageRef {
  path: string;
  url: string;
}

export interface ImageSwapMessage {
  site_id: string;
  path: string;
  url: string;
}

export const MAX_INVALID_IMAGES_LISTED = 20;

/** The spec's "about 8 seconds" of waiting for image ingest on a PATCH. */
export const DEFAULT_INGEST_TIMEOUT_MS = 8000;

/** The configured ingest wait (`IMAGE_INGEST_TIMEOUT_MS`), or 8 s when absent or not a positive number. */
export function ingestTimeoutMs(env: { IMAGE_INGEST_TIMEOUT_MS?: string }): number {
  const configured = Number(env.IMAGE_INGEST_TIMEOUT_MS);
  return Number.isFinite(configured) && configured > 0 ? configured : DEFAULT_INGEST_TIMEOUT_MS;
}

/** Top-level fields whose rehosted asset is also recorded by media id. */
const MEDIA_ID_FIELDS: Record<string, string> = {
  logo_url: "logo_media_id",
  favicon_png_url: "favicon_png_media_id",
  favicon_ico_url: "favicon_ico_media_id",
};

function mediaIdFieldFor(path: string): string | undefined {
  return MEDIA_ID_FIELDS[path.replace(/^settings\./, "")];
}

/** Origins that are the site itself or the platform CDN: their URLs are not external. */
export function ownOrigins(hosts: string[], mediaPublicBase: string): string[] {
  const origins = hosts.flatMap((h) => [`https://${h}`, `http://${h}`]);
  try {
    origins.push(new URL(mediaPublicBase).origin);
  } catch {
    // A misconfigured base only means CDN URLs get re-ingested (content answers them as ready).
  }
  return origins;
}

/**
 * Content's answer as the contract says it must look; anything else (another version of content, a
 * bug) is treated as "not finished" so it can never store a broken URL or refuse a PATCH.
 */
export function normalizeIngestResult(result: unknown): ImageIngestResult {
  const r = (typeof result === "object" && result !== null ? result : {}) as Record<string, unknown>;
  if (
    r.status === "ready" &&
    typeof r.url === "string" &&
    /^https?:\/\/[^\s"'<>]+$/i.test(r.url) &&
    typeof r.media_id === "string"
  ) {
    return { status: "ready", url: r.url, media_id: r.media_id };
  }
  if (r.status === "rejected" && r.definitive === true) {
    return {
      status: "rejected",
      definitive: true,
      reason: typeof r.reason === "string" ? r.reason : "rejected",
    };
  }
  if (r.status === "pending")
    return { status: "pending", reason: typeof r.reason === "string" ? r.reason : "pending" };
  return { status: "pending", reason: "unexpected_ingest_answer" };
}

function ingestWithDeadline(
  content: Services["content"],
  siteId: string,
  refs: ImageRef[],
  timeoutMs: number,
): Promise<Map<string, ImageIngestResult>> {
  const firstPathOf = new Map<string, string>();
  for (const ref of refs) if (!firstPathOf.has(ref.url)) firstPathOf.set(ref.url, ref.path);
  let timer: ReturnType<typeof setTimeout> | null = null;
  const deadline = new Promise<ImageIngestResult>((resolve) => {
    timer = setTimeout(() => resolve({ status: "pending", reason: "ingest_timeout" }), timeoutMs);
  });
  const entries = [...firstPathOf].map(async ([url, path]) => {
    // Inside an async function so a synchronous throw of the binding (content not deployed, an RPC
    // method missing) is a rejection like any other failure: "ingest down" keeps the URL, never a 500.
    const attempt = (async () =>
      normalizeIngestResult(await content.ingestImage({ site_id: siteId, url, purpose: path })))().catch(
      (err: unknown): ImageIngestResult => ({
        status: "pending",
        reason: `ingest_unavailable: ${String(err)}`,
      }),
    );
    return [url, await Promise.race([attempt, deadline])] as const;
  });
  return Promise.all(entries)
    .then((pairs) => new Map(pairs))
    .finally(() => clearTimeout(timer));
}

function applyReady(settings: SettingsDocument, ref: ImageRef, result: { url: string; media_id: string }) {
  const { path } = ref;
  // Only where the path still holds this URL: a swap never overwrites an image changed meanwhile.
  const next = replaceImageUrl(settings, path, result.url, ref.url);
  const mediaField = mediaIdFieldFor(path);
  if (mediaField) next[mediaField] = result.media_id;
  return next;
}

/**
 * Drops `logo_media_id` / `favicon_*_media_id` where the matching field holds an external URL (`refs`):
 * a media id sent along then names some other asset. The media id is the server's record of the
 * rehosted asset and is set again when the swap completes.
 */
export function withoutStaleMediaIds(settings: SettingsDocument, refs: ImageRef[]): SettingsDocument {
  let out = settings;
  for (const ref of refs) {
    const mediaField = mediaIdFieldFor(ref.path);
    if (mediaField && mediaField in out) {
      const { [mediaField]: _stale, ...rest } = out;
      out = rest;
    }
  }
  return out;
}

/** How a write rehosts: every external URL (the PATCH) or only new ones, and ingest answers to reuse. */
export interface RehostOptions {
  /**
   * Only URLs absent from the stored document are ingested (a merge: stored URLs are left as they are,
   * their swap already queued by the write that brought them).
   */
  onlyNew?: boolean;
  /** Ingest answers by URL, filled and reused across attempts of one write: each URL is ingested once. */
  memo?: Map<string, ImageIngestResult>;
}

/**
 * Rehosts the external images of an already validated document. Throws 422 IMAGEM_EXTERNA_INVALIDA
 * when a new URL is refused for good; otherwise returns the document to store and what to swap later.
 */
export async function rehostSettingsImages(
  env: SitesEnv,
  services: Services,
  input: { siteId: string; settings: SettingsDocument; stored: SettingsDocument; origins: string[] },
  options: RehostOptions = {},
): Promise<{ settings: SettingsDocument; pending: ImageRef[] }> {
  const alreadyStored = new Set(collectExternalImageUrls(input.stored, input.origins).map((r) => r.url));
  const refs = collectExternalImageUrls(input.settings, input.origins).filter(
    (r) => !options.onlyNew || !alreadyStored.has(r.url),
  );
  if (refs.length === 0) return { settings: input.settings, pending: [] };
  const results = options.memo ?? new Map<string, ImageIngestResult>();
  const toIngest = refs.filter((r) => !results.has(r.url));
  if (toIngest.length > 0) {
    const fresh = await ingestWithDeadline(services.content, input.siteId, toIngest, ingestTimeoutMs(env));
    for (const [url, result] of fresh) results.set(url, result);
  }

  let settings = input.settings;
  const pending: ImageRef[] = [];
  const invalid: (ImageRef & { reason: string })[] = [];
  for (const ref of refs) {
    const result = results.get(ref.url) ?? { status: "pending", reason: "not_attempted" };
    if (result.status === "ready") {
      settings = applyReady(settings, ref, result);
    } else {
      if (result.status === "pending") pending.push(ref);
      else if (!alreadyStored.has(ref.url)) invalid.push({ ...ref, reason: result.reason });
      settings = withoutStaleMediaIds(settings, [ref]);
    }
  }
  if (invalid.length > 0) {
    const [first] = invalid;
    const others = invalid.length - 1;
    fail("IMAGEM_EXTERNA_INVALIDA", {
      detail:
        `External image ${first!.url} at ${first!.path} was rejected by image ingest (${first!.reason})` +
        (others > 0 ? ` and ${others} other${others === 1 ? "" : "s"}.` : "."),
      extensions: { invalid_images: invalid.slice(0, MAX_INVALID_IMAGES_LISTED) },
    });
  }
  return { settings, pending };
}

const SWAP_BATCH_SIZE = 50;

export async function enqueueImageSwaps(
  env: SitesEnv,
  services: Services,
  siteId: string,
  pending: ImageRef[],
): Promise<void> {
  if (pending.length === 0) return;
  try {
    // A Queues batch holds at most 100 messages (and 256 KB); a URL is at most 2,048 characters.
    for (let i = 0; i < pending.length; i += SWAP_BATCH_SIZE) {
      await env.IMAGE_SWAP.sendBatch(
        pending.slice(i, i + SWAP_BATCH_SIZE).map((ref) => ({
          body: tracedMessage({ site_id: siteId, path: ref.path, url: ref.url } satisfies ImageSwapMessage),
        })),
      );
    }
  } catch (err) {
    // The external URL stays valid and served; only its rehosting is lost.
    services.log.error("image_swap_enqueue_failed", { site_id: siteId, error: String(err) });
  }
}

function isSwapMessage(body: unknown): body is ImageSwapMessage {
  const b = body as ImageSwapMessage;
  return (
    typeof body === "object" &&
    body !== null &&
    typeof b.site_id === "string" &&
    typeof b.path === "string" &&
    typeof b.url === "string"
  );
}

const CONSUMER_INGEST_TIMEOUT_MS = 30_000;

/**
 * Consumer of `image-swap`: ingests again and, once ready, swaps the URL in the stored settings if the
 * document still carries it at that path. The write is a compare-and-swap on the whole document, so a
 * PATCH that landed meanwhile is never overwritten (the message is retried and re-checked).
 */
export async function consumeImageSwap(
  env: SitesEnv,
  services: Services,
  batch: MessageBatch<unknown>,
  hostsOf: (row: SiteRow) => string[],
  onSwapped: (row: SiteRow) => Promise<void>,
): Promise<void> {
  for (const message of batch.messages) {
    if (!isSwapMessage(message.body)) {
      message.ack();
      continue;
    }
    const { site_id, path, url } = message.body;
    const row = await getVisibleSite(env.DB, site_id);
    if (!row) {
      message.ack();
      continue;
    }
    const { settings, unreadable } = readSettings(row.settings);
    const origins = ownOrigins(hostsOf(row), env.MEDIA_PUBLIC_BASE);
    const stillThere =
      !unreadable &&
      collectExternalImageUrls(settings, origins).some((r) => r.path === path && r.url === url);
    if (!stillThere) {
      message.ack();
      continue;
    }
    const results = await ingestWithDeadline(
      services.content,
      site_id,
      [{ path, url }],
      CONSUMER_INGEST_TIMEOUT_MS,
    );
    const result = results.get(url);
    if (result?.status === "ready") {
      const next = applyReady(settings, { path, url }, result);
      const swapped = await swapSettings(
        env.DB,
        site_id,
        row.settings,
        JSON.stringify(next),
        new Date().toISOString(),
      );
      if (swapped) {
        await onSwapped(row);
        message.ack();
      } else {
        message.retry({ delaySeconds: 1 });
      }
    } else if (result?.status === "rejected") {
      services.log.warn("image_swap_rejected", { site_id, path, reason: result.reason });
      message.ack();
    } else {
      message.retry({ delaySeconds: Math.min(600, 5 * 2 ** message.attempts) });
    }
  }
}
