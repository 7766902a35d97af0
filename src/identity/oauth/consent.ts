/**
 * The consent of an MCP agent's authorization request (issue 37, docs/decisions/oauth-agents.md "Consent"):
 * the hosted page `/auth/authorize` hands the request's parameters to `openConsent`, shows what it answers,
 * and the person approves (`approveConsent`) or denies (`denyConsent`).
 *
 * RFC 6749 §4.1.2.1: a request whose client or redirect URI cannot be trusted is refused on the page (a
 * problem), never sent to the redirect URI; every other error of the request goes back to the client as
 * `{redirect}` (`error`, `error_description`, `state`, and RFC 9207's `iss` on every authorization response).
 *
 * A consent is the caller's (another person's is the same 404 as a missing one), single use, 10 minutes,
 * and carries a CSRF token whose hash only is stored. What may be approved is decided again at approval:
 * the site must be one the person may act on NOW, the scopes within what was requested and what the role
 * on that site allows now. Proof in proportion to power: a grant that only reads needs the live session;
 * one that writes, reads leads or exports acts as the person for up to 30 days of refreshes, so it needs
 * a session signed in within the last 10 minutes or identity's step-up code (`factors/step-up.ts`).
 */
import type { EdgeIdentity } from "../../lib/edge";
import { newId, parseUlid } from "../../lib/ids";
import { SCOPES, type Scope } from "../../lib/key-scopes";
import { type MemberSite, rpc, type SitesRpc } from "../../lib/rpc";
import { personSitePermissions, scopesOfPermissions } from "../../lib/site-permissions";
import type { AuthContext, Services } from "../core/context";
import { base64url, isoIn, nowIso, randomToken, timingSafeEqual } from "../core/crypto";
import { edgeContextFor } from "../core/edge-context";
import type { Env } from "../core/worker-env";
import { fail } from "../errors";
import { eventOrigin, recordEvent } from "../events/events";
import { requireStepUp } from "../factors/step-up";
import { type OAuthClient, resolveClient } from "./clients";
import {
  approveConsent as approveStatements,
  type ConsentRow,
  consentById,
  denyConsent as denyStatement,
  insertConsent,
  openConsentCount,
  sessionSignedInAt,
} from "./consent-store";
import { noticeGrantCreated } from "./notice";

/** A consent lives 10 minutes; its first code 60 seconds. */
export const CONSENT_TTL_S = 10 * 60;
export const CODE_TTL_S = 60;
/** A writing grant needs a sign-in this recent, or the step-up code. */
export const FRESH_SIGN_IN_S = 10 * 60;
/** The most consents one person may hold open at once (each is a row; a loop of page loads stops here). */
export const MAX_OPEN_CONSENTS = 20;
/** RFC 6749 `state` is opaque; longer than this is refused (it rides in every redirect and the sign-in `next`). */
export const MAX_STATE = 500;

/** Scopes a grant may hold with the live session alone: reads of what the person's role shows, never leads. */
const READ_ONLY: ReadonlySet<Scope> = new Set([
  "posts:read",
  "post_types:read",
  "sites:read",
  "media:read",
  "site:read",
  "seo:read",
]);

/** The authorization request's parameters as the page read them from its URL (all optional strings). */
export interface AuthorizationRequest {
  response_type?: string | undefined;
  client_id?: string | undefined;
  redirect_uri?: string | undefined;
  code_challenge?: string | undefined;
  code_challenge_method?: string | undefined;
  state?: string | undefined;
  scope?: string | undefined;
  resource?: string | undefined;
}

export interface OfferedSite {
  site_id: string;
  name: string;
  host: string;
  allowed_scopes: Scope[];
}

export interface ConsentWarning {
  code: "loopback_redirect";
  message: string;
}

export interface ConsentView {
  consent_id: string;
  csrf_token: string;
  expires_at: string;
  client: {
    id: string;
    name: string;
    /** The client_id URL's origin (a metadata document), its `client_uri` otherwise; null when none. */
    origin: string | null;
    kind: OAuthClient["kind"];
    /** No client is verified yet: every client's name and origin are its own claims. */
    verified: false;
    logo_uri: string | null;
  };
  redirect_uri: string;
  requested_scopes: Scope[];
  sites: OfferedSite[];
  warnings: ConsentWarning[];
}

export type ConsentOpening = { consent: ConsentView } | { redirect: string };

/** base64url(SHA-256(value)): how codes and CSRF tokens are stored (docs/decisions/oauth-agents.md). */
async function oauthHash(value: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(value))));
}

/** The resource agents' tokens are for: `${ISSUER}/v1/mcp` (RFC 8707). */
export function mcpResource(env: Pick<Env, "ISSUER">): string {
  return `${env.ISSUER}/v1/mcp`;
}

