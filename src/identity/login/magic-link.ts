/**
 * Magic-link sign-in. The e-mail carries a typed 6-digit code and a link with an unguessable token; both
 * prove the mailbox, which is a first factor: an account with a confirmed second factor gets the phased
 * login's challenge (every method except e-mail), never a session, from it (docs/decisions/identity.md).
 */
import { refuseInactive } from "../account/deletion";
import { type AppContext, clientIp } from "../core/context";
import { fail, problem } from "../errors";
import { consumeOtp } from "../messaging/otp";
import { getUser } from "../signup/accounts-store";
import { clearPasswordGuard, enforceVerifyQuotas } from "./guards";
import { requestOwnerCode } from "./owner-codes";
import { openMagicLinkChallenge } from "./phased-login";
import { createSession, sessionResponse } from "./sessions";

/** Sends a sign-in code and link to the address's owner in the background; the answer never differs. */
export function requestMagicLink(c: AppContext, address: string) {
  return requestOwnerCode(c, address, {
    purpose: "magic_link",
    message: (code, linkToken) => {
      const link = `${c.env.ISSUER}/auth/magic-link?email=${encodeURIComponent(address)}&code=${linkToken}`;
      return {
        subject: "Your sign-in link",
        body: `Sign in with code ${code} or open ${link}. It expires in 15 minutes. If you did not ask for it, ignore this message.`,
        link,
      };
    },
    events: {
      sent: "magic_link_sent",
      failed: "magic_link_failed",
      withoutAccount: "magic_link_without_account",
      capped: "magic_link_capped",
    },
  });
}

/**
 * Checks a typed code (counted per pair of address and client, and at most 5 per code) or a link token
 * (not guessable, so only the per-IP quota applies), then signs in: a session for an account without a
 * second factor, the phased-login challenge for one with.
 */
export async function verifyMagicLink(c: AppContext, address: string, code: string) {
  await enforceVerifyQuotas(c.env, clientIp(c), address, code);
  const won = await consumeOtp(c.env, { purpose: "magic_link", target: address, code });
  if (!won) fail("CODE_INVALID", "The code is invalid.");
  const user = won.userId ? await getUser(c.env.DB, won.userId) : null;
  if (!user) fail("USER_NOT_FOUND", "The account no longer exists.");
  if (user.status === "locked") fail("ACCOUNT_LOCKED", "The account is locked.");
  if (user.status !== "active") await refuseInactive(c.env.DB, user.id);
  // The epoch read in the statement that consumed the code: a password change or reset since voids it.
  const epoch = won.epoch ?? -1;
  const challenge = await openMagicLinkChallenge(c.env, user.id, epoch);
  if (challenge) {
    c.header("Cache-Control", "no-store");
    return { mfa_required: true as const, ...challenge };
  }
  await clearPasswordGuard(c.env, `account|${user.id}`);
  const stale = () => problem("CODE_INVALID", "The code is invalid.");
  const session = await createSession(c, { userId: user.id, method: "magic_link", epoch, stale });
  return sessionResponse(c, session);
}
