/** The real adapters of sites' outbound effects, built from env (see `Services`). */
import type { Logger } from "../../lib/log";
import { type ContentRpc, rpc } from "../../lib/rpc";
import { kvHealthCache } from "../health/cache";
import { dohDnsResolver } from "../health/dns";
import { kvHostCache } from "../site/host-cache";
import type { Services } from "./app-env";
import { outboxPageCache, pagePurger } from "./page-cache";

export function sitesServices(env: SitesEnv, log: Logger): Services {
  return {
    content: rpc<ContentRpc>(env.CONTENT),
    hostCache: kvHostCache(env.CACHE, log),
    pageCache: outboxPageCache(env.DB, pagePurger(env), log),
    dns: dohDnsResolver(env.DOH_URL),
    health: env.HEALTH_CACHE ? kvHealthCache(env.HEALTH_CACHE) : null,
    log,
  };
}