/** The redirect URI with the authorization response's parameters added to its own query (RFC 6749 §4.1.2). */
export function authorizationResponse(
  env: Pick<Env, "ISSUER">,
  redirectUri: string,
  params: Record<string, string | null | undefined>,
): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) {
    if (value !== null && value !== undefined) url.searchParams.append(name, value);
  }
  url.searchParams.append("iss", env.ISSUER);
  return url.toString();
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

function clientOrigin(client: OAuthClient): string | null {
  if (client.kind === "metadata_document") return new URL(client.id).origin;
  return client.clientUri;
}

function warningsOf(client: OAuthClient, redirectUri: string): ConsentWarning[] {
  if (client.kind !== "metadata_document" || !LOOPBACK.test(new URL(redirectUri).hostname)) return [];
  return [
    {
      code: "loopback_redirect",
      message:
        "This agent asks to be sent back to an address on your own computer. Any program on your computer can claim this address, so approve only if you just started this connection yourself.",
    },
  ];
}

/** The client and exact redirect URI, or a problem for the page (never a redirect: RFC 6749 §4.1.2.1). */
async function trustedClient(env: Env, services: Services, req: AuthorizationRequest) {
  const resolution = await resolveClient(env, services, req.client_id ?? "");
  if (!resolution.ok) {
    if (resolution.error === "fetch_failed") {
      fail("OAUTH_CLIENT_UNAVAILABLE", {
        detail: "The agent's client document could not be fetched. Try again in a moment.",
        details: { error: resolution.error },
      });
    }
    fail("OAUTH_CLIENT_INVALID", {
      detail:
        resolution.error === "unknown_client"
          ? "This agent is not known to this service (unknown client_id)."
          : "This agent's client document is invalid, so it cannot be trusted.",
      details: { error: resolution.error },
    });
  }
  const client = resolution.client;
  const redirectUri = req.redirect_uri;
  if (typeof redirectUri !== "string" || !client.redirectUris.includes(redirectUri)) {
    fail("OAUTH_REDIRECT_URI_INVALID", {
      detail:
        "The address this agent asks to be sent back to is not one it registered, so nothing is sent there.",
    });
  }
  return { client, redirectUri };
}

type RequestCheck =
  | { ok: true; scopes: Scope[]; resource: string }
  | { ok: false; error: string; description: string };

/** The request's other parameters (their errors go back to the client). */
function checkRequest(env: Env, client: OAuthClient, req: AuthorizationRequest): RequestCheck {
  const refuse = (error: string, description: string): RequestCheck => ({ ok: false, error, description });
  if (req.state !== undefined && req.state.length > MAX_STATE) {
    return refuse("invalid_request", `state is longer than ${MAX_STATE} characters.`);
  }
  if (req.response_type !== "code") {
    return refuse("unsupported_response_type", "Only response_type=code is supported.");
  }
  if (!client.grantTypes.includes("authorization_code")) {
    return refuse("unauthorized_client", "This client did not register the authorization_code grant.");
  }
  if (req.code_challenge_method !== "S256") {
    return refuse("invalid_request", "PKCE is required with code_challenge_method=S256 (plain is refused).");
  }
  if (typeof req.code_challenge !== "string" || !/^[A-Za-z0-9_-]{43}$/.test(req.code_challenge)) {
    return refuse(
      "invalid_request",
      "code_challenge must be the 43-character base64url SHA-256 of the verifier.",
    );
  }
  const resource = mcpResource(env);
  if (req.resource !== undefined && req.resource !== resource) {
    return refuse("invalid_target", `The only resource is ${resource}.`);
  }
  if (req.scope === undefined || req.scope.trim() === "") {
    return { ok: true, scopes: SCOPES.filter((s) => s !== "leads:read"), resource };
  }
  const asked = req.scope.length > 1000 ? [""] : req.scope.split(" ").filter(Boolean);
  const unknown = asked.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0) return refuse("invalid_scope", `Unknown scope: ${unknown.slice(0, 5).join(" ")}`);
  return { ok: true, scopes: SCOPES.filter((s) => asked.includes(s)), resource };
}

/**
 * The sites the person may act on now, under the edge context of this session (the SSO rule applied:
 * an organization that enforces SSO shows no membership to a password session), each with the key scopes
 * the role allows there; a site where the role allows none is left out. Shares grant content nothing, so
 * only the owning organization's sites and the person's own site roles count.
 */
