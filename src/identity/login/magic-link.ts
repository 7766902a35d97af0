/**
 * Magic-link sign-in. The e-mail carries a typed 6-digit code and a link with an unguessable token; both
 * prove the mailbox, which is a first factor: an account with a confirmed second factor gets the phased
 * login's challenge (every method except e-mail), never a session, from it (docs/decisions/identity.md).
 */
import { refuseInactive } from "../account/deletion";
import type { Services } from "../core/context";
import type { Env } from "../core/worker-env";
import { fail, problem } from "../errors";
import { consumeOtp } from "../messaging/otp";
import { getUser } from "../signup/accounts-store";
import { clearPasswordGuard, enforceVerifyQuotas } from "./guards";
import { requestOwnerCode } from "./owner-codes";
import { openMagicLinkChallenge } from "./phased-login";
import { createSession, type IssuedSession } from "./sessions";

/** Sends a sign-in code and link to the address's owner in the background; the answer never differs. */
export function requestMagicLink(env: Env, services: Services, address: string) {
  return requestOwnerCode(env, services, address, {
    purpose: "magic_link",
    link: (linkToken) =>
      `${env.ISSUER}/auth/magic-link?email=${encodeURIComponent(address)}&code=${linkToken}`,
    events: {
      sent: "magic_link_sent",
      failed: "magic_link_failed",
      withoutAccount: "magic_link_without_account",
      capped: "magic_link_capped",
    },
  });
}

/** What a proven magic link earns: a session, or the phased login's challenge (no session yet). */
export type MagicLinkOutcome =
  | { session: IssuedSession; challenge?: undefined }
  | { challenge: NonNullable<Awaited<ReturnType<typeof openMagicLinkChallenge>>>; session?: undefined };

/**
 * Checks a typed code (counted per pair of address and client, and at most 5 per code) or a link token
 * (not guessable, so only the per-IP quota applies), then signs in: a session for an account without a
 * second factor, the phased-login challenge for one with (the route shapes either answer).
 */
export async function verifyMagicLink(
  env: Env,
  services: Pick<Services, "request">,
  address: string,
  code: string,
): Promise<MagicLinkOutcome> {
  await enforceVerifyQuotas(env, services.request.ip, address, code);
  const won = await consumeOtp(env, { purpose: "magic_link", target: address, code });
  if (!won) fail("CODE_INVALID", "The code is invalid.");
  const user = won.userId ? await getUser(env.DB, won.userId) : null;
  if (!user) fail("USER_NOT_FOUND", "The account no longer exists.");
  if (user.status === "locked") fail("ACCOUNT_LOCKED", "The account is locked.");
  if (user.status !== "active") await refuseInactive(env.DB, user.id);
  // The epoch read in the statement that consumed the code: a password change or reset since voids it.
  const epoch = won.epoch ?? -1;
  const challenge = await openMagicLinkChallenge(env, user.id, epoch);
  if (challenge) return { challenge };
  await clearPasswordGuard(env, `account|${user.id}`);
  const stale = () => problem("CODE_INVALID", "The code is invalid.");
  return {
    session: await createSession(env, services, { userId: user.id, method: "magic_link", epoch, stale }),
  };
}
