/**
 * API key administration by site staff: create (the key is shown once; only its peppered hash is
 * stored), list, edit (name, scopes, allowed origins, server reads), revoke. The caller is authorized
 * before any of these runs (`integrations`, keys/site-staff.ts): editing costs what creating costs.
 */
import { newId, parseId } from "../../lib/ids";
import type { SiteProjection } from "../../lib/rpc";
import type { Env } from "../core/bindings";
import { recordKeySite } from "../core/groups";
import { fail } from "../errors";
import { keyContexts } from "./key-cache";
import { generateApiKey, hashApiKey, type KeyKind } from "./key-hash";
import { normalizeAllowedOrigin } from "./origins";
import { PUBLIC_KEY_SCOPES, RESERVED_SCOPES, type Scope } from "./scopes";
import {
  type ApiKeyRecord,
  type ApiKeyUpdate,
  findEditableApiKey,
  insertApiKey,
  type ListedApiKey,
  listActiveApiKeys,
  revokeApiKey,
  updateApiKey,
} from "./store";

export { normalizeOrigin } from "./origins";

/** The body of a key creation, as its schema parses it. */
export interface NewApiKey {
  name: string;
  scopes: Scope[];
  kind: KeyKind;
  allowed_origins?: string[];
  /** A public key also serves reads sent without an Origin by a server (never a browser); default false. */
  server_reads?: boolean;
  /** Display name of the creator's byline on posts this key writes; default: the key's name. */
  author_name?: string;
}

/** The body of a key edit, as its schema parses it: only what is sent changes. */
export interface ApiKeyEdit {
  name?: string;
  scopes?: Scope[];
  allowed_origins?: string[];
  server_reads?: boolean;
}

/** A note in a key's answer that does not refuse it (`warnings`). */
export interface KeyWarning {
  code: "RESERVED_SCOPE";
  path: string;
  message: string;
}

/**
 * The stored form of a public key's `allowed_origins`: exact origins and https wildcards of one leading
 * label (keys/origins.ts), each once; 400 ALLOWED_ORIGINS_REQUIRED when empty, 400 INVALID_ORIGIN listing
 * every refused entry (`details.invalid`) and, among them, the wildcards directly under a public suffix
 * (`details.public_suffix`).
 */
function publicOrigins(origins: string[] | undefined): string[] {
  if (!origins || origins.length === 0) {
    fail(
      "ALLOWED_ORIGINS_REQUIRED",
      "A public key needs a non-empty allowed_origins list of origins (exact, or https with one leading wildcard label).",
    );
  }
  const checked = origins.map((value) => ({ value, result: normalizeAllowedOrigin(value) }));
  const invalid = checked.filter((c) => "refused" in c.result).map((c) => c.value);
  if (invalid.length > 0) {
    const publicSuffix = checked
      .filter((c) => "refused" in c.result && c.result.refused === "public_suffix")
      .map((c) => c.value);
    fail("INVALID_ORIGIN", {
      detail:
        "allowed_origins entries must be origins like https://example.com (no path), or https with one leading wildcard label like https://*.my-project.pages.dev (never * alone, never over http, never directly under a public suffix such as *.pages.dev or *.co.uk).",
      details: { invalid, ...(publicSuffix.length > 0 ? { public_suffix: publicSuffix } : {}) },
    });
  }
  return [...new Set(checked.map((c) => ("origin" in c.result ? c.result.origin : "")))];
}

/** 400 SCOPE_NOT_ALLOWED unless every scope is one a public key may carry. */
function publicScopes(scopes: readonly Scope[]): void {
  const forbidden = scopes.filter((s) => !PUBLIC_KEY_SCOPES.includes(s));
  if (forbidden.length > 0) {
    fail("SCOPE_NOT_ALLOWED", {
      detail: `A public key carries only read scopes (${PUBLIC_KEY_SCOPES.join(", ")}).`,
      details: { forbidden },
    });
  }
}

/**
 * The origin allowlist of a new key: a public key needs origins and carries only read scopes (it lives in
 * browsers); a secret key has no allowlist.
 */
export function allowedOrigins(kind: KeyKind, origins: string[] | undefined, scopes: Scope[]): string[] {
  if (kind === "secret") {
    if (origins && origins.length > 0) fail("BAD_REQUEST", "allowed_origins applies to public keys only.");
    return [];
  }
  const stored = publicOrigins(origins);
  publicScopes(scopes);
  return stored;
}

/** 400 unless `server_reads: true` is asked of a public key: a secret key never has an Origin to check. */
function checkServerReads(kind: KeyKind, serverReads: boolean | undefined): void {
  if (serverReads === true && kind !== "public") {
    fail(
      "BAD_REQUEST",
      "server_reads applies to public keys only (a secret key is never checked by origin).",
    );
  }
}

/** The answer's `warnings` when every scope of the key is reserved (it can call nothing yet). */
export function scopeWarnings(scopes: readonly Scope[]): KeyWarning[] {
  if (scopes.length === 0 || !scopes.every((s) => RESERVED_SCOPES.includes(s))) return [];
  return [
    {
      code: "RESERVED_SCOPE",
      path: "scopes",
      message: `${scopes.join(", ")} is reserved: it gates no operation today, so this key can call nothing. Add the scopes of the reads it makes (posts:read, post_types:read, media:read, seo:read; site:read for a secret key's settings).`,
    },
  ];
}