export async function offeredSites(
  env: Env,
  auth: AuthContext,
): Promise<(OfferedSite & { org_id: string })[]> {
  const context = await edgeContextFor(env.DB, auth.userId, auth.sessionId);
  if (!context?.session_active) fail("UNAUTHENTICATED", "The session has ended; sign in again.");
  const identity: EdgeIdentity = {
    userId: auth.userId,
    sessionId: auth.sessionId,
    orgMemberships: context.org_memberships,
    siteMemberships: context.site_memberships,
    operator: null,
    sessionKind: "staff",
    verified: true,
  };
  const orgIds = context.org_memberships.map((m) => m.org_id);
  const siteIds = context.site_memberships.map((m) => m.site_id);
  if (orgIds.length === 0 && siteIds.length === 0) return [];
  let sites: MemberSite[];
  try {
    sites = await rpc<SitesRpc>(env.SITES).memberSites({ org_ids: orgIds, site_ids: siteIds });
  } catch (err) {
    fail("LOOKUP_FAILED", { detail: "The site registry is unavailable.", reason: (err as Error).message });
  }
  return sites.flatMap((site) => {
    const allowed = scopesOfPermissions(
      personSitePermissions(identity, { id: site.id, org_id: site.org_id }),
    );
    const allowedScopes = SCOPES.filter((s) => allowed.has(s));
    if (allowedScopes.length === 0) return [];
    return [
      {
        site_id: site.id,
        org_id: site.org_id,
        name: site.name,
        host: site.host,
        allowed_scopes: allowedScopes,
      },
    ];
  });
}

/**
 * Validates the authorization request for the signed-in person and opens a consent; or the error to send
 * back to the client as `{redirect}`. A client or redirect URI that cannot be trusted is a problem (400,
 * 502), shown on the page.
 */
export async function openConsent(
  env: Env,
  services: Services,
  auth: AuthContext,
  req: AuthorizationRequest,
): Promise<ConsentOpening> {
  const { client, redirectUri } = await trustedClient(env, services, req);
  const checked = checkRequest(env, client, req);
  if (!checked.ok) {
    const state = req.state !== undefined && req.state.length <= MAX_STATE ? req.state : null;
    const params = { error: checked.error, error_description: checked.description, state };
    return { redirect: authorizationResponse(env, redirectUri, params) };
  }
  const now = Date.now();
  const at = nowIso(new Date(now));
  if ((await openConsentCount(env.DB, auth.userId, at)) >= MAX_OPEN_CONSENTS) {
    fail("RATE_LIMITED", "Too many consent pages are open; decide or wait for one to expire (10 minutes).");
  }
  const sites = await offeredSites(env, auth);
  const csrfToken = randomToken(32);
  const row: ConsentRow = {
    id: newId(),
    user_id: auth.userId,
    client_id: client.id,
    redirect_uri: redirectUri,
    state: req.state ?? null,
    code_challenge: req.code_challenge ?? "",
    resource: checked.resource,
    scope: checked.scopes.join(" "),
    csrf_hash: await oauthHash(csrfToken),
    created_at: at,
    expires_at: isoIn(CONSENT_TTL_S, now),
    decided_at: null,
  };
  await insertConsent(env.DB, row, at);
  return {
    consent: {
      consent_id: row.id,
      csrf_token: csrfToken,
      expires_at: row.expires_at,
      client: {
        id: client.id,
        name: client.name,
        origin: clientOrigin(client),
        kind: client.kind,
        verified: false,
        logo_uri: client.logoUri,
      },
      redirect_uri: redirectUri,
      requested_scopes: checked.scopes,
      sites: sites.map(({ org_id: _org, ...site }) => site),
      warnings: warningsOf(client, redirectUri),
    },
  };
}

/**
 * The caller's open consent, its CSRF token proved: 404 for a missing or another person's consent (the
 * same answer), 403 for a wrong token, 409 once decided or expired.
 */
async function openConsentOf(env: Env, auth: AuthContext, rawId: string, csrfToken: string) {
  const id = parseUlid(rawId);
  const row = id ? await consentById(env.DB, id) : null;
  if (!row || row.user_id !== auth.userId) fail("NOT_FOUND", "No such consent.");
  const csrfHash = await oauthHash(csrfToken);
  if (!timingSafeEqual(csrfHash, row.csrf_hash)) {
    fail("CONSENT_CSRF_INVALID", "The consent's token does not match; reload the consent page.");
  }
  if (row.decided_at !== null) fail("CONSENT_DECIDED", "This consent was already decided.");
  if (row.expires_at <= nowIso()) {
    fail("CONSENT_EXPIRED", "This consent expired (10 minutes); start again from the agent.");
  }
  return { row, csrfHash };
}

export interface ApprovalInput {
  csrf_token: string;
  site_id: string;
  scopes: string[];
}

/** Whether approving `scopes` asks for more than the live session: anything but the plain reads. */
export function needsFreshProof(scopes: readonly string[]): boolean {
  return scopes.some((s) => !READ_ONLY.has(s as Scope));
}

