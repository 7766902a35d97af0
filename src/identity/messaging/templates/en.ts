/** The English templates: one per message kind (the texts the tests and the dev outbox know). */
import { ADDED_ADDRESS_COOLING_OFF_S, DISOWN_TOKEN_TTL_S } from "../../core/config";
import type { FactorsLeftRef, PasskeyRef, SsoNoticeKind } from "../messages";
import type { Templates } from "./template";

const COOLING_OFF_HOURS = ADDED_ADDRESS_COOLING_OFF_S / 3600;
const LINK_DAYS = DISOWN_TOKEN_TTL_S / (24 * 3600);

const quoted = (p: PasskeyRef) =>
  p.name ? JSON.stringify(p.name) : `an unnamed passkey added ${p.created_at.slice(0, 10)}`;

function passkeyList(passkeys: PasskeyRef[]): string {
  return `${passkeys.length} passkey${passkeys.length === 1 ? "" : "s"} (${passkeys.map(quoted).join(", ")})`;
}

/** "Still on your account: …", each factor by kind and name, the phone masked. */
function factorsLeftText(left: FactorsLeftRef): string {
  const items = [
    ...(left.totp ? ["an authenticator app (TOTP)"] : []),
    ...(left.phone ? [`the phone ${left.phone}`] : []),
    ...(left.passkeys.length > 0 ? [passkeyList(left.passkeys)] : []),
  ];
  const codes = left.recoveryCodes > 0 ? ` You have ${left.recoveryCodes} unused recovery codes.` : "";
  if (items.length === 0) return `Your account has no second factor and no passkey left.${codes}`;
  return `Still on your account to sign in with: ${items.join("; ")}.${codes}`;
}

const FACTOR = {
  totp: {
    subject: "An authenticator app was added to your account",
    what: () => "An authenticator app (TOTP) was added to your account as a sign-in factor.",
  },
  phone: {
    subject: "A phone was added to your account",
    what: (phone: string) => `The phone ${phone} was added to your account as a sign-in factor.`,
  },
  passkey: {
    subject: "A passkey was added to your account",
    what: (name: string) => `A passkey${name ? ` (${name})` : ""} was added to your account.`,
  },
};

const SSO: Record<SsoNoticeKind, string> = {
  set: "Single sign-on was set up for your organization",
  changed: "The single sign-on of your organization was changed",
  removed: "Single sign-on was removed from your organization; its SSO sessions ended",
  break_glass: "An owner signed in to your organization without its single sign-on (break-glass)",
  undone:
    "A change to the single sign-on of your organization was undone by its e-mailed link; its SSO sessions ended",
};

const notMe = (undo: string) =>
  `If this was not you, ${undo} with this link, which also signs out every session (it works for ${LINK_DAYS} days):`;

