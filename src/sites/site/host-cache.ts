/**
 * KV cache of `GET /v1/sites/by-host`: host -> public site (or a remembered miss). Every write to a site
 * deletes the keys of all its hosts, before and after the change, so an edit shows at once where KV is
 * consistent and within KV's propagation (about 60 s) elsewhere; the TTLs bound any leftover.
 */
import type { Logger } from "../../lib/log";
import type { PublicSite } from "./record";

const HIT_TTL_SECONDS = 300;
/** Short: a host that starts pointing at a new site must not stay "unknown" for long. */
const MISS_TTL_SECONDS = 60;

export type HostCacheEntry = { site: PublicSite } | { site: null };

/** The host -> site cache, as `Services.hostCache`. */
export interface HostCache {
  read(host: string): Promise<HostCacheEntry | null>;
  write(host: string, site: PublicSite | null): Promise<void>;
  /** Best effort: a failure is logged, never thrown (the TTL bounds staleness). */
  invalidate(hosts: Iterable<string>): Promise<void>;
}

export function kvHostCache(kv: KVNamespace, log: Logger): HostCache {
  return {
    read: (host) => readHostCache(kv, host),
    write: (host, site) => writeHostCache(kv, host, site),
    invalidate: (hosts) => invalidateHosts(kv, hosts, log),
  };
}

function key(host: string) {
  return `host:${host}`;
}

async function readHostCache(kv: KVNamespace, host: string): Promise<HostCacheEntry | null> {
  return kv.get<HostCacheEntry>(key(host), "json");
}

async function writeHostCache(kv: KVNamespace, host: string, site: PublicSite | null): Promise<void> {
  await kv.put(key(host), JSON.stringify({ site } satisfies HostCacheEntry), {
    expirationTtl: site ? HIT_TTL_SECONDS : MISS_TTL_SECONDS,
  });
}

async function invalidateHosts(kv: KVNamespace, hosts: Iterable<string>, log: Logger): Promise<void> {
  const unique = [...new Set(hosts)];
  try {
    await Promise.all(unique.map((host) => kv.delete(key(host))));
  } catch (err) {
    // Best effort: the TTL bounds staleness; the write itself already succeeded.
    log.warn("host_cache_invalidate_failed", { error: String(err) });
  }
}