async function requireFreshProof(
  env: Env,
  services: Services,
  auth: AuthContext,
  consentId: string,
  stepUpCode: string | undefined,
) {
  const signedInAt = await sessionSignedInAt(env.DB, auth.userId, auth.sessionId);
  const fresh = signedInAt !== null && Date.parse(signedInAt) > Date.now() - FRESH_SIGN_IN_S * 1000;
  if (fresh) return;
  await requireStepUp(env, services, auth.userId, `oauth.consent.approve:${consentId}`, stepUpCode);
}

/**
 * Approves the caller's open consent for one site and some of its scopes: the grant, its first code and
 * the consent's single use in one batch, the `oauth_grant.created` event with them, then the person's
 * notice with its undo link. The redirect carries the code, the state and `iss`.
 */
export async function approveConsent(
  env: Env,
  services: Services,
  auth: AuthContext,
  consentId: string,
  input: ApprovalInput,
  stepUpCode: string | undefined,
): Promise<{ redirect: string }> {
  const { row, csrfHash } = await openConsentOf(env, auth, consentId, input.csrf_token);
  const scopes = [...new Set(input.scopes)];
  const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (scopes.length === 0 || unknown.length > 0) {
    fail("BAD_REQUEST", {
      detail:
        scopes.length === 0
          ? "Choose at least one scope."
          : `Unknown scope: ${unknown.slice(0, 5).join(" ")}`,
    });
  }
  const site = (await offeredSites(env, auth)).find((s) => s.site_id === input.site_id);
  if (!site) fail("FORBIDDEN", "That is not a site you may let an agent act on.");
  const requested = row.scope.split(" ");
  const notRequested = scopes.filter((s) => !requested.includes(s));
  const notAllowed = scopes.filter((s) => !(site.allowed_scopes as string[]).includes(s));
  if (notRequested.length > 0 || notAllowed.length > 0) {
    fail("SCOPE_NOT_ALLOWED", {
      detail:
        notRequested.length > 0
          ? `The agent did not ask for: ${notRequested.join(", ")}.`
          : `Your role on ${site.name} does not allow: ${notAllowed.join(", ")}.`,
      details: { scopes: [...notRequested, ...notAllowed].join(" ") },
    });
  }
  if (needsFreshProof(scopes)) await requireFreshProof(env, services, auth, row.id, stepUpCode);

  const code = randomToken(32);
  const grantId = newId();
  const now = Date.now();
  const scope = SCOPES.filter((s) => scopes.includes(s)).join(" ");
  const event = recordEvent(
    env.DB,
    eventOrigin(services.request),
    {
      userId: auth.userId,
      type: "oauth_grant.created",
      target: grantId,
      detail: `client ${row.client_id} site ${site.site_id}: ${scope}`,
    },
    { ifChanged: true },
  );
  const won = await approveStatements(
    env.DB,
    {
      consentId: row.id,
      userId: auth.userId,
      csrfHash,
      grantId,
      siteId: site.site_id,
      orgId: site.org_id,
      scope,
      codeHash: await oauthHash(code),
      now: nowIso(new Date(now)),
      codeExpiresAt: isoIn(CODE_TTL_S, now),
    },
    event,
  );
  if (!won) {
    // Lost to a concurrent approval or denial, or expired between the read and the batch.
    const after = await consentById(env.DB, row.id);
    if (after?.decided_at) fail("CONSENT_DECIDED", "This consent was already decided.");
    fail("CONSENT_EXPIRED", "This consent expired (10 minutes); start again from the agent.");
  }
  services.log.info("oauth_grant_created", {
    user_id: auth.userId,
    grant_id: grantId,
    client_id: row.client_id,
    site_id: site.site_id,
  });
  await noticeGrantCreated(
    { env, mailer: services.mailer, log: services.log },
    { userId: auth.userId, grantId, clientId: row.client_id, siteName: site.name, scopes: scope.split(" ") },
  );
  return { redirect: authorizationResponse(env, row.redirect_uri, { code, state: row.state }) };
}

/** Denies the caller's open consent: the client hears `access_denied`. */
export async function denyConsent(
  env: Env,
  auth: AuthContext,
  consentId: string,
  csrfToken: string,
): Promise<{ redirect: string }> {
  const { row, csrfHash } = await openConsentOf(env, auth, consentId, csrfToken);
  const denied = await denyStatement(env.DB, {
    consentId: row.id,
    userId: auth.userId,
    csrfHash,
    now: nowIso(),
  });
  if (!denied) fail("CONSENT_DECIDED", "This consent was already decided.");
  const params = {
    error: "access_denied",
    error_description: "The person denied the request.",
    state: row.state,
  };
  return { redirect: authorizationResponse(env, row.redirect_uri, params) };
}
