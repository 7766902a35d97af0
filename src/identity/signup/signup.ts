/** Self-signup: one answer and one cost whether or not the address already belongs to an account. */
import type { Logger } from "../../lib/log";
import { batch } from "../../lib/sql";
import type { Services } from "../core/context";
import type { Env } from "../core/worker-env";
import type { Locale } from "../messaging/messages";
import type { Mailer } from "../messaging/messaging";
import { prepareOtp } from "../messaging/otp";
import { findVerifiedOwner, noOpUserStatement, pendingAccountStatements } from "./accounts-store";
import { hashPassword, spendHashWork } from "./password";

export const SIGNUP_ACCEPTED = { message: "Check your mailbox to finish signing up." };

/**
 * Answers a signup (after the caller's quotas and the password policy) with the one 202 body, and does
 * everything that depends on the address (the account lookup, the KDF, the writes, the provider call)
 * after the answer, in the background: the response time cannot tell a registered address from a new
 * one, however the two paths' storage and provider costs drift apart (as requestOwnerCode does for
 * magic links and resets).
 */
export function requestSignup(
  env: Env,
  services: Services,
  address: string,
  password: string,
  locale: Locale,
): typeof SIGNUP_ACCEPTED {
  services.waitUntil(signUp(env, services.mailer, address, password, services.log, locale));
  return SIGNUP_ACCEPTED;
}

/**
 * Opens a pending account for a new address and e-mails it a code, or e-mails the owner of a registered
 * address a notice. Both paths still do the same work (one scrypt, one D1 read, one four-statement batch,
 * one message), so not even the Worker's CPU load tells them apart. Never throws: the outcome goes to
 * the logs only. A new account writes in `locale` (from the request's Accept-Language).
 */
export async function signUp(
  env: Env,
  mailer: Mailer,
  address: string,
  password: string,
  log: Logger,
  locale: Locale = "en",
) {
  try {
    // An address still cooling off is somebody's: its mailbox gets the notice, not a second account.
    const owner = await findVerifiedOwner(env.DB, address, { includeCoolingOff: true });
    if (owner) {
      await spendHashWork(password);
      // Harmless writes of the same shape as the new-account batch, so the round trips match.
      const touch = noOpUserStatement(env.DB, owner.user_id);
      await batch(env.DB, [touch, touch, touch, touch]);
      await mailer.send({
        to: address,
        purpose: "signup_notice",
      });
    } else {
      const account = pendingAccountStatements(env.DB, address, await hashPassword(password), locale);
      const otp = await prepareOtp(env, { purpose: "email_verify", target: address, userId: account.userId });
      await batch(env.DB, [...account.statements, ...otp.statements]);
      await mailer.send({
        to: address,
        purpose: "email_verify",
        code: otp.code,
      });
    }
  } catch (err) {
    log.error("signup_delivery_failed", { error: (err as Error).message });
  }
}
