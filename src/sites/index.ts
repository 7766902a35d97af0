import { WorkerEntrypoint } from "cloudflare:workers";
import { createServiceApp, registerProblemSchema, serveApiDocs } from "../lib/app";
import { devCron } from "../lib/dev-cron";
import { parseId } from "../lib/ids";
import { batchLogger, callLogger, errorFields } from "../lib/log";
import { instrumentEntrypoint } from "../lib/metrics";
import { ApiError } from "../lib/problem";
import type {
  EndedIntegrations,
  MemberGrantEnding,
  MemberSite,
  SiteIntegrations,
  SiteSettingsMerge,
  SiteSettingsWriteResult,
  SitesRpc,
  StoredSiteSettings,
} from "../lib/rpc";
import { isSettingsWriteCode } from "../lib/settings-codes";
import { registerAppletRoutes } from "./applets/routes";
import type { SitesAppEnv } from "./core/app-env";
import { runCron } from "./core/cron";
import { registerSitesSecurity, SITES_DOCUMENT_RULES } from "./core/openapi";
import { sitesServices } from "./core/services";
import { canonicalHost } from "./health/domains";
import { provedHostsOfSites } from "./health/domains-store";
import { registerDomainRoutes } from "./health/routes";
import { registerLegalRoutes } from "./legal/routes";
import { registerPlatformSiteRoutes } from "./operator/sites-routes";
import { registerPlatformThemeRoutes } from "./operator/themes-routes";
import { registerProbeRoutes } from "./probes/routes";
import { consumeImageSwap } from "./site/image-rehost";
import { registerSiteListRoute } from "./site/listing-routes";
import { listCallerSites } from "./site/listing-store";
import { hostsOf, readSettings } from "./site/record";
import { registerSiteRoutes } from "./site/routes";
import { invalidateSiteCaches } from "./site/service";
import { mergeSiteSettings } from "./site/settings-merge";
import {
  getSite,
  getVisibleSite,
  getVisibleSites,
  HIDDEN_STATUSES,
  shareSite,
  transferSite,
} from "./site/store";
import { consumeSiteSync, pushSiteToContent } from "./site/sync";
import { registerThemeRoutes } from "./themes/routes";

type Env = SitesEnv;

const app = createServiceApp<SitesAppEnv>("sites");
registerProblemSchema(app);
registerSitesSecurity(app);
app.use("*", async (c, next) => {
  c.set("services", sitesServices(c.env, c.get("log")));
  await next();
});
registerProbeRoutes(app);
registerSiteListRoute(app);
registerSiteRoutes(app);
registerAppletRoutes(app);
registerPlatformSiteRoutes(app);
registerThemeRoutes(app);
registerPlatformThemeRoutes(app);
registerDomainRoutes(app);
registerLegalRoutes(app);
serveApiDocs(
  app,
  {
    title: "Sites",
    version: "0.1.0",
    description:
      "Sites service: site registry, settings, applets, themes, legal pages, site health and DNS, domain ownership proof and the platform operator console (the Sites and Organizations spec 0.1.0, all 26 operations).",
  },
  SITES_DOCUMENT_RULES,
);

/** Queue consumers of this worker, by queue name. */
export async function handleQueue(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const log = batchLogger("sites", batch);
  const services = sitesServices(env, log);
  try {
    if (batch.queue === "site-sync") await consumeSiteSync(env, services, batch);
    else if (batch.queue === "image-swap") {
      await consumeImageSwap(
        env,
        services,
        batch,
        (row) => hostsOf(row, env.PLATFORM_DOMAIN),
        (row) => invalidateSiteCaches(services, row.id, hostsOf(row, env.PLATFORM_DOMAIN), "image_swapped"),
      );
    } else {
      log.warn("unknown_queue");
      batch.ackAll();
    }
  } catch (err) {
    log.error("queue_batch_failed", errorFields(err));
    throw err;
  }
  log.info("queue_batch_done");
}

export default class SitesService extends WorkerEntrypoint<Env> implements SitesRpc {
  override fetch(request: Request): Promise<Response> {
    return (
      devCron(request, this.env, (c) => this.scheduled(c)) ??
      Promise.resolve(app.fetch(request, this.env, this.ctx))
    );
  }

  override queue(batch: MessageBatch<unknown>): Promise<void> {
    return handleQueue(batch, this.env);
  }

  override scheduled(controller: ScheduledController): Promise<void> {
    return runCron(this.env, controller.cron);
  }

  /** Identity's transfer offers: content's keys and webhooks of the sites (relayed, sites counts nothing). */
  siteIntegrations(site_ids: string[]): Promise<SiteIntegrations[]> {
    return sitesServices(this.env, callLogger("sites")).content.siteIntegrations(site_ids.slice(0, 100));
  }

  /** Identity's ended member grants: content ends the person's keys and webhooks (relayed, sites keeps nothing). */
  endMemberGrants(input: MemberGrantEnding): Promise<EndedIntegrations> {
    return sitesServices(this.env, callLogger("sites")).content.endMemberGrants(input);
  }

