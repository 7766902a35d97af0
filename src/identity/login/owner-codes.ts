/** Codes e-mailed to whoever holds an address verified (magic-link sign-in, password reset). */
import type { Logger } from "../../lib/log";
import type { Services } from "../core/context";
import type { Env } from "../core/worker-env";
import type { Mailer } from "../messaging/messaging";
import { issueOtp } from "../messaging/otp";
import { findVerifiedOwner } from "../signup/accounts-store";
import { knownDevice } from "./devices";
import { enforceRateLimit, hitRateLimit } from "./guards";

export interface OwnerCodeRequest {
  purpose: "magic_link" | "password_reset";
  /** The link carrying the unguessable link token (the code and the words are the template's). */
  link: (linkToken: string) => string;
  events: { sent?: string; failed: string; withoutAccount: string; capped: string };
}

const QUOTAS = {
  magic_link: { ip: "magic_ip", pair: "magic_pair" },
  password_reset: { ip: "reset_ip", pair: "reset_pair" },
} as const;

/**
 * Handles a magic-link or reset request. The caller's own quotas (per IP, and per pair of address and
 * IP) answer 429 to that caller only, so a stranger exhausting them never blocks the owner. Everything
 * that depends on the address (the account lookup, the address-wide cap, the code, the provider call)
 * runs after the answer, in the background: the request costs the same whether or not the address has
 * an account, however slow the provider is.
 */
export async function requestOwnerCode(
  env: Env,
  services: Services,
  address: string,
  input: OwnerCodeRequest,
) {
  const { ip, deviceCookie } = services.request;
  await enforceRateLimit(env, QUOTAS[input.purpose].ip, ip);
  await enforceRateLimit(env, QUOTAS[input.purpose].pair, `${address}|${ip}`);
  const { log } = services;
  const work = mailCodeToActiveOwner(env, services.mailer, log, {
    address,
    cookie: deviceCookie,
    ...input,
  }).catch((err: unknown) => log.error(input.events.failed, { error: (err as Error).message }));
  services.waitUntil(work);
}

/**
 * Issues a code bound to the active account holding the address verified (and usable) and e-mails it.
 * Nothing here reaches the answer; the outcome goes to the logs only. Beyond the address-wide cap codes
 * are mailed only to a client carrying the owner's device cookie (a stranger cannot mail-bomb the owner
 * or crowd out the owner's own requests from a device that signed in before).
 */
export async function mailCodeToActiveOwner(
  env: Env,
  mailer: Mailer,
  log: Logger,
  input: OwnerCodeRequest & { address: string; cookie: string | undefined },
): Promise<void> {
  const { address } = input;
  const owner = await findVerifiedOwner(env.DB, address);
  if (owner?.status !== "active") {
    log.info(input.events.withoutAccount);
    return;
  }
  const ownDevice = await knownDevice(env.OTP_PEPPER, input.cookie, owner.user_id);
  if (!ownDevice && !(await hitRateLimit(env, "owner_code_mail", `${input.purpose}|${address}`))) {
    log.warn(input.events.capped);
    return;
  }
  try {
    const otp = await issueOtp(env, { purpose: input.purpose, target: address, userId: owner.user_id });
    await mailer.send({
      to: address,
      purpose: input.purpose,
      link: input.link(otp.linkToken!),
      code: otp.code,
    });
    if (input.events.sent) log.info(input.events.sent);
  } catch (err) {
    log.error(input.events.failed, { error: (err as Error).message });
  }
}