export const en: Templates = {
  email_verify: ({ code }) => ({
    subject: "Confirm your e-mail address",
    paragraphs: [`Your confirmation code is ${code}. If you did not sign up, ignore this message.`],
  }),
  email_add: ({ code }) => ({
    subject: "Confirm your new e-mail address",
    paragraphs: [`Your confirmation code is ${code}. It expires in 10 minutes.`],
  }),
  sensitive_action: ({ code }) => ({
    subject: "Confirm a sensitive change",
    paragraphs: [
      `Your confirmation code is ${code}. It expires in 10 minutes. If you did not ask for it, change your password.`,
    ],
  }),
  magic_link: ({ code, link }) => ({
    subject: "Your sign-in link",
    paragraphs: [
      `Sign in with code ${code} or open ${link}. It expires in 15 minutes. If you did not ask for it, ignore this message.`,
    ],
    action: "Sign in",
  }),
  login_mfa: ({ code }) => ({
    subject: "Your sign-in code",
    paragraphs: [`Your sign-in code is ${code}. It expires in 10 minutes.`],
  }),
  password_reset: ({ code, link }) => ({
    subject: "Reset your password",
    paragraphs: [
      `Your password reset code is ${code}, or open ${link}. It expires in 30 minutes. If you did not ask for it, ignore this message.`,
    ],
    action: "Reset your password",
  }),
  invitation: ({ vars, link }) => {
    const where = vars.site ? `the site ${vars.site} of ${vars.org}` : `the organization ${vars.org}`;
    const by = vars.inviter ? `${vars.inviter} invited you` : "You are invited";
    return {
      subject: vars.site ? `You are invited to ${vars.site}` : `You are invited to ${vars.org}`,
      paragraphs: [
        `${by} to join ${where} as ${vars.role}.`,
        `Accept the invitation within 7 days: ${link}`,
        "If you did not expect this invitation, ignore this message.",
      ],
      action: "Accept the invitation",
    };
  },
  phone_verify: ({ code }) => ({
    subject: "Phone verification",
    paragraphs: [`Your verification code is ${code}.`],
  }),
  signup_notice: () => ({
    subject: "Someone tried to sign up with your address",
    paragraphs: [
      "An account with this address already exists. Sign in, or reset your password if you forgot it.",
    ],
  }),
  email_added_notice: ({ vars, link }) => ({
    subject: "An address was added to your account",
    paragraphs: [
      `The address ${vars.address} was added to your account. Once confirmed, it can sign in and recover the account only ${COOLING_OFF_HOURS} hours later.`,
      `If you did not add it, remove it with this link, which also signs out every session (it works for ${LINK_DAYS} days): ${link}`,
    ],
    action: "Remove this address",
  }),
  email_verified_notice: ({ vars, link }) => ({
    subject: "An address was confirmed on your account",
    paragraphs: [
      `The address ${vars.address} was confirmed on your account. It can sign in and recover the account from ${vars.usableAt} (${COOLING_OFF_HOURS} hours after its confirmation), or at once if you make it your primary address.`,
      `If you did not add it, remove it with this link, which also signs out every session (it works for ${LINK_DAYS} days): ${link}`,
    ],
    action: "Remove this address",
  }),
  password_reset_notice: ({ vars, link }) => {
    const ended =
      vars.ended.length > 0
        ? ` The reset removed ${passkeyList(vars.ended)}, added without a confirmation code sent to your primary address.`
        : "";
    return {
      subject: "Your password was reset",
      paragraphs: [
        `The password of your account was reset at ${vars.at} with a code sent to ${vars.via}. Every session was signed out.${ended}`,
        `${factorsLeftText(vars.left)} If you do not recognise one of them, sign in and remove it on your account page: ${link}`,
        "If this was not you, reset the password again from your primary address and review the addresses of your account.",
      ],
      action: "Open your account page",
    };
  },
  factor_added_notice: ({ vars, link }) => {
    const added = FACTOR[vars.kind];
    const pool = vars.alsoRecovery ? " A new set of recovery codes was generated with it." : "";
    return {
      subject: vars.alsoRecovery ? `${added.subject}, with new recovery codes` : added.subject,
      paragraphs: [
        `${added.what(vars.detail ?? "")}${pool}`,
        `${notMe("remove it (and any recovery codes generated since)")} ${link} Then change your password.`,
      ],
      action: "Remove it and sign out everywhere",
    };
  },
  recovery_codes_notice: ({ link }) => ({
    subject: "New recovery codes were generated for your account",
    paragraphs: [
      "A new set of recovery codes was generated for your account; the earlier codes no longer work.",
      `${notMe("void these codes")} ${link} Then change your password.`,
    ],
    action: "Void these codes and sign out everywhere",
  }),
  sso_link: ({ code }) => ({
    subject: "Confirm single sign-on for your account",
    paragraphs: [
      `Your code is ${code}. It links your account to your organization's single sign-on and expires in 15 minutes. If you did not sign in through your organization, ignore this message.`,
    ],
  }),
  sso_notice: ({ vars, link }) => ({
    subject: SSO[vars.kind],
    paragraphs: [
      `${SSO[vars.kind]} (${vars.owner}). If this was not one of the owners, ${
        vars.undoDays
          ? `undo it with this link, which puts the earlier configuration back (or removes single sign-on if there was none) and ends every SSO session (it works once, for ${vars.undoDays} days, until the next change): ${link} Then review the organization's owners.`
          : "review the organization's single sign-on settings and its members now."
      }`,
    ],
    ...(vars.undoDays ? { action: "Undo this change" } : {}),
  }),
  account_restore: ({ code }) => ({
    subject: "Keep your account",
    paragraphs: [
      `Your code to cancel your account's deletion is ${code}. It expires in 30 minutes. If you did not ask for it, ignore this message.`,
    ],
  }),
  account_deletion_notice: ({ vars }) => {
    switch (vars.kind) {
      case "scheduled":
        return {
          subject: "Your account will be deleted",
          paragraphs: [
            `Your account was scheduled for deletion and every session was signed out. Its personal data will be erased after ${vars.eraseAfter}.`,
            `Until then you can keep it: open ${vars.restorePage} (or call ${vars.cancelOperation}) with this address and the code we e-mail you. If you did not ask for this, cancel now and change your password.`,
          ],
        };
      case "cancelled":
        return {
          subject: "Your account will not be deleted",
          paragraphs: [
            "The deletion of your account was cancelled. Sign in again to use it. If you did not do this, change your password.",
          ],
        };
      case "erased":
        return {
          subject: "Your account was deleted",
          paragraphs: [
            "The grace period of your account's deletion ended: its addresses, phone, second factors, passkeys, sessions and memberships were erased. This is the last message sent to this address about it.",
          ],
        };
    }
  },
  oauth_grant_notice: ({ vars, link }) => ({
    subject: `An AI agent was connected to your account: ${vars.client}`,
    paragraphs: [
      `You let the agent "${vars.client}" (${vars.clientId}; the name is its own claim, not verified) act as you on the site ${vars.site}, with: ${vars.scopes.join(", ")}.`,
      `If this was not you, revoke it with this link, which also signs out every session (it works for ${vars.undoDays} days): ${link} Then change your password. You can also end it on your account page.`,
    ],
    action: "Revoke the agent and sign out everywhere",
  }),
  integrations_ended_notice: ({ vars }) => {
    const keys = vars.apiKeys.map((k) => `API key "${k.name}" (${k.id}) on site ${k.site_id}`);
    const hooks = vars.webhooks.map((w) => `webhook to ${w.url} (${w.id}) on site ${w.site_id}`);
    return {
      subject: "Integrations of a former administrator were ended",
      paragraphs: [
        `${vars.who ?? "a former member"} no longer administers the integrations of your site (removed, role changed, left, or account deleted), so what they created there was ended at once: ${[...keys, ...hooks].join("; ")}.`,
        "Revoked keys answer 401 and deleted webhooks receive nothing more. If an integration is still needed, create a new key or webhook and give it to whoever runs it now.",
      ],
    };
  },
};
