/**
 * The phased login after the password: open a challenge with the methods the account can use, deliver
 * an e-mail/SMS code or passkey options for one of them, verify the second factor (single use).
 */
import { LOGIN_CHALLENGE_TTL_S } from "../core/config";
import type { Services } from "../core/context";
import { hmacHex, randomDigits, randomToken } from "../core/crypto";
import type { Env } from "../core/worker-env";
import { fail, problem } from "../errors";
import { hasConfirmedTotp, totpRefusal } from "../factors/factors";
import { passkeyLoginOptions, passkeysEnabled } from "../factors/passkeys";
import { hasPasskeys } from "../factors/passkeys-store";
import { verifiedPhone } from "../factors/phones-store";
import { hasUnusedRecoveryCodes } from "../factors/store";
import { smsEnabled } from "../messaging/messaging";
import { credentialEpoch, primaryEmail } from "../signup/accounts-store";
import { busyError, clearPasswordGuard, enforceRateLimit, type GuardKey } from "./guards";
import type { ChallengeInit, LoginMethod, VerifyInput } from "./login-challenge";

const CODE_TTL_MS = 10 * 60 * 1000;

function challengeStub(env: Env, challenge: string) {
  return env.LOGIN_CHALLENGES.get(env.LOGIN_CHALLENGES.idFromName(`challenge:${challenge}`));
}

export const CHALLENGE_INVALID = () =>
  problem("CHALLENGE_INVALID", "The login challenge is unknown, expired or already used.");

function codeHash(env: Env, challenge: string, method: string, code: string) {
  return hmacHex(env.OTP_PEPPER, `login_mfa|${challenge}|${method}|${code}`);
}

/**
 * The ways on for an account whose password matched but which has no second factor, as `details.ways` of
 * 428 MFA_NOT_ENROLLED: a magic link signs it in now (its mailbox is its only factor; the code alone
 * issues a session), and with that session's access token it enrolls TOTP (no step-up code while it has
 * no factor), after which the password signs in with the TOTP code. The password step itself issues no
 * token (docs/decisions/identity-first-hour.md).
 */
export const MFA_WAYS = [
  {
    way: "magic_link",
    page: "/auth/magic-link",
    requests: [
      { method: "POST", path: "/api/v1/auth/magic-link/request", body: ["email"] },
      { method: "POST", path: "/api/v1/auth/magic-link/verify", body: ["email", "code"] },
    ],
  },
  {
    way: "totp",
    page: "/auth/account",
    authorization: "Bearer access token of a session (the magic link's)",
    requests: [
      { method: "POST", path: "/api/v1/auth/mfa/totp", body: [] },
      { method: "POST", path: "/api/v1/auth/mfa/totp/confirm", body: ["code"] },
    ],
  },
] as const;

const MFA_WAYS_DETAIL =
  "This account has no second factor yet. Sign in with a magic link: POST /api/v1/auth/magic-link/request " +
  "with the e-mail, then POST /api/v1/auth/magic-link/verify with the e-mail and the mailed code (the " +
  "code alone signs in an account without a second factor). With that session's access token enroll TOTP: " +
  "POST /api/v1/auth/mfa/totp (a secret and its otpauth URI; no step-up code while the account has no " +
  "factor), then POST /api/v1/auth/mfa/totp/confirm with a current code. The password then signs in with " +
  "the TOTP code.";

/** 428 MFA_NOT_ENROLLED with the ways on (`details.ways`), the same from every login that raises it. */
export const MFA_NOT_ENROLLED = () =>
  problem("MFA_NOT_ENROLLED", { detail: MFA_WAYS_DETAIL, details: { ways: MFA_WAYS } });

/** The second factors an account has, as the phased login offers them. */
export interface EnrolledFactors {
  totp: boolean;
  passkeys: boolean;
  phone: boolean;
  recovery: boolean;
}

/**
 * The methods a challenge offers, in a fixed order. E-mail is always offered, but only TOTP or a passkey
 * counts as enrollment: without either the login is refused with 428 MFA_NOT_ENROLLED.
 */
export function loginMethods(factors: EnrolledFactors): LoginMethod[] {
  if (!factors.totp && !factors.passkeys) throw MFA_NOT_ENROLLED();
  const methods: LoginMethod[] = [];
  if (factors.totp) methods.push("totp");
  methods.push("email");
  if (factors.phone) methods.push("sms");
  if (factors.passkeys) methods.push("passkey");
  if (factors.recovery) methods.push("recovery_code");
  return methods;
}

