/**
 * Passkey-first sign-in: a discoverable credential with user verification signs in alone (possession of
 * the authenticator plus its PIN or biometric are two factors). No account is named before the
 * assertion, the password guard is neither consulted nor touched, and every refusal of the assertion is
 * the same 401, so nothing tells which credentials or accounts exist.
 */
import { refuseInactive } from "../account/deletion";
import type { Services } from "../core/context";
import type { Env } from "../core/worker-env";
import { fail, problem } from "../errors";
import {
  assertionChallenge,
  PASSKEY_FIRST_TTL_S,
  passkeyFirstOptions,
  passkeysEnabled,
  verifyPasskeyFirst,
} from "../factors/passkeys";
import { enforceRateLimit } from "../login/guards";
import { createSession, type IssuedSession } from "../login/sessions";
import { getUser } from "../signup/accounts-store";

const REFUSED = () => problem("PASSKEY_INVALID", "The passkey could not sign you in.");

function ceremonyStub(env: Env, challenge: string) {
  return env.LOGIN_CHALLENGES.get(env.LOGIN_CHALLENGES.idFromName(`passkey-first:${challenge}`));
}

function requirePasskeys(env: Env) {
  if (!passkeysEnabled(env)) fail("PASSKEY_DISABLED", "Passkeys are disabled.");
}

/** Opens a ceremony: options for navigator.credentials.get, the challenge kept on the server once. */
export async function beginPasskeyLogin(env: Env, services: Pick<Services, "request">) {
  requirePasskeys(env);
  await enforceRateLimit(env, "login_ip", services.request.ip);
  const options = await passkeyFirstOptions(env);
  await ceremonyStub(env, options.challenge).openPasskeyFirst(Date.now() + PASSKEY_FIRST_TTL_S * 1000);
  return { publicKey: options as unknown as Record<string, unknown> };
}

/**
 * Finishes it: the challenge the assertion signed is taken once (a replay or a concurrent second finish
 * finds it gone), then the credential is verified with UV required and its counter advanced in one
 * conditional UPDATE. Only after that proof may the answer say the address is unverified.
 */
export async function finishPasskeyLogin(
  env: Env,
  services: Pick<Services, "request">,
  body: { credential: unknown; trust_device?: boolean },
): Promise<IssuedSession> {
  requirePasskeys(env);
  await enforceRateLimit(env, "login_ip", services.request.ip);
  const challenge = assertionChallenge(body.credential);
  if (!challenge || !(await ceremonyStub(env, challenge).takePasskeyFirst())) throw REFUSED();
  const result = await verifyPasskeyFirst(env, challenge, body.credential);
  if (typeof result === "string") throw REFUSED();
  const user = await getUser(env.DB, result.userId);
  if (!user) throw REFUSED();
  if (user.status === "pending_verification") {
    fail("EMAIL_NOT_VERIFIED_AT_LOGIN", "Confirm your e-mail address first.");
  }
  if (user.status === "locked") fail("ACCOUNT_LOCKED", "The account is locked.");
  if (user.status !== "active") await refuseInactive(env.DB, user.id);
  const trusted = body.trust_device === true;
  return createSession(env, services, { userId: user.id, method: "passkey", trusted });
}
