/**
 * OAuth clients of MCP agents (issue 37, docs/decisions/oauth-agents.md "Clients"): the one resolution the
 * consent page and the token endpoint use (`resolveClient`), a confidential client's secret check
 * (`verifyClientSecret`), and RFC 7591 registration (`registerClient`).
 */
import { newId } from "../../lib/ids";
import type { Services } from "../core/context";
import { base64url, nowIso, randomToken, timingSafeEqual } from "../core/crypto";
import type { Env } from "../core/worker-env";
import {
  type AuthMethod,
  CLIENT_DOCUMENT_STALE_IF_ERROR_S,
  type ClientMetadata,
  checkClientMetadata,
  clientIdUrlProblem,
  fetchClientDocument,
  type GrantType,
  isDocumentClientId,
  type MetadataError,
} from "./client-metadata";
import { type ClientRow, clientById, insertRegisteredClient, saveDocumentClient } from "./clients-store";

/** A client as the consent page and the token endpoint see it, whichever way it came. */
export interface OAuthClient {
  /** The client_id: `mcp_` + ULID (registered) or the document's URL. */
  id: string;
  kind: "metadata_document" | "registered";
  /** Shown on the consent page (unverified: the client chose it). */
  name: string;
  clientUri: string | null;
  logoUri: string | null;
  /** The exact redirect URIs; a request's must equal one of them, character for character. */
  redirectUris: string[];
  authMethod: AuthMethod;
  /** base64url(SHA-256(secret)) of a confidential registered client; null otherwise. */
  secretHash: string | null;
  grantTypes: GrantType[];
  /** The key scopes the client listed (space-separated), or null: informative, never a grant. */
  scope: string | null;
}

export type ClientRefusalCode = "unknown_client" | "invalid_metadata_document" | "fetch_failed";

/** The client, or why a client_id names no usable client (`reason`: for logs and messages, never a secret). */
export type ClientResolution =
  | { ok: true; client: OAuthClient }
  | { ok: false; error: ClientRefusalCode; reason: string };

const REGISTERED_ID = /^mcp_[0-9A-HJKMNP-TV-Z]{26}$/;

/** The registration's quota per client IP, counted and checked in one step (the RateLimiter object). */
export const REGISTRATION_QUOTA = { limit: 20, windowSeconds: 3600 } as const;

const refused = (error: ClientRefusalCode, reason: string): ClientResolution => ({
  ok: false,
  error,
  reason,
});

function clientOfRow(row: ClientRow, metadata: ClientMetadata): OAuthClient {
  return {
    id: row.id,
    kind: row.kind,
    name: row.name,
    clientUri: row.client_uri,
    logoUri: row.logo_uri,
    redirectUris: metadata.redirect_uris,
    authMethod: row.token_endpoint_auth_method,
    secretHash: row.secret_hash,
    grantTypes: metadata.grant_types,
    scope: metadata.scope,
  };
}

/** A stored row read back through the same checks it passed when written (a row is never trusted blindly). */
function storedClient(row: ClientRow): { client: OAuthClient; maxAgeSeconds: number } | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(row.metadata_json);
  } catch {
    return null;
  }
  if (row.kind === "registered") {
    const checked = checkClientMetadata(parsed, "registration");
    return checked.ok ? { client: clientOfRow(row, checked.metadata), maxAgeSeconds: 0 } : null;
  }
  const cached = parsed as { document?: unknown; max_age_seconds?: unknown };
  const checked = checkClientMetadata(cached?.document, "document");
  if (!checked.ok || typeof cached.max_age_seconds !== "number") return null;
  return { client: clientOfRow(row, checked.metadata), maxAgeSeconds: cached.max_age_seconds };
}

const ageSeconds = (fetchedAt: string | null, now: number) =>
  fetchedAt === null ? Number.POSITIVE_INFINITY : (now - Date.parse(fetchedAt)) / 1000;

/**
 * The client of `clientId`. A registered client (`mcp_…`) is read from D1. A metadata document client (an
 * https URL) is read from its cached row while that is fresh (its lifetime, 5 min to 24 h), else fetched
 * again: a good document replaces the row; a refused one (wrong `client_id`, a private address, a redirect,
 * not JSON, bad metadata, a 4xx) refuses the client even if an older copy is cached; a fetch that may pass
 * (timeout, DNS or network trouble, a 5xx) keeps the last good copy up to 24 h past its lifetime.
 */
