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
  SiteMoveRollback,
  SiteMoveStart,
  SiteProjection,
  StalledConvergence,
} from "../lib/rpc";
import { utcDay } from "./analytics/window";
import { consumeAccountDeleted, isAccountDeleted } from "./authors/account-deleted";
import { app } from "./core/app";
import type { Env, WorkerEnv } from "./core/bindings";
import { clockNow } from "./core/clock";
import { redeliverPendingEffects } from "./core/effects/pending";
import { recordOutboundEffects } from "./core/effects/store";
import { forEachGroup, onGroup, placeSite } from "./core/groups";
import { purgeExpiredIdempotency } from "./core/idempotency-store";
import { servePublic } from "./core/public-edge";
import { contentServices } from "./core/services";
import { contentGroupCounts, rollBackSiteMove, siteMoveProgress, startSiteMove } from "./groups/moves";
import { keyContexts } from "./keys/key-cache";
import { endMemberGrants } from "./keys/member-grants";
import { ingestImage } from "./media/ingest-service";
import { consumeMediaVariants } from "./media/variants";
import { publishDuePosts } from "./posts/publication";
import { PREVIEW_LINK_KEPT_MS, purgeExpiredPreviews } from "./preview/store";
import { HEALTH_FACTS_MAX_SITES, siteHealthFacts } from "./site/health-store";
import { legalPages, upsertLegalPage } from "./site/legal-pages";
import { definePostType, type PostTypeDefinition, removePostType } from "./site/post-types";
import { answersAcrossGroups, bySiteGroup, onEachGroupOf } from "./site/routing";
import { upsertSite } from "./site/store";
import { consumeSiteTransferred, stalledSitesOfAllGroups } from "./transfers/site-transfer";
import { SITE_INTEGRATIONS_MAX_SITES, siteIntegrationCounts } from "./transfers/store";
import { deliverContentEvents, settleDeadLetters } from "./webhooks/delivery";
import { isContentEvent } from "./webhooks/events";
import { purgeSettledDeliveries } from "./webhooks/store";

/** The site a queue message is about (every message of content's queues carries `site_id`), or null. */
function messageSite(message: Message<unknown>): string | null {
  const body = message.body as { site_id?: unknown } | null;
  return typeof body === "object" && body !== null && typeof body.site_id === "string" && body.site_id !== ""
    ? body.site_id
    : null;
}

