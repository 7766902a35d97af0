/**
 * Test helpers of content's media: images made in the test (a PNG encoder of our own, other formats
 * through the Images binding), uploads through the worker, the wait for the real media-variants queue,
 * direct deliveries of a media-variants batch (for attempts and redeliveries), and the decoder's view
 * of stored bytes (the Images binding's `info()`, which locally is sharp).
 */
import {
  createExecutionContext,
  createMessageBatch,
  getQueueResult,
  waitOnExecutionContext,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { WorkerEnv } from "../../src/content/core/bindings";
import ContentService from "../../src/content/index";
import { BASE, call, content, createKey, makeSite } from "./content-helpers";

export const images = (env as unknown as { IMAGES: ImagesBinding }).IMAGES;

export interface Variant {
  name: string;
  url: string;
  width: number | null;
  height: number | null;
  content_type: string;
  size_bytes: number;
}

export interface Asset {
  id: string;
  status: string;
  failure_reason: string | null;
  url: string;
  content_type: string;
  size_bytes: number;
  width: number | null;
  height: number | null;
  variants: Variant[];
}

/** `bytes` re-encoded by the Images binding (to make JPEG and WebP fixtures from a PNG). */
export async function encodeAs(bytes: Uint8Array, format: "image/jpeg" | "image/webp"): Promise<Uint8Array> {
  const result = await images.input(new Blob([bytes]).stream()).output({ format });
  return new Uint8Array(await new Response(result.image()).arrayBuffer());
}

/** What a decoder reads from `bytes`: format and pixel size. */
export async function decode(
  bytes: Uint8Array,
): Promise<{ format: string; width?: number; height?: number }> {
  return (await images.info(new Blob([bytes]).stream())) as {
    format: string;
    width?: number;
    height?: number;
  };
}

export async function mediaTenant() {
  const site = await makeSite();
  const ck = await createKey(site, { scopes: ["media:write", "media:read"] });
  return { site, ck: ck.key };
}

export async function uploadFile(key: string, file: Uint8Array | string, name = "a.png"): Promise<Asset> {
  const form = new FormData();
  form.append("file", new File([file], name));
  const res = await content.fetch(
    new Request(`${BASE}/v1/media`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}` },
      body: form,
    }),
  );
  if (res.status !== 202) throw new Error(`upload: ${res.status} ${await res.text()}`);
  return (await res.json()) as Asset;
}

export async function getAsset(key: string, id: string): Promise<Asset> {
  const res = await call("GET", `/v1/media/${id}`, { key });
  if (res.status !== 200) throw new Error(`get media: ${res.status} ${await res.text()}`);
  return (await res.json()) as Asset;
}

/** The asset once the real media-variants queue has processed it (or the last state after ~20 s). */
export async function waitUntilProcessed(key: string, id: string): Promise<Asset> {
  let current = await getAsset(key, id);
  for (let i = 0; i < 200 && current.status === "processing"; i++) {
    await new Promise((r) => setTimeout(r, 100));
    current = await getAsset(key, id);
  }
  return current;
}

/** Delivers one media-variants batch to the consumer as the Queues runtime would; its ack/retry state. */
export async function deliverVariants(messages: { body: unknown; attempts?: number }[]) {
  const batch = createMessageBatch(
    "media-variants",
    messages.map((m, i) => ({ id: `m${i}`, timestamp: new Date(), attempts: m.attempts ?? 1, body: m.body })),
  );
  // Through the Worker's own queue handler: it splits the batch by the sites' groups (docs/decisions/
  // site-groups.md) and acks what is about no site it knows, as the Queues runtime would see it.
  const ctx = createExecutionContext();
  await new ContentService(ctx, env as unknown as WorkerEnv).queue(batch);
  await waitOnExecutionContext(ctx);
  return getQueueResult(batch, ctx);
}

/** The R2 keys under an asset's variant folder. */
export async function variantKeys(siteId: string, mediaId: string): Promise<string[]> {
  const listed = await (env as unknown as { MEDIA: R2Bucket }).MEDIA.list({
    prefix: `sites/${siteId}/${mediaId}/`,
  });
  return listed.objects.map((o) => o.key).sort();
}