export async function resolveClient(
  env: Env,
  services: Services,
  clientId: string,
): Promise<ClientResolution> {
  if (typeof clientId !== "string" || clientId === "") return refused("unknown_client", "no client_id");
  if (!isDocumentClientId(clientId)) {
    if (!REGISTERED_ID.test(clientId)) return refused("unknown_client", "no such client");
    const row = await clientById(env.DB, clientId);
    const stored = row?.kind === "registered" ? storedClient(row) : null;
    return stored ? { ok: true, client: stored.client } : refused("unknown_client", "no such client");
  }
  const problem = clientIdUrlProblem(env, clientId);
  if (problem) return refused("invalid_metadata_document", problem);
  const now = Date.now();
  const row = await clientById(env.DB, clientId);
  const cached = row?.kind === "metadata_document" ? storedClient(row) : null;
  const age = ageSeconds(row?.fetched_at ?? null, now);
  if (cached && age < cached.maxAgeSeconds) return { ok: true, client: cached.client };
  const outcome = await fetchClientDocument(env, clientId);
  if (outcome.kind === "refused") {
    services.log.info("oauth_client_document_refused", { client_id: clientId, reason: outcome.reason });
    return refused("invalid_metadata_document", outcome.reason);
  }
  if (outcome.kind === "unavailable") {
    services.log.warn("oauth_client_document_unavailable", { client_id: clientId, reason: outcome.reason });
    if (cached && age < cached.maxAgeSeconds + CLIENT_DOCUMENT_STALE_IF_ERROR_S) {
      return { ok: true, client: cached.client };
    }
    return refused("fetch_failed", outcome.reason);
  }
  const at = new Date(now).toISOString();
  const { metadata } = outcome;
  const fresh = {
    id: clientId,
    kind: "metadata_document" as const,
    name: metadata.client_name,
    client_uri: metadata.client_uri,
    logo_uri: metadata.logo_uri,
    redirect_uris: JSON.stringify(metadata.redirect_uris),
    token_endpoint_auth_method: metadata.token_endpoint_auth_method,
    secret_hash: null,
    metadata_json: JSON.stringify({ document: outcome.document, max_age_seconds: outcome.maxAgeSeconds }),
    fetched_at: at,
    created_at: at,
    updated_at: at,
  };
  await saveDocumentClient(env.DB, fresh);
  return { ok: true, client: clientOfRow({ ...fresh, created_at: row?.created_at ?? at }, metadata) };
}

async function secretHashOf(secret: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(secret))));
}

/**
 * Whether `presented` is the secret of a confidential client (compared as hashes, in constant time). A
 * public client (no secret hash) never verifies: a secret it presents proves nothing.
 */
export async function verifyClientSecret(
  client: Pick<OAuthClient, "secretHash">,
  presented: string | null | undefined,
): Promise<boolean> {
  if (!client.secretHash || typeof presented !== "string" || presented === "" || presented.length > 512) {
    return false;
  }
  return timingSafeEqual(await secretHashOf(presented), client.secretHash);
}

// ---------------------------------------------------------------------------------------------------
// RFC 7591 registration

export type RegistrationOutcome =
  | { kind: "registered"; body: Record<string, unknown> }
  | { kind: "refused"; error: MetadataError; description: string }
  | { kind: "rate_limited"; retryAfter: number };

/** Counts one registration of the client IP and says whether it is within the quota (one atomic step). */
async function withinRegistrationQuota(
  env: Env,
  ip: string,
): Promise<{ allowed: boolean; retryAfter: number }> {
  const limiter = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(`oauth_register_ip:${ip}`));
  return limiter.hit(REGISTRATION_QUOTA.limit, REGISTRATION_QUOTA.windowSeconds);
}

/** The registered metadata as the client information response and `metadata_json` hold it (RFC 7591 §3.2.1). */
function registeredMetadata(metadata: ClientMetadata): Record<string, unknown> {
  return {
    redirect_uris: metadata.redirect_uris,
    client_name: metadata.client_name,
    token_endpoint_auth_method: metadata.token_endpoint_auth_method,
    grant_types: metadata.grant_types,
    response_types: metadata.response_types,
    ...(metadata.client_uri ? { client_uri: metadata.client_uri } : {}),
    ...(metadata.logo_uri ? { logo_uri: metadata.logo_uri } : {}),
    ...(metadata.scope ? { scope: metadata.scope } : {}),
  };
}

/**
 * Registers a client from a registration request's body (`parsed`: the JSON value, or `undefined` when the
 * body was not JSON). Every attempt counts on the client IP's quota, good or bad, before anything else. A
 * confidential client's secret is in the answer once; only its hash is kept.
 */
export async function registerClient(
  env: Env,
  services: Services,
  parsed: unknown,
): Promise<RegistrationOutcome> {
  const quota = await withinRegistrationQuota(env, services.request.ip);
  if (!quota.allowed) return { kind: "rate_limited", retryAfter: quota.retryAfter };
  if (parsed === undefined) {
    return {
      kind: "refused",
      error: "invalid_client_metadata",
      description: "the body must be a JSON object",
    };
  }
  const checked = checkClientMetadata(parsed, "registration");
  if (!checked.ok) return { kind: "refused", error: checked.error, description: checked.description };
  const { metadata } = checked;
  const id = `mcp_${newId()}`;
  const confidential = metadata.token_endpoint_auth_method !== "none";
  const secret = confidential ? `mcs_${randomToken(32)}` : null;
  const registered = registeredMetadata(metadata);
  const at = nowIso();
  await insertRegisteredClient(env.DB, {
    id,
    kind: "registered",
    name: metadata.client_name,
    client_uri: metadata.client_uri,
    logo_uri: metadata.logo_uri,
    redirect_uris: JSON.stringify(metadata.redirect_uris),
    token_endpoint_auth_method: metadata.token_endpoint_auth_method,
    secret_hash: secret ? await secretHashOf(secret) : null,
    metadata_json: JSON.stringify(registered),
    fetched_at: null,
    created_at: at,
    updated_at: at,
  });
  services.log.info("oauth_client_registered", {
    client_id: id,
    auth_method: metadata.token_endpoint_auth_method,
  });
  return {
    kind: "registered",
    body: {
      client_id: id,
      client_id_issued_at: Math.floor(Date.parse(at) / 1000),
      ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
      ...registered,
    },
  };
}
