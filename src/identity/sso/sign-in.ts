/**
 * Signing in through an organization's provider: `start` (by organization slug or e-mail domain) opens
 * an authorization request (code, PKCE, state, nonce) bound to this browser by a cookie; `callback`
 * consumes it once, verifies the ID token (oidc.ts), and then signs in the linked account, or leaves a
 * pending registration (unknown person from a vouched domain) or a pending link (an existing account,
 * which proves its address first).
 */
import * as oauth from "oauth4webapi";
import { batch } from "../../lib/sql";
import type { Services } from "../core/context";
import { randomToken, sha256Hex, timingSafeEqual } from "../core/crypto";
import type { Env } from "../core/worker-env";
import { fail } from "../errors";
import { enforceRateLimit } from "../login/guards";
import { type IssuedSession, prepareSession } from "../login/sessions";
import { issueOtp } from "../messaging/otp";
import { findVerifiedOwner } from "../signup/accounts-store";
import { callbackUrl } from "./admin";
import { authorizationUrl, completeSignIn, discover, SignInRefused, type VerifiedIdentity } from "./oidc";
import { openClientSecret } from "./secret-box";
import { SSO_METHOD } from "./settings";
import {
  configForDomain,
  configForSlug,
  consumeLogin,
  domainVouched,
  findConfig,
  insertLogin,
  insertPending,
  linkedUser,
  type SsoConfigRow,
  ssoSessionStatement,
} from "./store";

const NOT_AVAILABLE = "No single sign-on for that organization or address.";

async function configFor(env: Env, query: { org?: string; email?: string }): Promise<SsoConfigRow | null> {
  if (query.org) return configForSlug(env.DB, query.org.trim().toLowerCase());
  const domain = query.email?.trim().toLowerCase().split("@")[1];
  if (!domain) fail("BAD_REQUEST", "Give `org` (the organization's slug) or `email`.");
  return configForDomain(env.DB, domain);
}

/**
 * The provider's authorization URL for a new request, and the browser secret that binds the request to
 * this browser (the route sets it as the `SSO_BROWSER_COOKIE`); the same 404 for unknown and SSO-less
 * organizations.
 */
export async function startSignIn(
  env: Env,
  services: Pick<Services, "request">,
  query: { org?: string; email?: string },
): Promise<{ url: string; browser: string }> {
  await enforceRateLimit(env, "sso_start_ip", services.request.ip);
  const config = await configFor(env, query);
  if (!config) fail("NOT_FOUND", NOT_AVAILABLE);
  let as: oauth.AuthorizationServer;
  try {
    as = await discover(env, config.issuer);
  } catch (err) {
    fail("SSO_PROVIDER_UNAVAILABLE", {
      detail: "The provider could not be reached.",
      reason: (err as Error).message,
    });
  }
  const browser = randomToken(32);
  const state = oauth.generateRandomState();
  const nonce = oauth.generateRandomNonce();
  const verifier = oauth.generateRandomCodeVerifier();
  await insertLogin(env.DB, {
    stateHash: await sha256Hex(state),
    orgId: config.org_id,
    configId: config.config_id,
    browserHash: await sha256Hex(browser),
    verifier,
    nonce,
  });
  const loginHint = query.email?.trim().toLowerCase();
  const url = await authorizationUrl(as, {
    clientId: config.client_id,
    redirectUri: callbackUrl(env),
    state,
    nonce,
    verifier,
    ...(loginHint ? { loginHint } : {}),
  });
  return { url, browser };
}

/** The provider's redirect back as the callback reads it: its URL, and this browser's SSO cookie. */
export interface SsoCallback {
  url: URL;
  browserCookie: string | undefined;
}

const refused = (reason: string): never =>
  fail("SSO_SIGN_IN_FAILED", { detail: "The single sign-on could not be completed; start again.", reason });