async function enrolledFactors(env: Env, userId: string): Promise<EnrolledFactors> {
  const [totp, passkeys, phone, recovery] = await Promise.all([
    hasConfirmedTotp(env.DB, userId),
    passkeysEnabled(env) ? hasPasskeys(env.DB, userId) : Promise.resolve(false),
    smsEnabled(env) ? verifiedPhone(env.DB, userId) : Promise.resolve(null),
    hasUnusedRecoveryCodes(env.DB, userId),
  ]);
  return { totp, passkeys, phone: !!phone, recovery };
}

async function openChallenge(env: Env, init: Omit<ChallengeInit, "expiresAt">) {
  const challenge = randomToken(32);
  const expiresAt = Date.now() + LOGIN_CHALLENGE_TTL_S * 1000;
  await challengeStub(env, challenge).open({ ...init, expiresAt });
  return { challenge, methods: init.methods, expires_at: new Date(expiresAt).toISOString() };
}

/**
 * Step 1, after the password was proven: a challenge bound to the account, its password guard and the
 * credential epoch read with the password's hash.
 */
export async function openLoginChallenge(env: Env, userId: string, guardKey: GuardKey, epoch: number) {
  const methods = loginMethods(await enrolledFactors(env, userId));
  return openChallenge(env, {
    userId,
    guardKey,
    factorGuardKey: guardKey,
    methods,
    firstFactor: "password",
    epoch,
  });
}

/**
 * A magic-link code is a first factor. For an account with a confirmed second factor (TOTP, passkey or
 * phone) it opens the phased-login challenge instead of a session, offering every method except e-mail
 * (the mailbox already answered); null when the account has none (the code alone signs in).
 */
export async function openMagicLinkChallenge(env: Env, userId: string, epoch: number) {
  const factors = await enrolledFactors(env, userId);
  if (!factors.totp && !factors.passkeys && !factors.phone) return null;
  const methods: LoginMethod[] = [];
  if (factors.totp) methods.push("totp");
  if (factors.phone) methods.push("sms");
  if (factors.passkeys) methods.push("passkey");
  if (factors.recovery) methods.push("recovery_code");
  return openChallenge(env, {
    userId,
    guardKey: `account|${userId}`,
    factorGuardKey: `mailbox|${userId}`,
    methods,
    firstFactor: "magic_link",
    epoch,
  });
}

/**
 * The methods with a delivery step: e-mail and SMS get a code, a passkey gets ceremony options. TOTP and
 * recovery codes are typed straight into verify; a passkey needs passkeys switched on.
 */
export function deliveryMethod(env: Env, method: LoginMethod): "email" | "sms" | "passkey" {
  if (method === "totp" || method === "recovery_code") {
    fail("METHOD_NOT_AVAILABLE", `Method ${method} needs no delivery step.`);
  }
  if (method === "passkey" && !passkeysEnabled(env)) {
    fail("PASSKEY_DISABLED", "Passkeys are disabled.");
  }
  return method;
}

/**
 * Whether a password change or reset (or an owner's undo) since the challenge opened voided it: it then
 * sends no code and spends no factor (a recovery code stays unused). The session INSERT checks the
 * epoch again atomically (sessions.ts), so a change racing the verification still wins.
 */
async function voided(env: Env, open: { userId: string; epoch: number }): Promise<boolean> {
  return (await credentialEpoch(env.DB, open.userId)) !== open.epoch;
}

/** A code delivery answers only its expiry (spec: "202 returns only the expiry"), never where it went. */
export type LoginDelivery = { publicKey: Record<string, unknown> } | { expires_at: string };

