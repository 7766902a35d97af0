/**
 * Signing in through an organization's provider: `start` (by organization slug or e-mail domain) opens
 * an authorization request (code, PKCE, state, nonce) bound to this browser by a cookie; `callback`
 * consumes it once, verifies the ID token (oidc.ts), and then signs in the linked account, or leaves a
 * pending registration (unknown person from a vouched domain) or a pending link (an existing account,
 * which proves its address first).
 */
import { getCookie, setCookie } from "hono/cookie";
import * as oauth from "oauth4webapi";
import { type AppContext, clientIp } from "../core/context";
import { randomToken, sha256Hex, timingSafeEqual } from "../core/crypto";
import { fail } from "../errors";
import { enforceRateLimit } from "../login/guards";
import { type IssuedSession, prepareSession } from "../login/sessions";
import { issueOtp } from "../messaging/otp";
import { findVerifiedOwner } from "../signup/accounts-store";
import { callbackUrl } from "./admin";
import { authorizationUrl, completeSignIn, discover, SignInRefused, type VerifiedIdentity } from "./oidc";
import { openClientSecret } from "./secret-box";
import { SSO_BROWSER_COOKIE, SSO_COOKIE_PATH, SSO_LOGIN_TTL_S, SSO_METHOD } from "./settings";
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

function isHttps(c: AppContext): boolean {
  return new URL(c.req.url).protocol === "https:" || c.req.header("x-forwarded-proto") === "https";
}

async function configFor(
  c: AppContext,
  query: { org?: string; email?: string },
): Promise<SsoConfigRow | null> {
  if (query.org) return configForSlug(c.env.DB, query.org.trim().toLowerCase());
  const domain = query.email?.trim().toLowerCase().split("@")[1];
  if (!domain) fail("BAD_REQUEST", "Give `org` (the organization's slug) or `email`.");
  return configForDomain(c.env.DB, domain);
}

/** The provider's authorization URL for a new request; the same 404 for unknown and SSO-less organizations. */
export async function startSignIn(c: AppContext, query: { org?: string; email?: string }): Promise<string> {
  await enforceRateLimit(c.env, "sso_start_ip", clientIp(c));
  const config = await configFor(c, query);
  if (!config) fail("NOT_FOUND", NOT_AVAILABLE);
  let as: oauth.AuthorizationServer;
  try {
    as = await discover(c.env, config.issuer);
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
  await insertLogin(c.env.DB, {
    stateHash: await sha256Hex(state),
    orgId: config.org_id,
    configId: config.config_id,
    browserHash: await sha256Hex(browser),
    verifier,
    nonce,
  });
  setCookie(c, SSO_BROWSER_COOKIE, browser, {
    httpOnly: true,
    secure: isHttps(c),
    sameSite: "Lax",
    path: SSO_COOKIE_PATH,
    maxAge: SSO_LOGIN_TTL_S,
  });
  c.header("Cache-Control", "no-store");
  const loginHint = query.email?.trim().toLowerCase();
  return authorizationUrl(as, {
    clientId: config.client_id,
    redirectUri: callbackUrl(c),
    state,
    nonce,
    verifier,
    ...(loginHint ? { loginHint } : {}),
  });
}

const refused = (reason: string): never =>
  fail("SSO_SIGN_IN_FAILED", { detail: "The single sign-on could not be completed; start again.", reason });

/** Consumes the request in flight named by `state` for this browser, and verifies the provider's answer. */
async function verifiedCallback(
  c: AppContext,
): Promise<{ config: SsoConfigRow; identity: VerifiedIdentity }> {
  const state = c.req.query("state") ?? "";
  const browser = getCookie(c, SSO_BROWSER_COOKIE) ?? "";
  if (!state) refused("no_state");
  const login = await consumeLogin(c.env.DB, await sha256Hex(state));
  if (!login) refused("unknown_state");
  if (!timingSafeEqual(login!.browser_hash, await sha256Hex(browser))) refused("other_browser");
  const config = await findConfig(c.env.DB, login!.org_id);
  if (!config || config.config_id !== login!.config_id) refused("configuration_changed");
  const clientSecret = await openClientSecret(
    c.env.SSO_SECRET_KEY,
    { orgId: config!.org_id, configId: config!.config_id },
    config!.client_secret_sealed,
  );
  try {
    const identity = await completeSignIn(
      c.env,
      { issuer: config!.issuer, clientId: config!.client_id, clientSecret },
      {
        callbackUrl: new URL(c.req.url),
        state,
        nonce: login!.nonce,
        verifier: login!.code_verifier,
        redirectUri: callbackUrl(c),
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
async function vouchedEmail(
  c: AppContext,
  config: SsoConfigRow,
  identity: VerifiedIdentity,
): Promise<string> {
  const email = identity.email;
  const domain = email?.split("@")[1];
  if (
    !email ||
    !identity.emailVerified ||
    !domain ||
    !(await domainVouched(c.env.DB, config.org_id, domain))
  ) {
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
export async function finishSignIn(c: AppContext): Promise<CallbackOutcome> {
  const { config, identity } = await verifiedCallback(c);
  const linked = await linkedUser(c.env.DB, config.org_id, identity.subject);
  const amr = identity.amr.join(" ") || null;
  if (linked) {
    if (linked.status !== "active" || linked.member !== 1) {
      fail("FORBIDDEN", "This account is not an active member of the organization.");
    }
    const session = await ssoSession(c, config, linked.user_id, amr, []);
    return { kind: "session", session };
  }
  const email = await vouchedEmail(c, config, identity);
  const owner = await findVerifiedOwner(c.env.DB, email);
  const token = randomToken(32);
  const tokenHash = await sha256Hex(token);
  await insertPending(c.env.DB, {
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
  const otp = await issueOtp(c.env, {
    purpose: "sso_link",
    target: email,
    userId: owner.user_id,
    context: tokenHash,
  });
  await c.get("services").mailer.send({
    to: email,
    purpose: "sso_link",
    subject: "Confirm single sign-on for your account",
    body: `Your code is ${otp.code}. It links your account to your organization's single sign-on and expires in 15 minutes. If you did not sign in through your organization, ignore this message.`,
    code: otp.code,
  });
  return { kind: "link", token };
}

/**
 * A new SSO session (never a trusted device) and its record of the organization and configuration, in
 * one batch with `before` (an account's creation, a link).
 */
export async function ssoSession(
  c: AppContext,
  config: Pick<SsoConfigRow, "org_id" | "config_id">,
  userId: string,
  amr: string | null,
  before: D1PreparedStatement[],
): Promise<IssuedSession> {
  const { statement, session, events } = await prepareSession(c, {
    userId,
    method: SSO_METHOD,
    trusted: false,
  });
  const record = ssoSessionStatement(c.env.DB, session.sessionId, {
    orgId: config.org_id,
    configId: config.config_id,
    userId,
    amr,
  });
  await c.env.DB.batch([...before, statement, record, ...events]);
  return session;
}