/** Consumes the request in flight named by `state` for this browser, and verifies the provider's answer. */
async function verifiedCallback(
  env: Env,
  callback: SsoCallback,
): Promise<{ config: SsoConfigRow; identity: VerifiedIdentity }> {
  const state = callback.url.searchParams.get("state") ?? "";
  const browser = callback.browserCookie ?? "";
  if (!state) refused("no_state");
  const login = await consumeLogin(env.DB, await sha256Hex(state));
  if (!login) refused("unknown_state");
  if (!timingSafeEqual(login!.browser_hash, await sha256Hex(browser))) refused("other_browser");
  const config = await findConfig(env.DB, login!.org_id);
  if (!config || config.config_id !== login!.config_id) refused("configuration_changed");
  const clientSecret = await openClientSecret(
    env.SSO_SECRET_KEY,
    { orgId: config!.org_id, configId: config!.config_id },
    config!.client_secret_sealed,
  );
  try {
    const identity = await completeSignIn(
      env,
      { issuer: config!.issuer, clientId: config!.client_id, clientSecret },
      {
        callbackUrl: callback.url,
        state,
        nonce: login!.nonce,
        verifier: login!.code_verifier,
        redirectUri: callbackUrl(env),
      },
    );
    return { config: config!, identity };
  } catch (err) {
    if (err instanceof SignInRefused) refused(err.reason);
    fail("SSO_PROVIDER_UNAVAILABLE", {
      detail: "The provider could not be reached.",
      reason: (err as Error).message,
    });
  }
}

/** The provider vouches for the address only when it says it verified it and its domain is proved for the org. */
async function vouchedEmail(env: Env, config: SsoConfigRow, identity: VerifiedIdentity): Promise<string> {
  const email = identity.email;
  const domain = email?.split("@")[1];
  if (!email || !identity.emailVerified || !domain || !(await domainVouched(env.DB, config.org_id, domain))) {
    fail(
      "SSO_DOMAIN_NOT_VOUCHED",
      "Your provider does not vouch for a verified address of this organization's domains.",
    );
  }
  return email!;
}

export type CallbackOutcome =
  | { kind: "session"; session: IssuedSession }
  | { kind: "register"; token: string }
  | { kind: "link"; token: string };

/** The callback: a session for a linked member, else a pending registration or link. */
export async function finishSignIn(
  env: Env,
  services: Services,
  callback: SsoCallback,
): Promise<CallbackOutcome> {
  const { config, identity } = await verifiedCallback(env, callback);
  const linked = await linkedUser(env.DB, config.org_id, identity.subject);
  const amr = identity.amr.join(" ") || null;
  if (linked) {
    if (linked.status !== "active" || linked.member !== 1) {
      fail("FORBIDDEN", "This account is not an active member of the organization.");
    }
    const session = await ssoSession(env, services, config, linked.user_id, amr, []);
    return { kind: "session", session };
  }
  const email = await vouchedEmail(env, config, identity);
  const owner = await findVerifiedOwner(env.DB, email);
  const token = randomToken(32);
  const tokenHash = await sha256Hex(token);
  await insertPending(env.DB, {
    token_hash: tokenHash,
    kind: owner ? "link" : "register",
    org_id: config.org_id,
    config_id: config.config_id,
    subject: identity.subject,
    email,
    name: identity.name,
    user_id: owner?.user_id ?? null,
    amr,
  });
  if (!owner) return { kind: "register", token };
  const otp = await issueOtp(env, {
    purpose: "sso_link",
    target: email,
    userId: owner.user_id,
    context: tokenHash,
  });
  await services.mailer.send({
    to: email,
    purpose: "sso_link",
    code: otp.code,
  });
  return { kind: "link", token };
}

/**
 * A new SSO session (never a trusted device) and its record of the organization and configuration, in
 * one batch with `before` (an account's creation, a link).
 */
export async function ssoSession(
  env: Env,
  services: Pick<Services, "request">,
  config: Pick<SsoConfigRow, "org_id" | "config_id">,
  userId: string,
  amr: string | null,
  before: D1PreparedStatement[],
): Promise<IssuedSession> {
  const { statement, session, events } = await prepareSession(env, services, {
    userId,
    method: SSO_METHOD,
    trusted: false,
  });
  const record = ssoSessionStatement(env.DB, session.sessionId, {
    orgId: config.org_id,
    configId: config.config_id,
    userId,
    amr,
  });
  await batch(env.DB, [...before, statement, record, ...events]);
  return session;
}
