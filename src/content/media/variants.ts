/**
 * The `media-variants` queue consumer: reads an uploaded original from R2, resizes and re-encodes it
 * with the Cloudflare Images binding (`IMAGES`; Miniflare runs it locally through sharp), stores every
 * variant in R2 and records the asset `ready` (or `failed` with a reason), with the pixel size of the
 * original and of each variant.
 *
 * Variants: widths 320, 640 and 1280, only those strictly smaller than the original (never upscaled),
 * each in WebP and in the original's own format (PNG, JPEG, AVIF; a GIF or a WebP gets WebP only).
 * SVG (vector: not rasterized) and ICO (not a format the binding reads) keep the original as their only
 * variant; their size comes from the file itself.
 *
 * Idempotent: variant keys are derived from the asset and the rendition, so a redelivered message
 * overwrites the same objects, and only a `processing` asset is ever finished.
 */
import { errorFields, type Logger } from "../../lib/log";
import type { Env } from "../core/bindings";
import { emitMediaReady } from "../webhooks/events";
import { type ImageSize, imageSize, readsSizeOf } from "./image-size";
import { finishMediaVariants, getMedia, type MediaRow, mediaVariantKey, type VariantsResult } from "./store";

export const VARIANT_WIDTHS = [320, 640, 1280] as const;
/** Attempts of one message before a failure the decoder does not explain becomes `processing_failed`. */
export const VARIANT_ATTEMPTS = 3;
const RETRY_DELAY_SECONDS = 30;
/** Cloudflare Images' input limits: 12,000 px a side, 100 megapixels. */
export const MAX_SIDE = 12_000;
export const MAX_PIXELS = 100_000_000;
/** Images binding error for input that is not an image. */
const NOT_AN_IMAGE = 9412;

export type VariantFailure = "undecodable" | "too_large" | "processing_failed" | "original_missing";

/** One entry of an asset's `variants` (the original first, named `original`). */
export interface MediaVariant {
  name: string;
  url: string;
  width: number | null;
  height: number | null;
  content_type: string;
  size_bytes: number;
}

type OutputFormat = ImageOutputOptions["format"];

interface Rendition {
  name: string;
  width: number;
  format: OutputFormat;
  ext: string;
}

const WEBP = { format: "image/webp", ext: "webp" } as const;
const FORMATS: Record<string, readonly { format: OutputFormat; ext: string }[]> = {
  "image/png": [WEBP, { format: "image/png", ext: "png" }],
  "image/jpeg": [WEBP, { format: "image/jpeg", ext: "jpg" }],
  "image/avif": [WEBP, { format: "image/avif", ext: "avif" }],
  "image/webp": [WEBP],
  // GIF output is not offered by the binding everywhere (not locally); the original GIF is the fallback.
  "image/gif": [WEBP],
};

/** Whether the Images binding resizes this type (SVG and ICO are served as they are). */
export function isResizable(contentType: string): boolean {
  return contentType in FORMATS;
}

/**
 * The renditions of an original of this type and width: every configured width strictly below it,
 * each in every format of the type. `width` null (unknown) lists every width: the URLs a purge covers.
 */
export function renditionsOf(contentType: string, width: number | null): Rendition[] {
  const formats = FORMATS[contentType] ?? [];
  return VARIANT_WIDTHS.filter((w) => width === null || w < width).flatMap((w) =>
    formats.map((f) => ({ name: `${w}w-${f.ext}`, width: w, format: f.format, ext: f.ext })),
  );
}

/** The public URLs an asset may have: the original and every variant it has or could have. */
export function mediaUrls(
  env: Env,
  row: Pick<MediaRow, "site_id" | "id" | "r2_key" | "content_type" | "variants_json">,
) {
  const urls = new Set([`${env.MEDIA_PUBLIC_BASE}/${row.r2_key}`]);
  for (const v of parseVariants(row.variants_json)) urls.add(v.url);
  for (const r of renditionsOf(row.content_type, null)) {
    urls.add(`${env.MEDIA_PUBLIC_BASE}/${mediaVariantKey(row.site_id, row.id, r.width, r.ext)}`);
  }
  return [...urls];
}

/** The stored variants list; rows written before sizes were recorded read with null sizes. */
export function parseVariants(json: string): MediaVariant[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  return parsed.map((v: Partial<MediaVariant>) => ({
    name: String(v.name ?? ""),
    url: String(v.url ?? ""),
    width: typeof v.width === "number" ? v.width : null,
    height: typeof v.height === "number" ? v.height : null,
    content_type: String(v.content_type ?? ""),
    size_bytes: typeof v.size_bytes === "number" ? v.size_bytes : 0,
  }));
}

function stream(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new Blob([bytes]).stream();
}

function imagesErrorCode(err: unknown): number | null {
  const code = typeof err === "object" && err !== null ? (err as { code?: unknown }).code : undefined;
  return typeof code === "number" ? code : null;
}

/** The decoder's reading of the size (AVIF, whose header is not read here). */
async function decodedSize(env: Env, bytes: Uint8Array): Promise<ImageSize | null> {
  const info = await env.IMAGES.info(stream(bytes));
  return "width" in info && info.width > 0 && info.height > 0
    ? { width: info.width, height: info.height }
    : null;
}

