/**
 * OAuth client metadata (issue 37, docs/decisions/oauth-agents.md "Clients"): the rules both kinds of client
 * are held to (a Client ID Metadata Document and an RFC 7591 registration), and the fetch of a document.
 *
 * A Client ID Metadata Document (draft-ietf-oauth-client-id-metadata-document, the MCP 2026-07-28
 * revision's preferred way): the `client_id` is an `https` URL with a path, and the document served there
 * is the client's metadata. It is requested through the platform's outbound guard (src/lib/safe-fetch.ts,
 * as SSO's provider requests are): https only, the host never a private name and every address it resolves
 * to public, no redirect followed (a 3xx refuses the document), one 5 s deadline, the body cut at 10 KiB,
 * `Accept: application/json`. `http://localhost` (127.0.0.1, [::1]) client ids are allowed only where
 * `DEV_SSO_LOCAL_ISSUERS` is "true" (the development flag of local OpenID/OAuth parties, which only
 * `npm start`'s .dev.vars sets; a deploy refuses every DEV_ var).
 */
import { dohResolver } from "../../lib/doh";
import { SCOPES } from "../../lib/key-scopes";
import { type GuardFailure, type GuardOptions, guardedFetch, type UrlPolicy } from "../../lib/safe-fetch";
import { outboundDeadline } from "../core/deadlines";
import type { Env } from "../core/worker-env";

export const CLIENT_DOCUMENT_MAX_BYTES = 10 * 1024;
export const CLIENT_DOCUMENT_TIMEOUT_MS = 5_000;
/** A document is used this long after its fetch at least (whatever its Cache-Control says)… */
export const CLIENT_DOCUMENT_MIN_CACHE_S = 5 * 60;
/** …and at most this long before it is fetched again. */
export const CLIENT_DOCUMENT_MAX_CACHE_S = 24 * 3600;
/** A refetch that fails for a reason that may pass keeps the last good document this long past its lifetime. */
export const CLIENT_DOCUMENT_STALE_IF_ERROR_S = 24 * 3600;

export const CLIENT_ID_MAX_LENGTH = 1024;
export const REDIRECT_URI_MAX_LENGTH = 2048;
export const MAX_REDIRECT_URIS = 10;
/** The name the consent page shows: long enough for a product name, short enough to read at a glance. */
export const CLIENT_NAME_MAX_LENGTH = 100;
export const DEFAULT_CLIENT_NAME = "Unnamed client";

export const AUTH_METHODS = ["none", "client_secret_post", "client_secret_basic"] as const;
export type AuthMethod = (typeof AUTH_METHODS)[number];
export const GRANT_TYPES = ["authorization_code", "refresh_token"] as const;
export type GrantType = (typeof GRANT_TYPES)[number];

/** The metadata identity keeps of a client, whichever way it came. */
export interface ClientMetadata {
  redirect_uris: string[];
  client_name: string;
  client_uri: string | null;
  logo_uri: string | null;
  token_endpoint_auth_method: AuthMethod;
  grant_types: GrantType[];
  response_types: ["code"];
  /** Key scopes the client says it may ask for (space-separated), or null. */
  scope: string | null;
}

/** RFC 7591 §3.2.2's two error codes: what a registration answers and why a document is refused. */
export type MetadataError = "invalid_redirect_uri" | "invalid_client_metadata";

export type MetadataCheck =
  | { ok: true; metadata: ClientMetadata }
  | { ok: false; error: MetadataError; description: string };

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);
/** RFC 8252 §7.1: a native app's private-use scheme is a reverse domain name, so it holds a dot. */
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:$/;
/** C0 and C1 controls, DEL, and the bidirectional overrides that could disguise a name on the consent page. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
const UNSAFE_TEXT = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
const SPACE_OR_CONTROL = /[\s\u0000-\u001f\u007f]/;
const SCOPE_SET = new Set<string>(SCOPES);

/** Why a redirect URI is refused, or null: absolute, no fragment, https (http for loopback) or a private-use scheme. */
export function redirectUriProblem(raw: unknown): string | null {
  if (typeof raw !== "string" || raw.length === 0) return "each redirect URI must be a non-empty string";
  if (raw.length > REDIRECT_URI_MAX_LENGTH) return `a redirect URI is longer than ${REDIRECT_URI_MAX_LENGTH}`;
  // The URL parser drops tabs, newlines and outer spaces silently: the URI compared later is the raw text.
  if (SPACE_OR_CONTROL.test(raw)) return "a redirect URI contains whitespace or control characters";
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "a redirect URI is not an absolute URI";
  }
  if (raw.includes("#")) return "a redirect URI must not contain a fragment";
  if (url.username !== "" || url.password !== "") return "a redirect URI must not carry credentials";
  if (url.protocol === "https:") return url.hostname === "" ? "a redirect URI has no host" : null;
  if (url.protocol === "http:") {
    return LOOPBACK_HOSTS.has(url.hostname)
      ? null
      : "an http redirect URI is allowed only on localhost, 127.0.0.1 or [::1]";
  }
  if (PRIVATE_USE_SCHEME.test(url.protocol)) return null;
  return "a redirect URI must be https, http on a loopback host, or a private-use scheme (reverse domain name)";
}