/** The development record of the events that reached the queue (webhook delivery messages are not events). */
async function recordDevEvents(env: Env, messages: readonly Message<unknown>[]): Promise<void> {
  const records = messages
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

/** One group's share of a batch (`Env` routed to the group): the consumer of `queue`. */
async function consumeOnGroup(
  env: Env,
  queue: string,
  messages: Message<unknown>[],
  log: Logger,
): Promise<void> {
  if (queue === "media-variants") await consumeMediaVariants(env, { messages }, log);
  else if (queue === "site-transferred") await consumeSiteTransferred(env, { queue, messages }, log);
  else if (queue === "content-events-dlq") await settleDeadLetters(env, log, { messages });
  else if (queue === "content-events") {
    if (env.DEV_OUTBOX === "true") await recordDevEvents(env, messages);
    // Each message is acked or retried on its own (webhook attempts carry their own backoff).
    await deliverContentEvents(env, contentServices(env, log), { messages });
  } else for (const m of messages) m.ack();
}

/**
 * The queue consumers: `media-variants`, `site-transferred` (and identity's `account.deleted` on it),
 * `content-events` (webhook fan-out and deliveries, and in development a record of each event) and its
 * dead-letter queue. Every message is about one site (`site_id`): the batch is split by the sites' groups
 * and each group's share consumed once (docs/decisions/site-groups.md, "Queues"). A message whose site the
 * directory does not know is about nothing content holds: acked (a site's rows exist only once it is placed).
 * `account.deleted` is about a person, on any site: it visits every group.
 */
async function consumeQueue(env: WorkerEnv, batch: MessageBatch<unknown>, log: Logger): Promise<void> {
  let messages: readonly Message<unknown>[] = batch.messages;
  if (batch.queue === "site-transferred") {
    // Identity's one queue to content also carries `account.deleted` (issue 24).
    await consumeAccountDeleted(env, messages.filter(isAccountDeleted), log);
    messages = messages.filter((m) => !isAccountDeleted(m));
  }
  const { groups, unrouted } = await bySiteGroup(env, messages, messageSite);
  for (const message of unrouted) {
    const site_id = messageSite(message);
    // A malformed message never becomes valid; a site content never met has nothing here to change.
    if (site_id === null)
      log.error("queue_message_malformed", { queue: batch.queue, message_id: message.id });
    else log.info("queue_message_site_unknown", { queue: batch.queue, message_id: message.id, site_id });
    message.ack();
  }
  await onEachGroupOf(env, groups, (groupEnv, share) => consumeOnGroup(groupEnv, batch.queue, share, log));
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

/** The counts of one group's cron pass (summed over the groups for the log line). */
interface CronCounts {
  published: number;
  redelivered: number;
  analytics_visitor_rows_purged: number;
  analytics_salts_purged: number;
}

/** One group's cron pass: due posts published; the hourly run also purges, and redelivers failed effects. */
async function cronPass(env: Env, log: Logger, now: number, publishOnly: boolean): Promise<CronCounts> {
  const services = contentServices(env, log);
  // Every minute: scheduled posts that came due are stored as published and announced once.
  const published = await publishDuePosts(env, services, new Date(now).toISOString());
  if (publishOnly)
    return { published, redelivered: 0, analytics_visitor_rows_purged: 0, analytics_salts_purged: 0 };
  await purgeSettledDeliveries(env.DB, new Date(now - DELIVERY_LOG_DAYS * 86_400_000).toISOString());
  await purgeExpiredIdempotency(env.DB, new Date(now).toISOString());
  await purgeExpiredPreviews(env.DB, new Date(now - PREVIEW_LINK_KEPT_MS).toISOString());
  // Analytics retention: visitor ids and salts live only for their UTC day; the rollups stay.
  const analytics = await services.analytics.purgeRawBefore(utcDay(new Date(now)));
  // Effects whose delivery failed right after their change (older than 5 minutes: not in flight).
  const redelivered = await redeliverPendingEffects(env, services, now);
  return {
    published,
    redelivered,
    analytics_visitor_rows_purged: analytics.visitors,
    analytics_salts_purged: analytics.salts,
  };
}

/** The RPC calls' logger. */
const rpcLog = () => callLogger("content");

export default class ContentService extends WorkerEntrypoint<WorkerEnv> implements ContentRpc {
  /**
   * `/v1/*` and `/media/*` reach this Worker straight from the public origin's routes (core/public-edge.ts).
   * The app routes each request to its site's group itself (core/routing.ts).
   */
  override fetch(request: Request): Promise<Response> {
    const dev = devCron(request, this.env, (c) => this.scheduled(c));
    if (dev) return dev;
    return servePublic(request, (admitted) => Promise.resolve(app.fetch(admitted, this.env, this.ctx)));
  }

  /**
   * Sites pushes every change of a site; the first push places it in a group (the one holding the fewest
   * sites), a later one keeps its group and updates its slug in the directory (feeds and sitemaps find sites
   * by slug). `deleted`/`archived` make the site's keys stop working: at once in this isolate, within the
   * key-context TTL in others (src/content/keys/key-cache.ts).
   */
  async syncSite(site: SiteProjection): Promise<void> {
    const route = await placeSite(this.env, { id: site.id, slug: site.slug });
    await upsertSite(onGroup(this.env, route.group).DB, site, new Date().toISOString());
    keyContexts.forgetSite(site.id);
  }

  ingestImage(input: { site_id: string; url: string; purpose: string }): Promise<ImageIngestResult> {
    return ingestImage(this.env, rpcLog(), input);
  }

  /** Declares (or updates) a post type of a site; private types are never listed publicly. */
  definePostType(input: PostTypeDefinition): Promise<PostTypeResult> {
    return forgettingSite(input.site_id, definePostType(this.env, input));
  }

  /** Sites whose content is still stamped for an older organization well after a transfer (health sweep). */
  stalledConvergence(): Promise<StalledConvergence[]> {
    return stalledSitesOfAllGroups(this.env, Date.now());
  }

  /** The sites health sweep's content facts (published content, legal pages) of up to 100 sites, in their order. */
  async healthFacts(site_ids: string[]): Promise<SiteHealthFacts[]> {
    const ids = [...new Set(site_ids.filter((id) => typeof id === "string"))].slice(
      0,
      HEALTH_FACTS_MAX_SITES,
    );
    const now = new Date().toISOString();
    const facts = await answersAcrossGroups(this.env, ids, (env, group) =>
      siteHealthFacts(env.DB, group, now),
    );
    // A site the directory does not know has nothing: published nothing, no legal page.
    return ids.map((id) => facts.get(id) ?? { site_id: id, has_published: false, has_legal_pages: false });
  }

  /** A transfer offer's integrations to end (identity, through sites): live keys and webhooks per site, in order. */
  async siteIntegrations(site_ids: string[]): Promise<SiteIntegrations[]> {
    const ids = [...new Set(site_ids.filter((id) => typeof id === "string"))].slice(
      0,
      SITE_INTEGRATIONS_MAX_SITES,
    );
    const counts = await answersAcrossGroups(this.env, ids, (env, group) =>
      siteIntegrationCounts(env.DB, group),
    );
    return site_ids.map((id) => counts.get(id) ?? { site_id: id, api_keys: 0, webhooks: 0 });
  }

  /** A person's grant on a site ended (identity, through sites): their keys revoked, their webhooks deleted. */
  endMemberGrants(input: MemberGrantEnding): Promise<EndedIntegrations> {
    return endMemberGrants(this.env, input, rpcLog());
  }

  /** Disables a post type (its applet uninstalled); its posts are kept. */
  removePostType(input: { site_id: string; slug: string }): Promise<PostTypeRemoval> {
    return forgettingSite(input.site_id, removePostType(this.env, input));
  }

  /** Sites' legal page generator: one document written as a page (refusals as data). */
  upsertLegalPage(input: LegalPageWrite): Promise<LegalPageResult> {
    return forgettingSite(input.site_id, upsertLegalPage(this.env, rpcLog(), input));
  }

  /** The site's legal pages that exist, for the legal index. */
  legalPages(input: { site_id: string }): Promise<LegalPage[]> {
    return legalPages(this.env, input.site_id);
  }

  /** Starts moving a site to another group (the operator's route, through sites): src/content/groups/. */
  startSiteMove(input: { site_id: string; to: string; requested_by: string | null }): Promise<SiteMoveStart> {
    return startSiteMove(this.env, input);
  }

  /** The site's latest move, or null. */
  siteMove(input: { site_id: string }): Promise<SiteMoveProgress | null> {
    return siteMoveProgress(this.env, input.site_id);
  }

  /** The operator rolls a site's move back (until its switch); refusals as data. */
  rollBackSiteMove(input: { site_id: string }): Promise<SiteMoveRollback> {
    return rollBackSiteMove(this.env, input.site_id);
  }

  /** Each configured group with its number of sites. */
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

  /**
   * The crons: each group's pass (`forEachGroup`, at most 4 groups at a time); the log line sums the groups'
   * counts. A group whose pass fails does not stop the others; the run then fails (logged, thrown).
   */
  override async scheduled(controller?: ScheduledController): Promise<void> {
    const log = runLogger("content", controller?.cron);
    const now = clockNow();
    const publishOnly = controller?.cron === PUBLISH_CRON;
    const passes = await forEachGroup(this.env, (env, group) =>
      cronPass(env, log, now, publishOnly).then(
        (counts) => ({ group, counts, error: null }),
        (error: unknown) => ({ group, counts: null, error }),
      ),
    );
    const total: CronCounts = {
      published: 0,
      redelivered: 0,
      analytics_visitor_rows_purged: 0,
      analytics_salts_purged: 0,
    };
    for (const pass of passes) {
      if (!pass.counts) continue;
      for (const k of Object.keys(total) as (keyof CronCounts)[]) total[k] += pass.counts[k];
    }
    const failed = passes.filter((p) => p.error !== null);
    if (failed.length > 0) {
      for (const p of failed) log.error("cron_failed", { group: p.group, ...errorFields(p.error) });
      throw failed[0]?.error;
    }
    log.info("cron_done", publishOnly ? { published: total.published } : { ...total });
  }
}

// RPC methods, queue batches and cron runs in a trace, measured (src/lib/metrics.ts).
instrumentEntrypoint(ContentService, "content");

export { SiteMover } from "./groups/mover-do";
export { ApiKeyGate } from "./keys/gate";
