/**
 * Key contexts cached in the isolate, so a warm read spends no storage hop on its key: a small LRU keyed
 * by the key's peppered hash, each entry used for at most `KEY_CONTEXT_TTL_MS` after it was read from D1.
 *
 * Revocation: the isolate that revokes a key forgets it at once (`forgetKey`); every other isolate stops
 * using its copy within the TTL, the documented bound. Writes and lead reads never use a cached entry (see
 * `authenticateKey`), so a revoked key never writes nor reads personal data again, anywhere.
 */
import type { KeyLookupRow } from "./store";

/** The revocation bound for cached reads (docs/decisions/content.md, "Read path"). */
export const KEY_CONTEXT_TTL_MS = 30_000;
/** Entries per isolate: about 1 KiB each, so at most ~1 MiB of the isolate's 128 MiB. */
export const KEY_CONTEXT_MAX_ENTRIES = 1_000;

interface Entry {
  row: KeyLookupRow;
  readAt: number;
}

export class KeyContextCache {
  /** Insertion order is recency order: the first entry is the least recently used. */
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  /** The cached row, or null when absent or read `ttlMs` or more ago (or "in the future": a clock reset). */
  get(keyHash: string, now: number): KeyLookupRow | null {
    const entry = this.entries.get(keyHash);
    if (!entry) return null;
    this.entries.delete(keyHash);
    if (now - entry.readAt >= this.ttlMs || now < entry.readAt) return null;
    this.entries.set(keyHash, entry);
    return entry.row;
  }

  set(keyHash: string, row: KeyLookupRow, now: number): void {
    this.entries.delete(keyHash);
    this.entries.set(keyHash, { row, readAt: now });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }

  /** A revoked key: its entry goes at once. */
  forgetKey(keyId: string): void {
    for (const [hash, entry] of this.entries) if (entry.row.id === keyId) this.entries.delete(hash);
  }

  /**
   * Every key of a site: after a write to it (its content version moved) or a projection push (status,
   * URLs), the next read of any of its keys in this isolate reads the key, and so the version, afresh.
   */
  forgetSite(siteId: string): void {
    for (const [hash, entry] of this.entries) if (entry.row.site_id === siteId) this.entries.delete(hash);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}

/** This isolate's cache. */
export const keyContexts = new KeyContextCache(KEY_CONTEXT_TTL_MS, KEY_CONTEXT_MAX_ENTRIES);