/** An https URL a consent page may link (client_uri, logo_uri), or why not. */
function webUriProblem(raw: unknown, field: string): string | null {
  if (typeof raw !== "string" || raw.length > REDIRECT_URI_MAX_LENGTH || SPACE_OR_CONTROL.test(raw)) {
    return `${field} must be a URL of at most ${REDIRECT_URI_MAX_LENGTH} characters`;
  }
  try {
    const url = new URL(raw);
    if (url.protocol !== "https:" || url.username !== "" || url.password !== "") {
      return `${field} must be an https URL without credentials`;
    }
  } catch {
    return `${field} must be an absolute URL`;
  }
  return null;
}

const invalid = (description: string): MetadataCheck => ({
  ok: false,
  error: "invalid_client_metadata",
  description,
});

function namedList<T extends string>(raw: unknown, allowed: readonly T[], field: string): T[] | string {
  if (!Array.isArray(raw) || raw.length === 0) return `${field} must be a non-empty array`;
  const out: T[] = [];
  for (const value of raw) {
    if (typeof value !== "string" || !(allowed as readonly string[]).includes(value)) {
      return `${field} may hold only ${allowed.join(", ")}`;
    }
    if (!out.includes(value as T)) out.push(value as T);
  }
  return out;
}

/**
 * Who presents the metadata changes three rules: a registration may name any of our three authentication
 * methods (default client_secret_basic, RFC 7591 §2) and must name only known scopes; a metadata document
 * holds no secret, so its method must be `none` (absent means `none`: a document cannot have been given
 * a secret), and its `scope` keeps only the scopes identity knows (a generic client's document may list
 * others; they are never granted anyway).
 */
export type MetadataSource = "registration" | "document";

/**
 * The client metadata of a registration body or a fetched document, checked. Members this server does not
 * know are ignored and never stored or echoed: RFC 7591 §2 ("the authorization server MUST ignore any
 * client metadata sent by the client that it does not understand") and the metadata document draft (§4.1,
 * a document may carry any registered or extension member) say so, against the platform's strict-input
 * rule, which yields to a spec that says otherwise.
 */
