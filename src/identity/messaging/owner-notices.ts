/**
 * Notices to the owner of an account when a way into it changes: an address added or proven, a sign-in
 * factor added, a recovery-code pool generated, the password reset. They go to the primary address (the one a stolen access token cannot change without a
 * code sent there), at once, and never fail the change itself: a notice that cannot be sent is logged.
 */
import type { Logger } from "../../lib/log";
import { maskPhone, nowIso } from "../core/crypto";
import type { Env } from "../core/worker-env";
import { signDisownToken } from "../emails/address-disown";
import type { EndedPasskey } from "../factors/passkeys-store";
import { type FactorKind, factorsLeft } from "../factors/store";
import { primaryEmail } from "../signup/accounts-store";
import type { OutboundMessage } from "./messages";
import type { Mailer } from "./messaging";

export interface NoticeSender {
  env: Env;
  mailer: Mailer;
  log: Logger;
}

/**
 * Tells the primary address that `address` was added to the account (`usableAt` absent) or proven on it
 * (`usableAt`: when it may sign in and recover), with a one-click removal link that also signs out every
 * session.
 */
export async function noticeAddressChange(
  sender: NoticeSender,
  input: { userId: string; addressId: string; address: string; usableAt?: string },
): Promise<void> {
  const { env } = sender;
  const purpose = input.usableAt ? "email_verified_notice" : "email_added_notice";
  await deliver(sender, purpose, async (): Promise<OutboundMessage[]> => {
    const primary = await primaryEmail(env.DB, input.userId);
    if (!primary || primary === input.address) return [];
    const claim = { kind: "email" as const, subjectId: input.addressId, userId: input.userId };
    const token = await signDisownToken(env.OTP_PEPPER, claim);
    const link = `${env.ISSUER}/auth/emails/disown?token=${encodeURIComponent(token)}`;
    return [
      input.usableAt
        ? {
            to: primary,
            purpose: "email_verified_notice",
            vars: { address: input.address, usableAt: input.usableAt },
            link,
          }
        : { to: primary, purpose: "email_added_notice", vars: { address: input.address }, link },
    ];
  });
}

/**
 * Tells the primary address at once that a sign-in factor was added, or a recovery-code pool generated
 * (`alsoRecovery`: a pool came with the factor), with a one-click link that removes it (and voids the
 * recovery codes generated with it or since) and signs out every session. Sent for the first factor too.
 */
export async function noticeFactorAdded(
  sender: NoticeSender,
  input: { userId: string; kind: FactorKind; id: string; detail?: string; alsoRecovery?: boolean },
): Promise<void> {
  const { env } = sender;
  const purpose = input.kind === "recovery" ? "recovery_codes_notice" : "factor_added_notice";
  await deliver(sender, purpose, async (): Promise<OutboundMessage[]> => {
    const primary = await primaryEmail(env.DB, input.userId);
    if (!primary) return [];
    const claim = { kind: input.kind, subjectId: input.id, userId: input.userId };
    const token = await signDisownToken(env.OTP_PEPPER, claim);
    const link = `${env.ISSUER}/auth/disown?token=${encodeURIComponent(token)}`;
    if (input.kind === "recovery") return [{ to: primary, purpose: "recovery_codes_notice", link }];
    const vars = { kind: input.kind, detail: input.detail, alsoRecovery: input.alsoRecovery ?? false };
    return [{ to: primary, purpose: "factor_added_notice", vars, link }];
  });
}

/**
 * Tells the primary address, and the address the reset went through when it is another, of a password
 * reset: which passkeys it ended (those registered without the step-up, issue 31) and every factor and
 * passkey still on the account, so the owner taking the account back sees what else a thief may hold.
 * The link is the account page, where the owner signs in to remove one: nothing in the mail acts alone.
 */
export async function noticePasswordReset(
  sender: NoticeSender,
  input: { userId: string; address: string; endedPasskeys: EndedPasskey[] },
): Promise<void> {
  await deliver(sender, "password_reset_notice", async () => {
    const [primary, left] = await Promise.all([
      primaryEmail(sender.env.DB, input.userId),
      factorsLeft(sender.env.DB, input.userId),
    ]);
    const recipients = [...new Set([primary ?? input.address, input.address])];
    const accountPage = `${sender.env.ISSUER}/auth/account`;
    const vars = {
      at: nowIso(),
      via: input.address,
      ended: input.endedPasskeys,
      left: { ...left, phone: left.phone ? maskPhone(left.phone) : null },
    };
    return recipients.map((to) => ({
      to,
      purpose: "password_reset_notice" as const,
      vars,
      link: accountPage,
    }));
  });
}

/** Composes and sends each message; a failure is logged, never thrown, and does not stop the others. */
async function deliver(
  sender: NoticeSender,
  purpose: OutboundMessage["purpose"],
  compose: () => Promise<OutboundMessage[]>,
): Promise<void> {
  const failed = (err: unknown) =>
    sender.log.error("owner_notice_failed", { purpose, error: (err as Error).message });
  let messages: OutboundMessage[];
  try {
    messages = await compose();
  } catch (err) {
    failed(err);
    return;
  }
  for (const message of messages) {
    try {
      await sender.mailer.send(message);
    } catch (err) {
      failed(err);
    }
  }
}