const warningsMember = (warnings: KeyWarning[]) => (warnings.length > 0 ? { warnings } : {});

/** Creates a key of `site` for staff user `userId`; the answer is the only place the key ever appears. */
export async function createApiKey(env: Env, site: SiteProjection, userId: string, input: NewApiKey) {
  const scopes = [...new Set(input.scopes)];
  const origins = allowedOrigins(input.kind, input.allowed_origins, scopes);
  checkServerReads(input.kind, input.server_reads);
  const key = generateApiKey(input.kind);
  const record: ApiKeyRecord = {
    id: newId(),
    site_id: site.id,
    name: input.name,
    kind: input.kind,
    key_prefix: key.slice(0, 10),
    scopes,
    allowed_origins: origins,
    server_reads: input.server_reads === true,
    created_by: userId,
    author_name: input.author_name ?? input.name,
    created_at: new Date().toISOString(),
  };
  const keyHash = await hashApiKey(env.API_KEY_PEPPER, key);
  // The directory's row first (issue 38): a lone one is inert (its hash finds no key in the group), a key
  // row without one would be a key no request could find.
  await recordKeySite(env, keyHash, site.id);
  await insertApiKey(env.DB, { ...record, key_hash: keyHash });
  return {
    id: record.id,
    key,
    kind: record.kind,
    name: record.name,
    scopes: record.scopes,
    allowed_origins: record.allowed_origins,
    server_reads: record.server_reads,
    author: { display_name: record.author_name! },
    created_at: record.created_at,
    ...warningsMember(scopeWarnings(record.scopes)),
  };
}

/** A key as its administrators see it: never the key itself. */
function summary(key: ListedApiKey) {
  return {
    id: key.id,
    kind: key.kind,
    name: key.name,
    key_prefix: key.key_prefix,
    scopes: key.scopes,
    allowed_origins: key.allowed_origins,
    server_reads: key.server_reads,
    created_by: key.created_by,
    created_at: key.created_at,
    last_widened: key.last_widened,
    carried_over: key.carried_over,
  };
}

/** The site's unrevoked keys (carried-over ones marked), newest first, never the key itself. */
export async function listApiKeys(db: D1Database, siteId: string, id?: string) {
  const keys = await listActiveApiKeys(db, siteId, id);
  return keys.map(summary);
}

/**
 * Edits key `keyId` of the site for staff user `userId`: what the body sends changes, in one statement
 * that also records a widening (a scope, an origin or server reads the key did not have) on the key, as
 * its creation is recorded: who, when, what was added (`last_widened`). An id that is no id, another
 * site's key, a revoked or a carried-over (suspended) one is 404. The edit holds in this isolate at once;
 * writes, lead reads and exports read the key fresh everywhere; other isolates' cached reads follow
 * within `KEY_CONTEXT_TTL_MS`, the revocation bound.
 */
export async function editApiKey(
  db: D1Database,
  siteId: string,
  keyId: string,
  userId: string,
  edit: ApiKeyEdit,
) {
  if (Object.values(edit).every((value) => value === undefined)) {
    fail("BAD_REQUEST", "Send at least one of name, scopes, allowed_origins, server_reads.");
  }
  const id = parseId(keyId);
  const current = id === null ? null : await findEditableApiKey(db, siteId, id);
  if (id === null || current === null) fail("NOT_FOUND", "No such API key.");
  // The kind never changes, so checking the edit against the kind read here cannot race another edit.
  const update: ApiKeyUpdate = {};
  if (edit.name !== undefined) update.name = edit.name;
  if (edit.scopes !== undefined) {
    update.scopes = [...new Set(edit.scopes)];
    if (current.kind === "public") publicScopes(update.scopes);
  }
  if (edit.allowed_origins !== undefined) {
    if (current.kind === "secret") {
      if (edit.allowed_origins.length > 0)
        fail("BAD_REQUEST", "allowed_origins applies to public keys only.");
    } else update.allowed_origins = publicOrigins(edit.allowed_origins);
  }
  checkServerReads(current.kind, edit.server_reads);
  if (edit.server_reads !== undefined && current.kind === "public") update.server_reads = edit.server_reads;
  const updated = await updateApiKey(db, siteId, id, update, userId, new Date().toISOString());
  // Revoked or carried over between the read and the write: gone, as any other id.
  if (!updated) fail("NOT_FOUND", "No such API key.");
  // Narrowed at once in this isolate, as a revocation is (`forgetKey`); widened too.
  keyContexts.forgetKey(id);
  return { ...summary(updated), ...warningsMember(scopeWarnings(updated.scopes)) };
}

/** Revokes key `keyId` of the site at once; an id that is no id, or another site's key, is 404. */
export async function revokeSiteApiKey(db: D1Database, siteId: string, keyId: string, userId: string) {
  const id = parseId(keyId);
  const revoked = id !== null && (await revokeApiKey(db, siteId, id, userId, new Date().toISOString()));
  if (id === null || !revoked) fail("NOT_FOUND", "No such API key.");
  // Refused at once in this isolate; other isolates drop their cached copy within KEY_CONTEXT_TTL_MS.
  keyContexts.forgetKey(id);
}
