/** What identity sends by e-mail or SMS: the message the mailer, the SMS sender and the dev outbox share. */

/** The `purpose` of a message, as the dev outbox lists it. */
export type MessagePurpose =
  | "email_verify"
  | "email_add"
  | "sensitive_action"
  | "magic_link"
  | "login_mfa"
  | "password_reset"
  | "invitation"
  | "phone_verify"
  | "signup_notice"
  | "email_added_notice"
  | "email_verified_notice"
  | "password_reset_notice"
  | "factor_added_notice"
  | "recovery_codes_notice"
  | "sso_link"
  | "sso_notice"
  | "account_restore"
  | "account_deletion_notice"
  | "integrations_ended_notice";

export interface OutboundMessage {
  to: string;
  purpose: MessagePurpose;
  subject: string;
  body: string;
  code?: string;
  link?: string;
}
