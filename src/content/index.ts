/**
 * The content worker: the HTTP app, the RPC methods other services call over service bindings
 * (site projection, image ingest, post types), queue consumers and the cron.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { devCron } from "../lib/dev-cron";
import { batchLogger, callLogger, errorFields, type Logger, runLogger } from "../lib/log";
import { instrumentEntrypoint } from "../lib/metrics";
import type {
  ContentGroupCount,
  ContentRpc,
  EndedIntegrations,
  ImageIngestResult,
  LegalPage,
  LegalPageResult,
  LegalPageWrite,
  MemberGrantEnding,
  PostTypeRemoval,
  PostTypeResult,
  SiteHealthFacts,
  SiteIntegrations,
  SiteMoveProgress,
  SiteMoveStart,
  SiteProjection,
  StalledConvergence,
} from "../lib/rpc";
import { utcDay } from "./analytics/window";
import { consumeAccountDeleted, isAccountDeleted } from "./authors/account-deleted";
import { app } from "./core/app";
import type { Env } from "./core/bindings";
import { clockNow } from "./core/clock";
import { redeliverPendingEffects } from "./core/effects/pending";
import { recordOutboundEffects } from "./core/effects/store";
import { purgeExpiredIdempotency } from "./core/idempotency-store";
import { servePublic } from "./core/public-edge";
import { contentServices } from "./core/services";
import { contentGroupCounts, siteMoveProgress, startSiteMove } from "./groups/moves";
import { keyContexts } from "./keys/key-cache";
import { endMemberGrants } from "./keys/member-grants";
import { ingestImage } from "./media/ingest-service";
import { consumeMediaVariants } from "./media/variants";
import { publishDuePosts } from "./posts/publication";
import { PREVIEW_LINK_KEPT_MS, purgeExpiredPreviews } from "./preview/store";
import { siteHealthFacts } from "./site/health-store";
import { legalPages, upsertLegalPage } from "./site/legal-pages";
import { definePostType, type PostTypeDefinition, removePostType } from "./site/post-types";
import { upsertSite } from "./site/store";
import { consumeSiteTransferred, stalledSites } from "./transfers/site-transfer";
import { siteIntegrationCounts } from "./transfers/store";
import { deliverContentEvents, settleDeadLetters } from "./webhooks/delivery";
import { isContentEvent } from "./webhooks/events";
import { purgeSettledDeliveries } from "./webhooks/store";

/**
 * The queue consumers: `media-variants`, `site-transferred`, `content-events` (webhook fan-out and
 * deliveries, and in development a record of each event) and its dead-letter queue.
 */
async function consumeQueue(env: Env, batch: MessageBatch<unknown>, log: Logger): Promise<void> {
  if (batch.queue === "media-variants") {
    await consumeMediaVariants(env, batch, log);
    return;
  }
  if (batch.queue === "site-transferred") {
    // Identity's one queue to content also carries `account.deleted` (issue 24).
    await consumeAccountDeleted(env, batch.messages.filter(isAccountDeleted), log);
    const transfers = batch.messages.filter((m) => !isAccountDeleted(m));
    await consumeSiteTransferred(env, { queue: batch.queue, messages: transfers }, log);
    return;
  }
  if (batch.queue === "content-events-dlq") {
    await settleDeadLetters(env, log, batch);
    return;
  }
  if (batch.queue === "content-events" && env.DEV_OUTBOX === "true") {
    // Development record of the events that reached the queue (webhook delivery messages are not events).
    const records = batch.messages
      .filter((m) => isContentEvent(m.body))
      .map((m) => {
        const body = m.body as { type?: string; site_id?: string; post_id?: string };
        return {
          kind: `event:${body.type ?? "unknown"}`,
          siteId: body.site_id ?? "",
          subjectId: body.post_id ?? null,
          payload: m.body,
        };
      });
    await recordOutboundEffects(env.DB, records);
  }
  if (batch.queue === "content-events") {
    // Each message is acked or retried on its own (webhook attempts carry their own backoff).
    await deliverContentEvents(env, contentServices(env, log), batch);
    return;
  }
  batch.ackAll();
}

/**
 * An RPC write of a site's content: once done, this isolate's next read of the site reads its key (and so
 * its content version) afresh (the API's writes do the same in `requireKey`).
 */
async function forgettingSite<T>(siteId: string, write: Promise<T>): Promise<T> {
  try {
    return await write;
  } finally {
    keyContexts.forgetSite(siteId);
  }
}

/** The per-minute trigger (workers/content/wrangler.toml) publishes due posts only; the hourly one does everything. */
const PUBLISH_CRON = "* * * * *";
/** Days a settled webhook delivery stays in the delivery log. */
const DELIVERY_LOG_DAYS = 30;

export default class ContentService extends WorkerEntrypoint<Env> implements ContentRpc {
  /** `/v1/*` and `/media/*` reach this Worker straight from the public origin's routes (core/public-edge.ts). */
  override fetch(request: Request): Promise<Response> {
    const dev = devCron(request, this.env, (c) => this.scheduled(c));
    if (dev) return dev;
    return servePublic(request, (admitted) => Promise.resolve(app.fetch(admitted, this.env, this.ctx)));
  }

