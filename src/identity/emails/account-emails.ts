/** Adding and proving the addresses of an account (the owner is always the caller). */
import { newId } from "../../lib/ids";
import type { Logger } from "../../lib/log";
import { ADDED_ADDRESS_COOLING_OFF_S, MAX_EMAILS_PER_ACCOUNT } from "../core/config";
import { isoIn, nowIso } from "../core/crypto";
import type { Env } from "../core/worker-env";
import { fail, problem } from "../errors";
import { type EventOrigin, recordEvent } from "../events/events";
import { enforceRateLimit } from "../login/guards";
import type { Mailer } from "../messaging/messaging";
import { consumeOtp, issueOtp } from "../messaging/otp";
import { noticeAddressChange } from "../messaging/owner-notices";
import {
  type EmailRow,
  findEmailByAddress,
  insertPendingEmail,
  listEmails,
  markEmailVerified,
} from "./store";

export const EMAIL_NOT_FOUND = () => problem("EMAIL_NOT_FOUND", "No such address on this account.");

const ALREADY_ADDED = () => problem("EMAIL_ALREADY_ADDED", "This address is already on your account.");

/** The caller of an account operation: the account, and the client address quotas are counted for. */
export interface AccountCaller {
  userId: string;
  ip: string;
  /** What the security events keep of the client. */
  origin: EventOrigin;
}

/**
 * Adds `address` pending to the caller's account and e-mails it a code; the primary address is told at
 * once, with a removal link. The answer is the same whether or not another account holds the address
 * (that only shows when a proof races, as EMAIL_TAKEN); a failed delivery is logged, and the caller may
 * ask again.
 */
export async function addPendingEmail(
  env: Env,
  mailer: Mailer,
  caller: AccountCaller,
  address: string,
  log: Logger,
) {
  const { userId } = caller;
  const { results } = await listEmails(env.DB, userId);
  if (results.some((r) => r.address === address)) throw ALREADY_ADDED();
  if (results.length >= MAX_EMAILS_PER_ACCOUNT) {
    fail("EMAIL_LIMIT_REACHED", `At most ${MAX_EMAILS_PER_ACCOUNT} addresses.`);
  }
  await enforceRateLimit(env, "email_add_ip", caller.ip);
  await enforceRateLimit(env, "email_add_target", address);
  await enforceRateLimit(env, "email_add_author", userId);
  const id = newId();
  const event = recordEvent(env.DB, caller.origin, {
    userId,
    type: "address_added",
    target: id,
    detail: address,
  });
  if (!(await insertPendingEmail(env.DB, { id, userId, address }, event))) throw ALREADY_ADDED();
  const otp = await issueOtp(env, { purpose: "email_add", target: address, userId });
  try {
    await mailer.send({
      to: address,
      purpose: "email_add",
      code: otp.code,
    });
  } catch (err) {
    log.error("email_add_delivery_failed", { error: (err as Error).message });
  }
  await noticeAddressChange({ env, mailer, log }, { userId, addressId: id, address });
  return { id, email: address, verified: false as const };
}

/**
 * Proves a pending address of the caller with its code. An address already verified answers 409 before
 * any code is burned; the first account to prove an address keeps it (the others get EMAIL_TAKEN). The
 * proven address signs in and recovers the account only after the cooling-off: the caller may hold
 * nothing more than a stolen access token.
 */
export async function verifyPendingEmail(
  env: Env,
  mailer: Mailer,
  caller: AccountCaller,
  input: { address: string; code: string },
  log: Logger,
): Promise<EmailRow> {
  const { userId } = caller;
  await enforceRateLimit(env, "verify_ip", caller.ip);
  const row = await findEmailByAddress(env.DB, userId, input.address);
  if (!row) throw EMAIL_NOT_FOUND();
  if (row.verified_at) fail("EMAIL_ALREADY_ADDED", "This address is already verified.");
  const won = await consumeOtp(env, {
    purpose: "email_add",
    target: input.address,
    code: input.code,
    userId,
  });
  if (!won) fail("CODE_INVALID", "The code is invalid.");
  const now = nowIso();
  const usableAt = isoIn(ADDED_ADDRESS_COOLING_OFF_S);
  const event = recordEvent(
    env.DB,
    caller.origin,
    { userId, type: "address_verified", target: row.id, detail: row.address },
    { ifChanged: true },
  );
  if (!(await markEmailVerified(env.DB, row.id, now, usableAt, event))) {
    fail("EMAIL_TAKEN", "Another account proved this address first.");
  }
  await noticeAddressChange(
    { env, mailer, log },
    { userId, addressId: row.id, address: row.address, usableAt },
  );
  return { ...row, verified_at: now, usable_at: usableAt };
}