/** Step 2: arms the challenge for one method and delivers what its verification needs. */
export async function sendLoginFactor(
  env: Env,
  services: Pick<Services, "mailer" | "sms">,
  input: { challenge: string; method: LoginMethod },
): Promise<LoginDelivery> {
  const { challenge } = input;
  const method = deliveryMethod(env, input.method);
  const stub = challengeStub(env, challenge);
  const open = await stub.describe();
  if (!open || (await voided(env, open))) throw CHALLENGE_INVALID();
  if (!open.methods.includes(method)) {
    fail("METHOD_NOT_AVAILABLE", `Method ${method} is not available.`);
  }
  await enforceRateLimit(env, "mfa_send_challenge", challenge);
  if (method === "passkey") {
    const options = await passkeyLoginOptions(env, open.userId);
    if (!(await stub.armPasskey(options.challenge))) throw CHALLENGE_INVALID();
    return { publicKey: options as unknown as Record<string, unknown> };
  }
  const code = randomDigits(6);
  const expiresAt = Math.min(open.expiresAt, Date.now() + CODE_TTL_MS);
  if (!(await stub.armCode(method, await codeHash(env, challenge, method, code), expiresAt)))
    throw CHALLENGE_INVALID();
  const to =
    method === "email" ? await primaryEmail(env.DB, open.userId) : await verifiedPhone(env.DB, open.userId);
  if (!to) fail("METHOD_NOT_AVAILABLE", `Method ${method} is not available.`);
  const message = {
    to,
    purpose: "login_mfa" as const,
    code,
  };
  try {
    await (method === "email" ? services.mailer : services.sms).send(message);
  } catch (err) {
    fail("DELIVERY_FAILED", {
      detail: "The code could not be sent; try again or use another method.",
      reason: (err as Error).message,
    });
  }
  return { expires_at: new Date(expiresAt).toISOString() };
}

export interface LoginFactorProof {
  challenge: string;
  method: LoginMethod;
  code?: string;
  credential?: unknown;
  trust_device?: boolean;
}

async function verifyInput(env: Env, body: LoginFactorProof): Promise<VerifyInput> {
  if (body.method === "passkey") {
    if (!passkeysEnabled(env)) fail("PASSKEY_DISABLED", "Passkeys are disabled.");
    if (body.credential === undefined) fail("BAD_REQUEST", "credential is required.");
    return { method: "passkey", credential: body.credential };
  }
  const code = body.code?.trim();
  if (!code) fail("BAD_REQUEST", "code is required.");
  return body.method === "email" || body.method === "sms"
    ? { method: body.method, codeHash: await codeHash(env, body.challenge, body.method, code) }
    : { method: body.method, code };
}

/**
 * Step 3: verifies the second factor against the challenge (which counts the wrong attempts and is
 * used once). On success the address's password guard is cleared and the session to issue is returned.
 * A counted wrong attempt is handed to `onWrong` (the security event) before the answer.
 */
export async function verifyLoginFactor(
  env: Env,
  body: LoginFactorProof,
  onWrong?: (userId: string) => Promise<void>,
) {
  const stub = challengeStub(env, body.challenge);
  const open = await stub.describe();
  if (open && (await voided(env, open))) throw CHALLENGE_INVALID();
  const outcome = await stub.verify(await verifyInput(env, body));
  if ((outcome.kind === "wrong" || outcome.kind === "dead") && outcome.userId)
    await onWrong?.(outcome.userId);
  switch (outcome.kind) {
    case "invalid":
      throw CHALLENGE_INVALID();
    case "method_not_available":
      return fail("METHOD_NOT_AVAILABLE", `Method ${body.method} is not available.`);
    case "ceremony_invalid":
      return fail("PASSKEY_CEREMONY_INVALID", "Request passkey options first.");
    case "dead":
      return fail("TOO_MANY_ATTEMPTS", "Too many wrong attempts; start the login again.");
    case "locked":
      return fail("TOO_MANY_ATTEMPTS", {
        detail: "Too many wrong codes for this sign-in; try again later.",
        headers: { "Retry-After": String(outcome.retryAfter) },
      });
    case "busy":
      throw busyError(outcome.retryAfter);
    case "wrong":
      if (outcome.reason === "code_already_used")
        throw totpRefusal("used", { attempts_remaining: outcome.remaining });
      return fail(outcome.reason === "clone" ? "PASSKEY_CLONE_SUSPECTED" : "MFA_INVALID_CODE", {
        detail:
          outcome.reason === "clone" ? "The passkey's signature counter regressed." : "The code is invalid.",
        details: { attempts_remaining: outcome.remaining },
      });
    case "ok": {
      for (const key of outcome.guardKeys) await clearPasswordGuard(env, key);
      // A recovery code is an emergency entry: it never earns a long-lived trusted-device session.
      const trusted = body.trust_device === true && body.method !== "recovery_code";
      const method = `${outcome.firstFactor}_${body.method}`;
      // The session is written only while the epoch is the challenge's (the caller's createSession).
      return { userId: outcome.userId, method, trusted, epoch: outcome.epoch, stale: CHALLENGE_INVALID };
    }
  }
}