  /**
   * Sites pushes every change of a site; `deleted`/`archived` make the site's keys stop working: at once in
   * this isolate, within the key-context TTL in others (src/content/keys/key-cache.ts).
   */
  async syncSite(site: SiteProjection): Promise<void> {
    await upsertSite(this.env.DB, site, new Date().toISOString());
    keyContexts.forgetSite(site.id);
  }

  ingestImage(input: { site_id: string; url: string; purpose: string }): Promise<ImageIngestResult> {
    return ingestImage(this.env, contentServices(this.env, callLogger("content")), input);
  }

  /** Declares (or updates) a post type of a site; private types are never listed publicly. */
  definePostType(input: PostTypeDefinition): Promise<PostTypeResult> {
    return forgettingSite(input.site_id, definePostType(this.env.DB, input));
  }

  /** Sites whose content is still stamped for an older organization well after a transfer (health sweep). */
  stalledConvergence(): Promise<StalledConvergence[]> {
    return stalledSites(this.env, Date.now());
  }

  /** The sites health sweep's content facts (published content, legal pages) of up to 100 sites. */
  healthFacts(site_ids: string[]): Promise<SiteHealthFacts[]> {
    return siteHealthFacts(this.env.DB, site_ids, new Date().toISOString());
  }

  /** A transfer offer's integrations to end (identity, through sites): live keys and webhooks per site. */
  siteIntegrations(site_ids: string[]): Promise<SiteIntegrations[]> {
    return siteIntegrationCounts(this.env.DB, site_ids);
  }

  /** A person's grant on a site ended (identity, through sites): their keys revoked, their webhooks deleted. */
  endMemberGrants(input: MemberGrantEnding): Promise<EndedIntegrations> {
    return endMemberGrants(this.env.DB, input, callLogger("content"));
  }

  /** Disables a post type (its applet uninstalled); its posts are kept. */
  removePostType(input: { site_id: string; slug: string }): Promise<PostTypeRemoval> {
    return forgettingSite(input.site_id, removePostType(this.env.DB, input));
  }

  /** Sites' legal page generator: one document written as a page (refusals as data). */
  upsertLegalPage(input: LegalPageWrite): Promise<LegalPageResult> {
    const written = upsertLegalPage(this.env, contentServices(this.env, callLogger("content")), input);
    return forgettingSite(input.site_id, written);
  }

  /** The site's legal pages that exist, for the legal index. */
  legalPages(input: { site_id: string }): Promise<LegalPage[]> {
    return legalPages(this.env, input.site_id);
  }

  /** The operator console starts a site's move between groups (issue 38); refusals as data. */
  startSiteMove(input: { site_id: string; to: string; requested_by: string | null }): Promise<SiteMoveStart> {
    return startSiteMove(this.env, input);
  }

  /** The site's latest move, or null. */
  siteMove(input: { site_id: string }): Promise<SiteMoveProgress | null> {
    return siteMoveProgress(this.env, input.site_id);
  }

  /** Each content group with its site count. */
  contentGroups(): Promise<ContentGroupCount[]> {
    return contentGroupCounts(this.env);
  }

  override async queue(batch: MessageBatch<unknown>): Promise<void> {
    const log = batchLogger("content", batch);
    try {
      await consumeQueue(this.env, batch, log);
    } catch (err) {
      log.error("queue_batch_failed", errorFields(err));
      throw err;
    }
    log.info("queue_batch_done");
  }

  override async scheduled(controller?: ScheduledController): Promise<void> {
    const log = runLogger("content", controller?.cron);
    const now = clockNow();
    try {
      const services = contentServices(this.env, log);
      // Every minute: scheduled posts that came due are stored as published and announced once.
      const published = await publishDuePosts(this.env, services, new Date(now).toISOString());
      if (controller?.cron === PUBLISH_CRON) {
        log.info("cron_done", { published });
        return;
      }
      await purgeSettledDeliveries(this.env.DB, new Date(now - DELIVERY_LOG_DAYS * 86_400_000).toISOString());
      await purgeExpiredIdempotency(this.env.DB, new Date(now).toISOString());
      await purgeExpiredPreviews(this.env.DB, new Date(now - PREVIEW_LINK_KEPT_MS).toISOString());
      // Analytics retention: visitor ids and salts live only for their UTC day; the rollups stay.
      const analytics = await services.analytics.purgeRawBefore(utcDay(new Date(now)));
      // Effects whose delivery failed right after their change (older than 5 minutes: not in flight).
      const redelivered = await redeliverPendingEffects(this.env, services, now);
      log.info("cron_done", {
        published,
        redelivered,
        analytics_visitor_rows_purged: analytics.visitors,
        analytics_salts_purged: analytics.salts,
      });
    } catch (err) {
      log.error("cron_failed", errorFields(err));
      throw err;
    }
  }
}

// RPC methods, queue batches and cron runs in a trace, measured (src/lib/metrics.ts).
instrumentEntrypoint(ContentService, "content");

export { SiteMover } from "./groups/mover-do";
export { ApiKeyGate } from "./keys/gate";
