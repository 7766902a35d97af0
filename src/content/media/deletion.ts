/**
 * `DELETE /v1/media/{id}`: the soft delete and the purge of every public URL of the asset (the original
 * and each variant it has or could have), written in ONE D1 batch through the effects outbox
 * (`post_effects`, subject = the media id), then delivered; a failed delivery is redelivered by the cron.
 * The media route stops serving a deleted asset at once; the purge empties the CDN's copies.
 */
import { batch } from "../../lib/sql";
import type { Env, Services } from "../core/bindings";
import { deliverEffects, postEffect } from "../core/effects/pending";
import { effectAfterUpdateStatement } from "../core/effects/store";
import { getMedia, softDeleteMediaStatement } from "./store";
import { mediaUrls } from "./variants";

/** False when the site has no such live asset (another site's id included) or a concurrent delete won. */
export async function deleteMediaAsset(
  env: Env,
  services: Services,
  siteId: string,
  id: string,
): Promise<boolean> {
  const row = await getMedia(env.DB, siteId, id);
  if (!row) return false;
  const now = new Date().toISOString();
  const purge = postEffect(siteId, id, "cache_purge", { urls: mediaUrls(env, row) });
  const [deleted] = await batch(env.DB, [
    softDeleteMediaStatement(env.DB, siteId, id, now),
    effectAfterUpdateStatement(env.DB, purge, now),
  ]);
  if (deleted.changes === 0) return false;
  await deliverEffects(env, services, [purge]);
  return true;
}
