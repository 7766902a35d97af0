/** `ingestImage` RPC: fetch an external image safely, keep it in R2 under the site, record a media row. */

import { newId } from "../../lib/ids";
import type { Logger } from "../../lib/log";
import type { ImageIngestResult } from "../../lib/rpc";
import { batch } from "../../lib/sql";
import type { Env, Services, WorkerEnv } from "../core/bindings";
import { siteEnv } from "../core/groups";
import { contentServices } from "../core/services";
import { getSite } from "../site/store";
import { insertMediaStatements, mediaKey } from "./store";

/**
 * Content's copy of a site arrives asynchronously (sites pushes it, retrying through a queue). A site not
 * (yet) known here, by the directory or in its group, is a transient state, never a reason to refuse the
 * owner's image.
 */
function deferred(log: Logger, siteId: unknown): ImageIngestResult {
  log.info("image_ingest_deferred", { site_id: siteId, reason: "site_not_synced" });
  return { status: "pending", reason: "site_not_synced" };
}

/** The RPC: on the site's group (docs/decisions/site-groups.md). */
export async function ingestImage(
  worker: WorkerEnv,
  log: Logger,
  input: { site_id: string; url: string; purpose: string },
): Promise<ImageIngestResult> {
  const env = typeof input.site_id === "string" ? await siteEnv(worker, input.site_id) : null;
  if (!env) return deferred(log, input.site_id);
  return ingestOnGroup(env, contentServices(env, log), input);
}

async function ingestOnGroup(
  env: Env,
  services: Services,
  input: { site_id: string; url: string; purpose: string },
): Promise<ImageIngestResult> {
  const site = await getSite(env.DB, input.site_id);
  if (!site || site.status === "deleted") return deferred(services.log, input.site_id);
  const outcome = await services.images.fetchImage(input.url);
  if (outcome.kind !== "ok") {
    services.log.info("image_ingest_not_ready", {
      site_id: site.id,
      outcome: outcome.kind,
      reason: outcome.reason,
    });
    if (outcome.kind === "transient") return { status: "pending", reason: outcome.reason };
    return { status: "rejected", definitive: true, reason: outcome.reason };
  }
  const id = newId();
  const key = mediaKey(site.id, id, outcome.ext);
  await env.MEDIA.put(key, outcome.bytes, { httpMetadata: { contentType: outcome.contentType } });
  await batch(
    env.DB,
    insertMediaStatements(
      env.DB,
      {
        id,
        site_id: site.id,
        r2_key: key,
        content_type: outcome.contentType,
        size_bytes: outcome.bytes.byteLength,
        status: "ready",
        folder_id: null,
        created_at: new Date().toISOString(),
      },
      [],
      { url: input.url, purpose: input.purpose },
    ),
  );
  return { status: "ready", url: `${env.MEDIA_PUBLIC_BASE}/${key}`, media_id: id };
}