export function checkClientMetadata(input: unknown, source: MetadataSource): MetadataCheck {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    return invalid("the client metadata must be a JSON object");
  }
  const body = input as Record<string, unknown>;
  const uris = body.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0) {
    return {
      ok: false,
      error: "invalid_redirect_uri",
      description: "redirect_uris must be a non-empty array",
    };
  }
  if (uris.length > MAX_REDIRECT_URIS) {
    return {
      ok: false,
      error: "invalid_redirect_uri",
      description: `at most ${MAX_REDIRECT_URIS} redirect_uris`,
    };
  }
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem) return { ok: false, error: "invalid_redirect_uri", description: problem };
  }
  const name = body.client_name ?? (source === "registration" ? DEFAULT_CLIENT_NAME : undefined);
  if (typeof name !== "string" || name.trim() === "") return invalid("client_name is required");
  if (name.length > CLIENT_NAME_MAX_LENGTH) {
    return invalid(`client_name is longer than ${CLIENT_NAME_MAX_LENGTH} characters`);
  }
  if (UNSAFE_TEXT.test(name)) return invalid("client_name contains control or direction characters");
  for (const field of ["client_uri", "logo_uri"] as const) {
    const problem = body[field] === undefined ? null : webUriProblem(body[field], field);
    if (problem) return invalid(problem);
  }
  const method = checkAuthMethod(body.token_endpoint_auth_method, source);
  if (typeof method === "object") return method;
  if (source === "document" && ("client_secret" in body || "client_secret_expires_at" in body)) {
    return invalid("a client metadata document must not carry a client secret");
  }
  const grants =
    body.grant_types === undefined
      ? ["authorization_code" as const]
      : namedList(body.grant_types, GRANT_TYPES, "grant_types");
  if (typeof grants === "string") return invalid(grants);
  if (!grants.includes("authorization_code")) return invalid("grant_types must include authorization_code");
  const responses =
    body.response_types === undefined
      ? ["code" as const]
      : namedList(body.response_types, ["code"] as const, "response_types");
  if (typeof responses === "string") return invalid(responses);
  const scope = checkScope(body.scope, source);
  if (typeof scope === "object" && scope !== null) return scope;
  return {
    ok: true,
    metadata: {
      redirect_uris: uris as string[],
      client_name: name.trim(),
      client_uri: typeof body.client_uri === "string" ? body.client_uri : null,
      logo_uri: typeof body.logo_uri === "string" ? body.logo_uri : null,
      token_endpoint_auth_method: method,
      grant_types: grants,
      response_types: ["code"],
      scope,
    },
  };
}

function checkAuthMethod(raw: unknown, source: MetadataSource): AuthMethod | MetadataCheck {
  if (source === "document") {
    if (raw === undefined || raw === "none") return "none";
    return invalid(
      `token_endpoint_auth_method ${JSON.stringify(raw)} is not supported for a client metadata document: it must be "none" (private_key_jwt is not supported)`,
    );
  }
  if (raw === undefined) return "client_secret_basic";
  if (typeof raw === "string" && (AUTH_METHODS as readonly string[]).includes(raw)) return raw as AuthMethod;
  return invalid(`token_endpoint_auth_method must be one of ${AUTH_METHODS.join(", ")}`);
}

function checkScope(raw: unknown, source: MetadataSource): string | null | MetadataCheck {
  if (raw === undefined) return null;
  if (typeof raw !== "string" || raw.length > 1000) return invalid("scope must be a space-separated string");
  const values = raw.split(" ").filter(Boolean);
  const unknown = values.filter((s) => !SCOPE_SET.has(s));
  if (source === "registration" && unknown.length > 0) return invalid(`unknown scope: ${unknown[0]}`);
  const known = [...new Set(values.filter((s) => SCOPE_SET.has(s)))];
  return known.length > 0 ? known.join(" ") : null;
}

// ---------------------------------------------------------------------------------------------------
// The document's URL and its fetch

/** Whether a client_id names a metadata document (a URL) rather than a registration (`mcp_…`). */
export function isDocumentClientId(clientId: string): boolean {
  return /^https?:\/\//i.test(clientId);
}

function urlPolicy(env: Env): UrlPolicy {
  return {
    schemes: ["https:"],
    ...(env.DEV_SSO_LOCAL_ISSUERS === "true" ? { loopbackSchemes: ["http:", "https:"] } : {}),
  };
}

/**
 * Why a client_id URL cannot name a document (draft §3), or null: https (http://localhost in development
 * only), a path beyond `/`, no fragment, no credentials, no dot segments, written canonically (the URL the
 * parser gives back is the string itself, so the `client_id` compared with the document's is unambiguous).
 */
export function clientIdUrlProblem(env: Env, clientId: string): string | null {
  if (clientId.length > CLIENT_ID_MAX_LENGTH)
    return `the client_id URL is longer than ${CLIENT_ID_MAX_LENGTH}`;
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return "the client_id is not a URL";
  }
  const local = env.DEV_SSO_LOCAL_ISSUERS === "true" && LOOPBACK_HOSTS.has(url.hostname);
  if (url.protocol !== "https:" && !(local && url.protocol === "http:"))
    return "the client_id URL must be https";
  if (url.username !== "" || url.password !== "") return "the client_id URL must not carry credentials";
  if (clientId.includes("#")) return "the client_id URL must not have a fragment";
  if (url.pathname === "/" || url.pathname === "") return "the client_id URL must have a path";
  if (/\/\.\.?(\/|$)/.test(clientId.slice(url.origin.length)))
    return "the client_id URL must not have dot segments";
  if (url.href !== clientId) return "the client_id URL must be written in its canonical form";
  return null;
}

