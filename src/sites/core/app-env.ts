import type { Logger } from "../../lib/log";
import type { ContentRpc } from "../../lib/rpc";
import type { HealthCache } from "../health/cache";
import type { DnsResolver } from "../health/dns";
import type { HostCache } from "../site/host-cache";
import type { SitePermission } from "../site/permissions";
import type { SiteRow } from "../site/store";
import type { PageCache } from "./page-cache";

/**
 * Outside-world adapters, handed to handlers through the Hono context (`c.get("services")`, built from
 * env per request by `sitesServices`); queue and RPC code build the same from env.
 */
export interface Services {
  /**
   * Content over its service binding: image ingest, the site projection push, the post types of applets
   * with a `post_type_template`, legal pages, the health sweep's facts, and the integrations a
   * transfer offer lists, and the integrations a person's ended grant ends (relayed for identity); the
   * operator's moves of a site's content between groups (issue 38).
   */
  content: Pick<
    ContentRpc,
    | "ingestImage"
    | "syncSite"
    | "definePostType"
    | "removePostType"
    | "stalledConvergence"
    | "healthFacts"
    | "siteIntegrations"
    | "endMemberGrants"
    | "upsertLegalPage"
    | "legalPages"
    | "startSiteMove"
    | "siteMove"
    | "rollBackSiteMove"
    | "contentGroups"
  >;
  hostCache: HostCache;
  /** The full-page cache of the site's hosts (purged on every site change, retried by the cron). */
  pageCache: PageCache;
  /** DNS over HTTPS (`DOH_URL`): the domain check, the ownership proof and the health sweep. */
  dns: DnsResolver;
  /** The health sweep's cache (`HEALTH_CACHE` KV); null when the binding is not wired. */
  health: HealthCache | null;
  /** The logger of the request, RPC call or batch the services were built for. */
  log: Logger;
}

/** Hono environment of the sites app: bindings, the services, and the site the by-id guard loaded. */
export interface SitesAppEnv {
  Bindings: SitesEnv;
  Variables: { services: Services; site?: SiteRow; sitePermissions?: Set<SitePermission> };
}
