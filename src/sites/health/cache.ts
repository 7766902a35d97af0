/**
 * The health cache (`HEALTH_CACHE` KV, one key per site): what the hourly sweep found, the only thing
 * `GET /v1/sites/{id}/health` reads. Entries live 3 days, so a site the sweep no longer visits (deleted,
 * archived) drops out on its own; each sweep rewrites the entry of every visible site.
 */
export interface HealthIssue {
  /** Stable code (docs/decisions/sites.md, "Site health" lists them). */
  code: string;
  detail: string;
  /** The custom host the issue is about (DNS and domain issues). */
  host?: string;
  /** Facts of the issue (reason, TXT record to publish, image paths, stale counts…). */
  data?: Record<string, unknown>;
}

export interface HealthEntry {
  checked_at: string;
  issues: HealthIssue[];
  /** Checks the sweep could not run this time (their issues are absent, not cleared). */
  unchecked?: string[];
}

export interface HealthCache {
  read(siteId: string): Promise<HealthEntry | null>;
  write(siteId: string, entry: HealthEntry): Promise<void>;
  /** Adds an issue to an existing entry at once (before the next sweep); best effort, no entry: nothing. */
  addIssue(siteId: string, issue: HealthIssue): Promise<void>;
}

const TTL_SECONDS = 3 * 24 * 3600;
const key = (siteId: string) => `health:${siteId}`;

export function kvHealthCache(kv: KVNamespace): HealthCache {
  const read = (siteId: string) => kv.get<HealthEntry>(key(siteId), "json");
  const write = (siteId: string, entry: HealthEntry) =>
    kv.put(key(siteId), JSON.stringify(entry), { expirationTtl: TTL_SECONDS });
  return {
    read,
    write,
    async addIssue(siteId, issue) {
      const entry = await read(siteId);
      if (!entry) return;
      const others = entry.issues.filter((i) => !(i.code === issue.code && i.host === issue.host));
      await write(siteId, { ...entry, issues: [...others, issue] });
    },
  };
}