/** A fetched document, checked; `maxAgeSeconds` is how long it may be used (bounded). */
export interface FetchedDocument {
  kind: "document";
  metadata: ClientMetadata;
  /** The document as served (unknown members kept: the cache holds what the client published). */
  document: Record<string, unknown>;
  maxAgeSeconds: number;
}

/** Definitive: the document (or its URL) is wrong; fetching again later would not help. */
export interface DocumentRefused {
  kind: "refused";
  reason: string;
}

/** May pass: the host could not be reached or answered with a server error. */
export interface DocumentUnavailable {
  kind: "unavailable";
  reason: string;
}

export type DocumentOutcome = FetchedDocument | DocumentRefused | DocumentUnavailable;

/** The outbound guard's options of a document request: https, no redirects, 10 KiB, 5 s. */
export function documentGuardOptions(env: Env): GuardOptions {
  return {
    ...urlPolicy(env),
    resolver: dohResolver(env.DOH_URL),
    timeoutMs: outboundDeadline(env, CLIENT_DOCUMENT_TIMEOUT_MS),
    redirects: "answer",
    body: { read: "2xx", maxBytes: CLIENT_DOCUMENT_MAX_BYTES },
  };
}

function guardOutcome(failure: GuardFailure): DocumentRefused | DocumentUnavailable {
  if (failure.kind === "transient") return { kind: "unavailable", reason: failure.reason };
  return { kind: "refused", reason: failure.reason === "too_large" ? "document_too_large" : failure.reason };
}

/**
 * The lifetime the answer gave (Cache-Control `max-age`, else `Expires` against `Date`), bounded to
 * [5 min, 24 h]; `no-store`/`no-cache` or nothing at all is the minimum.
 */
export function documentLifetime(headers: Headers, now = Date.now()): number {
  const cacheControl = (headers.get("cache-control") ?? "").toLowerCase();
  let seconds: number | null = null;
  if (/(^|,)\s*(no-store|no-cache)\b/.test(cacheControl)) seconds = 0;
  else {
    const maxAge = /(^|,)\s*max-age\s*=\s*"?(\d{1,10})"?/.exec(cacheControl);
    if (maxAge) seconds = Number(maxAge[2]);
    else {
      const expires = Date.parse(headers.get("expires") ?? "");
      const date = Date.parse(headers.get("date") ?? "");
      if (Number.isFinite(expires))
        seconds = Math.floor((expires - (Number.isFinite(date) ? date : now)) / 1000);
    }
  }
  return Math.min(CLIENT_DOCUMENT_MAX_CACHE_S, Math.max(CLIENT_DOCUMENT_MIN_CACHE_S, seconds ?? 0));
}

/** Requests the document at `clientId` under the guard and checks it (its `client_id` must equal the URL). */
export async function fetchClientDocument(env: Env, clientId: string): Promise<DocumentOutcome> {
  const answer = await guardedFetch(
    clientId,
    { method: "GET", headers: { accept: "application/json" } },
    documentGuardOptions(env),
  );
  if (answer.kind !== "answer") return guardOutcome(answer);
  if (answer.status >= 300 && answer.status <= 399)
    return { kind: "refused", reason: "redirect_not_followed" };
  if (answer.status === 408 || answer.status === 429 || answer.status >= 500) {
    return { kind: "unavailable", reason: `status_${answer.status}` };
  }
  if (answer.status < 200 || answer.status > 299 || answer.body === null) {
    return { kind: "refused", reason: `status_${answer.status}` };
  }
  let document: unknown;
  try {
    document = JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(answer.body));
  } catch {
    return { kind: "refused", reason: "not_json" };
  }
  if (typeof document !== "object" || document === null || Array.isArray(document)) {
    return { kind: "refused", reason: "not_a_json_object" };
  }
  const doc = document as Record<string, unknown>;
  if (doc.client_id !== clientId) return { kind: "refused", reason: "client_id_mismatch" };
  const checked = checkClientMetadata(doc, "document");
  if (!checked.ok) return { kind: "refused", reason: `${checked.error}: ${checked.description}` };
  return {
    kind: "document",
    metadata: checked.metadata,
    document: doc,
    maxAgeSeconds: documentLifetime(answer.headers),
  };
}
