/**
 * Notices to the owner of an account when a way into it changes: an address added or proven, a sign-in
 * factor added, a recovery-code pool generated, the password reset. They go to the primary address (the one a stolen access token cannot change without a
 * code sent there), at once, and never fail the change itself: a notice that cannot be sent is logged.
 */
import type { Logger } from "../../lib/log";
import { ADDED_ADDRESS_COOLING_OFF_S, DISOWN_TOKEN_TTL_S } from "../core/config";
import { maskPhone, nowIso } from "../core/crypto";
import type { Env } from "../core/worker-env";
import { signDisownToken } from "../emails/address-disown";
import type { EndedPasskey } from "../factors/passkeys-store";
import { type FactorKind, type FactorsLeft, factorsLeft } from "../factors/store";
import { primaryEmail } from "../signup/accounts-store";
import type { OutboundMessage } from "./messages";
import type { Mailer } from "./messaging";

export interface NoticeSender {
  env: Env;
  mailer: Mailer;
  log: Logger;
}

const COOLING_OFF_HOURS = ADDED_ADDRESS_COOLING_OFF_S / 3600;
const LINK_DAYS = DISOWN_TOKEN_TTL_S / (24 * 3600);

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
  await deliver(sender, purpose, async () => {
    const primary = await primaryEmail(env.DB, input.userId);
    if (!primary || primary === input.address) return [];
    const claim = { kind: "email" as const, subjectId: input.addressId, userId: input.userId };
    const token = await signDisownToken(env.OTP_PEPPER, claim);
    const link = `${env.ISSUER}/auth/emails/disown?token=${encodeURIComponent(token)}`;
    const what = input.usableAt
      ? `The address ${input.address} was confirmed on your account. It can sign in and recover the account from ${input.usableAt} (${COOLING_OFF_HOURS} hours after its confirmation), or at once if you make it your primary address.`
      : `The address ${input.address} was added to your account. Once confirmed, it can sign in and recover the account only ${COOLING_OFF_HOURS} hours later.`;
    return [
      {
        to: primary,
        purpose,
        subject: input.usableAt
          ? "An address was confirmed on your account"
          : "An address was added to your account",
        body: `${what} If you did not add it, remove it with this link, which also signs out every session (it works for ${LINK_DAYS} days): ${link}`,
        link,
      },
    ];
  });
}

const ADDED: Record<FactorKind, { subject: string; what: (detail: string) => string }> = {
  totp: {
    subject: "An authenticator app was added to your account",
    what: () => "An authenticator app (TOTP) was added to your account as a sign-in factor.",
  },
  phone: {
    subject: "A phone was added to your account",
    what: (phone) => `The phone ${phone} was added to your account as a sign-in factor.`,
  },
  passkey: {
    subject: "A passkey was added to your account",
    what: (name) => `A passkey${name ? ` (${name})` : ""} was added to your account.`,
  },
  recovery: {
    subject: "New recovery codes were generated for your account",
    what: () =>
      "A new set of recovery codes was generated for your account; the earlier codes no longer work.",
  },
};

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
  await deliver(sender, purpose, async () => {
    const primary = await primaryEmail(env.DB, input.userId);
    if (!primary) return [];
    const claim = { kind: input.kind, subjectId: input.id, userId: input.userId };
    const token = await signDisownToken(env.OTP_PEPPER, claim);
    const link = `${env.ISSUER}/auth/disown?token=${encodeURIComponent(token)}`;
    const added = ADDED[input.kind];
    const pool = input.alsoRecovery ? " A new set of recovery codes was generated with it." : "";
    const undo =
      input.kind === "recovery" ? "void these codes" : "remove it (and any recovery codes generated since)";
    return [
      {
        to: primary,
        purpose,
        subject: input.alsoRecovery ? `${added.subject}, with new recovery codes` : added.subject,
        body: `${added.what(input.detail ?? "")}${pool} If this was not you, ${undo} with this link, which also signs out every session (it works for ${LINK_DAYS} days): ${link} Then change your password.`,
        link,
      },
    ];
  });
}

const quoted = (passkey: { name: string | null; created_at: string }) =>
  passkey.name ? JSON.stringify(passkey.name) : `an unnamed passkey added ${passkey.created_at.slice(0, 10)}`;

function passkeyList(passkeys: { name: string | null; created_at: string }[]): string {
  return `${passkeys.length} passkey${passkeys.length === 1 ? "" : "s"} (${passkeys.map(quoted).join(", ")})`;
}

/** "Still on your account: …", each factor by kind and name, the phone masked. */
function factorsLeftText(left: FactorsLeft): string {
  const items = [
    ...(left.totp ? ["an authenticator app (TOTP)"] : []),
    ...(left.phone ? [`the phone ${maskPhone(left.phone)}`] : []),
    ...(left.passkeys.length > 0 ? [passkeyList(left.passkeys)] : []),
  ];
  const codes = left.recoveryCodes > 0 ? ` You have ${left.recoveryCodes} unused recovery codes.` : "";
  if (items.length === 0) return `Your account has no second factor and no passkey left.${codes}`;
  return `Still on your account to sign in with: ${items.join("; ")}.${codes}`;
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
    const ended =
      input.endedPasskeys.length > 0
        ? ` The reset removed ${passkeyList(input.endedPasskeys)}, added without a confirmation code sent to your primary address.`
        : "";
    const body = `The password of your account was reset at ${nowIso()} with a code sent to ${input.address}. Every session was signed out.${ended} ${factorsLeftText(left)} If you do not recognise one of them, sign in and remove it on your account page: ${accountPage} If this was not you, reset the password again from your primary address and review the addresses of your account.`;
    return recipients.map((to) => ({
      to,
      purpose: "password_reset_notice" as const,
      subject: "Your password was reset",
      body,
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