/** One variant: resized and encoded by the binding, its real size read back, stored in R2. */
async function renderVariant(
  env: Env,
  row: MediaRow,
  bytes: Uint8Array,
  r: Rendition,
): Promise<MediaVariant> {
  const result = await env.IMAGES.input(stream(bytes))
    .transform({ width: r.width, fit: "scale-down" })
    .output({ format: r.format });
  if (result.contentType() !== r.format) {
    throw new Error(`images binding answered ${result.contentType()} for ${r.format}`);
  }
  const out = new Uint8Array(await new Response(result.image()).arrayBuffer());
  const size = await decodedSize(env, out);
  if (!size) throw new Error(`images binding output for ${r.name} has no size`);
  const key = mediaVariantKey(row.site_id, row.id, r.width, r.ext);
  await env.MEDIA.put(key, out, { httpMetadata: { contentType: r.format } });
  return {
    name: r.name,
    url: `${env.MEDIA_PUBLIC_BASE}/${key}`,
    ...size,
    content_type: r.format,
    size_bytes: out.byteLength,
  };
}

function failed(reason: VariantFailure, size: ImageSize | null = null): VariantsResult {
  return { status: "failed", reason, width: size?.width ?? null, height: size?.height ?? null };
}

/** The original's pixel size: from its header, or (AVIF) from the decoder; null when unreadable. */
export function originalSize(env: Env, contentType: string, bytes: Uint8Array): Promise<ImageSize | null> {
  return readsSizeOf(contentType) ? Promise.resolve(imageSize(contentType, bytes)) : decodedSize(env, bytes);
}

/**
 * The variants of one original of the given size (throws when the binding fails: the caller decides
 * between a retry and a failure).
 */
export async function generateVariants(
  env: Env,
  row: MediaRow,
  bytes: Uint8Array,
  size: ImageSize | null,
): Promise<VariantsResult> {
  const original: MediaVariant = {
    name: "original",
    url: `${env.MEDIA_PUBLIC_BASE}/${row.r2_key}`,
    width: size?.width ?? null,
    height: size?.height ?? null,
    content_type: row.content_type,
    size_bytes: bytes.byteLength,
  };
  if (!isResizable(row.content_type)) {
    // An SVG without a size of its own is still a good image; an ICO without a directory is not.
    if (!size && row.content_type !== "image/svg+xml") return failed("undecodable");
    return { status: "ready", width: original.width, height: original.height, variants: [original] };
  }
  if (!size) return failed("undecodable");
  if (size.width > MAX_SIDE || size.height > MAX_SIDE || size.width * size.height > MAX_PIXELS) {
    return failed("too_large", size);
  }
  const variants = [original];
  for (const r of renditionsOf(row.content_type, size.width))
    variants.push(await renderVariant(env, row, bytes, r));
  return { status: "ready", ...size, variants };
}

type Decision = "ack" | "retry";

/** One message: finish a `processing` asset, or ask for a retry while attempts remain. */
export async function processVariantsMessage(
  env: Env,
  body: unknown,
  attempts: number,
  log: Logger,
): Promise<Decision> {
  const { media_id: mediaId, site_id: siteId } = (body ?? {}) as { media_id?: unknown; site_id?: unknown };
  if (typeof mediaId !== "string" || typeof siteId !== "string") return "ack";
  const row = await getMedia(env.DB, siteId, mediaId);
  // Missing, deleted, or already finished by an earlier delivery: nothing to do.
  if (row?.status !== "processing") return "ack";
  let result: VariantsResult;
  let size: ImageSize | null = null;
  try {
    const object = await env.MEDIA.get(row.r2_key);
    if (object) {
      const bytes = new Uint8Array(await object.arrayBuffer());
      size = await originalSize(env, row.content_type, bytes);
      result = await generateVariants(env, row, bytes, size);
    } else {
      result = failed("original_missing");
    }
  } catch (err) {
    if (imagesErrorCode(err) === NOT_AN_IMAGE) {
      result = failed("undecodable", size);
    } else if (attempts < VARIANT_ATTEMPTS) {
      log.warn("media_variants_retry", { media_id: row.id, attempts, ...errorFields(err) });
      return "retry";
    } else {
      result = failed("processing_failed", size);
    }
  }
  const finished = await finishMediaVariants(env.DB, row.id, result);
  if (result.status === "failed")
    log.info("media_variants_failed", { media_id: row.id, reason: result.reason });
  // `media.ready` once: only the delivery that moved the asset out of `processing` announces it.
  if (finished && result.status === "ready") {
    await emitMediaReady(env, row, result.variants as { name: string; url: string }[]);
  }
  return "ack";
}

/** The `media-variants` messages of one group (index.ts splits a batch by site): each message acked, or retried later with a growing delay. */
export async function consumeMediaVariants(
  env: Env,
  batch: Pick<MessageBatch<unknown>, "messages">,
  log: Logger,
): Promise<void> {
  for (const message of batch.messages) {
    const decision = await processVariantsMessage(env, message.body, message.attempts, log);
    if (decision === "retry") message.retry({ delaySeconds: RETRY_DELAY_SECONDS * message.attempts });
    else message.ack();
  }
}
