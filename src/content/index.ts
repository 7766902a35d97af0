/**
 * The content worker: the HTTP app, the RPC methods other services call over service bindings
 * (site projection, image ingest, post types), queue consumers and the cron.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { newId } from "../lib/ids";
import type { ContentRpc, ImageIngestResult, SiteProjection } from "../lib/rpc";
import { app } from "./app";
import type { Env } from "./bindings";
import { redeliverPendingEffects } from "./effects/pending";
import { ingestImage } from "./ingest-service";
import { isValidTypeSlug } from "./rules/slug";
import { purgeExpiredIdempotency } from "./store/idempotency";
import { getMedia, markVariantsReady } from "./store/media";
import { upsertPostType, upsertSite } from "./store/sites";

export default class ContentService extends WorkerEntrypoint<Env> implements ContentRpc {
  override fetch(request: Request): Promise<Response> {
    return Promise.resolve(app.fetch(request, this.env, this.ctx));
  }

  /** Sites pushes every change of a site; `deleted`/`archived` make the site's keys stop working at once. */
  async syncSite(site: SiteProjection): Promise<void> {
    await upsertSite(this.env.DB, site, new Date().toISOString());
  }

  ingestImage(input: { site_id: string; url: string; purpose: string }): Promise<ImageIngestResult> {
    return ingestImage(this.env, input);
  }

  /** Declares (or updates) a post type of a site; private types are never listed publicly. */
  async definePostType(input: {
    site_id: string;
    slug: string;
    name: string;
    public: boolean;
  }): Promise<void> {
    if (!isValidTypeSlug(input.slug)) throw new Error("post type slug must be a slug");
    await upsertPostType(this.env.DB, input, new Date().toISOString());
  }

  override async queue(batch: MessageBatch<unknown>): Promise<void> {
    if (batch.queue === "media-variants") {
      // No resizing backend is bound (local or production): the original is the one variant, and the
      // asset becomes ready. A resizer (Cloudflare Images) would write its variants here.
      for (const m of batch.messages) {
        const body = m.body as { media_id?: string; site_id?: string };
        if (!body.media_id || !body.site_id) continue;
        const row = await getMedia(this.env.DB, body.site_id, body.media_id);
        if (!row) continue;
        await markVariantsReady(this.env.DB, row.id, [
          { name: "original", url: `${this.env.MEDIA_PUBLIC_BASE}/${row.r2_key}` },
        ]);
      }
      batch.ackAll();
      return;
    }
    if (batch.queue === "content-events" && this.env.DEV_OUTBOX === "true") {
      // Development record of delivered events (production consumers live downstream of this queue).
      const statements = batch.messages.map((m) => {
        const body = m.body as { type?: string; site_id?: string; post_id?: string };
        return this.env.DB.prepare(
          "INSERT INTO outbound_effects (id, kind, site_id, subject_id, payload_json, created_at) VALUES (?, ?, ?, ?, ?, ?)",
        ).bind(
          newId(),
          `event:${body.type ?? "unknown"}`,
          body.site_id ?? "",
          body.post_id ?? null,
          JSON.stringify(m.body),
          new Date().toISOString(),
        );
      });
      if (statements.length > 0) await this.env.DB.batch(statements);
    }
    batch.ackAll();
  }

  override async scheduled(): Promise<void> {
    const now = Date.now();
    await purgeExpiredIdempotency(this.env.DB, new Date(now).toISOString());
    // Effects whose delivery failed right after their change (older than 5 minutes: not in flight).
    await redeliverPendingEffects(this.env, new Date(now - 5 * 60_000).toISOString());
  }
}

export { ApiKeyGate } from "./api-key-gate";
