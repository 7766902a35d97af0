/**
 * API key administration by site staff: create (the key is shown once; only its peppered hash is
 * stored), list, revoke. The caller is authorized before any of these runs.
 */
import { newId, parseId } from "../../lib/ids";
import type { SiteProjection } from "../../lib/rpc";
import type { Env } from "../core/bindings";
import { fail } from "../errors";
import { keyContexts } from "./key-cache";
import { generateApiKey, hashApiKey, type KeyKind } from "./key-hash";
import { PUBLIC_KEY_SCOPES, type Scope } from "./scopes";
import { type ApiKeyRecord, insertApiKey, listActiveApiKeys, revokeApiKey } from "./store";

/** The body of a key creation, as its schema parses it. */
export interface NewApiKey {
  name: string;
  scopes: Scope[];
  kind: KeyKind;
  allowed_origins?: string[];
  /** Display name of the creator's byline on posts this key writes; default: the key's name. */
  author_name?: string;
}

/** An exact origin: scheme, host and optional port, nothing else (no path, query, fragment or wildcard). */
export function normalizeOrigin(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  // No wildcards or other odd host characters: the allowlist compares exact origins.
  if (!/^(?:[a-z0-9-]+\.)*[a-z0-9-]+$|^\[[0-9a-f:.]+\]$/.test(url.hostname)) return null;
  if (url.origin !== value.replace(/\/$/, "")) return null;
  return url.origin;
}

/**
 * The origin allowlist of a new key: a public key needs exact origins and carries only read scopes (it
 * lives in browsers); a secret key has no allowlist.
 */
export function allowedOrigins(kind: KeyKind, origins: string[] | undefined, scopes: Scope[]): string[] {
  if (kind === "secret") {
    if (origins && origins.length > 0) fail("BAD_REQUEST", "allowed_origins applies to public keys only.");
    return [];
  }
  if (!origins || origins.length === 0) {
    fail("ALLOWED_ORIGINS_REQUIRED", "A public key needs a non-empty allowed_origins list of exact origins.");
  }
  const invalid = origins.filter((o) => normalizeOrigin(o) === null);
  if (invalid.length > 0) {
    fail("INVALID_ORIGIN", {
      detail: "allowed_origins entries must be exact origins like https://example.com (no path or wildcard).",
      details: { invalid },
    });
  }
  const forbidden = scopes.filter((s) => !PUBLIC_KEY_SCOPES.includes(s));
  if (forbidden.length > 0) {
    fail("SCOPE_NOT_ALLOWED", {
      detail: `A public key carries only read scopes (${PUBLIC_KEY_SCOPES.join(", ")}).`,
      details: { forbidden },
    });
  }
  return [...new Set(origins.map((o) => normalizeOrigin(o)!))];
}

/** Creates a key of `site` for staff user `userId`; the answer is the only place the key ever appears. */
export async function createApiKey(env: Env, site: SiteProjection, userId: string, input: NewApiKey) {
  const scopes = [...new Set(input.scopes)];
  const origins = allowedOrigins(input.kind, input.allowed_origins, scopes);
  const key = generateApiKey(input.kind);
  const record: ApiKeyRecord = {
    id: newId(),
    site_id: site.id,
    name: input.name,
    kind: input.kind,
    key_prefix: key.slice(0, 10),
    scopes,
    allowed_origins: origins,
    created_by: userId,
    author_name: input.author_name ?? input.name,
    created_at: new Date().toISOString(),
  };
  await insertApiKey(env.DB, { ...record, key_hash: await hashApiKey(env.API_KEY_PEPPER, key) });
  return {
    id: record.id,
    key,
    kind: record.kind,
    name: record.name,
    scopes: record.scopes,
    allowed_origins: record.allowed_origins,
    author: { display_name: record.author_name! },
    created_at: record.created_at,
  };
}

/** The site's unrevoked keys (carried-over ones marked), newest first, never the key itself. */
export async function listApiKeys(db: D1Database, siteId: string, id?: string) {
  const keys = await listActiveApiKeys(db, siteId, id);
  return keys.map((key) => ({
    id: key.id,
    kind: key.kind,
    name: key.name,
    key_prefix: key.key_prefix,
    scopes: key.scopes,
    allowed_origins: key.allowed_origins,
    created_by: key.created_by,
    created_at: key.created_at,
    carried_over: key.carried_over,
  }));
}

/** Revokes key `keyId` of the site at once; an id that is no id, or another site's key, is 404. */
export async function revokeSiteApiKey(db: D1Database, siteId: string, keyId: string, userId: string) {
  const id = parseId(keyId);
  const revoked = id !== null && (await revokeApiKey(db, siteId, id, userId, new Date().toISOString()));
  if (id === null || !revoked) fail("NOT_FOUND", "No such API key.");
  // Refused at once in this isolate; other isolates drop their cached copy within KEY_CONTEXT_TTL_MS.
  keyContexts.forgetKey(id);
}
