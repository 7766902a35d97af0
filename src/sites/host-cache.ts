/**
 * KV cache of `GET /v1/sites/by-host`: host -> public site (or a remembered miss). Every write to a site
 * deletes the keys of all its hosts, before and after the change, so an edit shows at once where KV is
 * consistent and within KV's propagation (about 60 s) elsewhere; the TTLs bound any leftover.
 */
import type { PublicSite } from "./site-record";

const HIT_TTL_SECONDS = 300;
/** Short: a host that starts pointing at a new site must not stay "unknown" for long. */
const MISS_TTL_SECONDS = 60;

type Entry = { site: PublicSite } | { site: null };

function key(host: string) {
  return `host:${host}`;
}

export async function readHostCache(kv: KVNamespace, host: string): Promise<Entry | null> {
  return kv.get<Entry>(key(host), "json");
}

export async function writeHostCache(kv: KVNamespace, host: string, site: PublicSite | null): Promise<void> {
  await kv.put(key(host), JSON.stringify({ site } satisfies Entry), {
    expirationTtl: site ? HIT_TTL_SECONDS : MISS_TTL_SECONDS,
  });
}

export async function invalidateHosts(kv: KVNamespace, hosts: Iterable<string>): Promise<void> {
  const unique = [...new Set(hosts)];
  try {
    await Promise.all(unique.map((host) => kv.delete(key(host))));
  } catch (err) {
    // Best effort: the TTL bounds staleness; the write itself already succeeded.
    console.warn(
      JSON.stringify({ level: "warn", event: "host_cache_invalidate_failed", error: String(err) }),
    );
  }
}