  async siteOrg(site_id: string): Promise<{ org_id: string; status: string } | null> {
    const id = parseId(site_id);
    if (!id) return null;
    const row = await getSite(this.env.DB, id);
    if (!row || (HIDDEN_STATUSES as readonly string[]).includes(row.status)) return null;
    return { org_id: row.org_id, status: row.status };
  }

  /** Identity's account deletion and export (issue 24): the names of up to 100 visible sites, unknown ones left out. */
  async siteNames(site_ids: string[]): Promise<{ id: string; name: string }[]> {
    const ids = (Array.isArray(site_ids) ? site_ids : []).slice(0, 100).filter((id) => parseId(id) !== null);
    if (ids.length === 0) return [];
    return (await getVisibleSites(this.env.DB, ids)).map((row) => ({ id: row.id, name: row.name }));
  }

  /** Identity's OAuth consent (issue 37): live sites of these organizations or ids (shares left out), by name. */
  async memberSites(input: { org_ids: string[]; site_ids: string[] }): Promise<MemberSite[]> {
    const ids = (list: unknown) =>
      (Array.isArray(list) ? list : [])
        .slice(0, 200)
        .map((id) => parseId(String(id)))
        .filter((id): id is string => id !== null);
    const orgIds = ids(input?.org_ids);
    const siteIds = ids(input?.site_ids);
    if (orgIds.length === 0 && siteIds.length === 0) return [];
    const rows = (
      await listCallerSites(this.env.DB, {
        orgIds,
        siteIds,
        statuses: ["active", "inactive"],
        orgId: null,
        q: null,
        afterKey: null,
        limit: 200,
      })
    ).filter((row) => orgIds.includes(row.org_id) || siteIds.includes(row.id));
    const proved = await provedHostsOfSites(
      this.env.DB,
      rows.map((row) => row.id),
    );
    return rows
      .map((row) => ({
        id: row.id,
        org_id: row.org_id,
        name: row.name,
        host: canonicalHost(row, this.env.PLATFORM_DOMAIN, proved.get(row.id) ?? new Set()),
      }))
      .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  }

  /** The stored settings of a live site (content's `GET /v1/site/settings` and `/v1/site/seo`). */
  async siteSettings(site_id: string): Promise<StoredSiteSettings | null> {
    const id = parseId(site_id);
    const row = id ? await getVisibleSite(this.env.DB, id) : null;
    return row ? readSettings(row.settings) : null;
  }

  /** Content's settings and SEO writes: a refusal is answered as data with the PATCH's code and status. */
  async mergeSiteSettings(input: SiteSettingsMerge): Promise<SiteSettingsWriteResult> {
    const services = sitesServices(this.env, callLogger("sites"));
    try {
      return { ok: true, settings: await mergeSiteSettings(this.env, services, input) };
    } catch (err) {
      if (err instanceof ApiError && err.code === "FORBIDDEN") {
        return { ok: false, code: "FORBIDDEN", status: 403, detail: err.detail ?? err.code };
      }
      if (!(err instanceof ApiError) || !isSettingsWriteCode(err.code)) throw err;
      const invalid = err.extensions?.invalid_images;
      return {
        ok: false,
        code: err.code,
        status: err.status,
        detail: err.detail ?? err.code,
        ...(err.details ? { details: err.details } : {}),
        ...(Array.isArray(invalid) ? { invalid_images: invalid } : {}),
      };
    }
  }

  async applyTransfer(input: Parameters<SitesRpc["applyTransfer"]>[0]): Promise<{ ok: boolean }> {
    const siteId = parseId(input.site_id);
    const from = parseId(input.from_org_id);
    const to = parseId(input.to_org_id);
    if (!siteId || !from || !to || from === to) return { ok: false };
    const before = await getSite(this.env.DB, siteId);
    if (!before || (HIDDEN_STATUSES as readonly string[]).includes(before.status)) return { ok: false };
    const at = new Date().toISOString();
    let ok: boolean;
    if (input.mode === "transfer") {
      // Idempotent: a redelivered acceptance finds the site already with the destination.
      ok =
        before.org_id === to ||
        (await transferSite(this.env.DB, { site_id: siteId, from_org_id: from, to_org_id: to }, at));
    } else {
      ok = await shareSite(
        this.env.DB,
        { site_id: siteId, from_org_id: from, to_org_id: to, role: input.share_role ?? "site_editor" },
        at,
      );
    }
    if (!ok) return { ok: false };
    const after = await getSite(this.env.DB, siteId);
    if (after) {
      const services = sitesServices(this.env, callLogger("sites"));
      await invalidateSiteCaches(
        services,
        after.id,
        hostsOf(after, this.env.PLATFORM_DOMAIN),
        "site_transferred",
      );
      await pushSiteToContent(this.env, services, after);
    }
    return { ok: true };
  }
}

// RPC methods, queue batches and cron runs in a trace, measured (src/lib/metrics.ts).
instrumentEntrypoint(SitesService, "sites");
