/** Codes e-mailed to whoever holds an address verified (magic-link sign-in, password reset). */
import type { AppContext } from "./context";
import type { OutboundMessage } from "./messages";
import { issueOtp } from "./otp";
import { findVerifiedOwner } from "./store/accounts";

/**
 * Issues a code bound to the active account holding the address verified and e-mails it. The caller
 * answers the same whatever happens here (no account, inactive account, delivery failure) so the answer
 * never reveals whether the address has an account; the outcome goes to the logs only.
 */
export async function mailCodeToActiveOwner(
  c: AppContext,
  address: string,
  input: {
    purpose: "magic_link" | "password_reset";
    message: (code: string) => Pick<OutboundMessage, "subject" | "body" | "link">;
    events: { sent?: string; failed: string; withoutAccount: string };
  },
): Promise<void> {
  const owner = await findVerifiedOwner(c.env.DB, address);
  if (owner?.status !== "active") {
    c.get("log").info(input.events.withoutAccount);
    return;
  }
  try {
    const otp = await issueOtp(c.env, { purpose: input.purpose, target: address, userId: owner.user_id });
    await c.get("services").mailer.send({
      to: address,
      purpose: input.purpose,
      ...input.message(otp.code),
      code: otp.code,
    });
    if (input.events.sent) c.get("log").info(input.events.sent);
  } catch (err) {
    c.get("log").error(input.events.failed, { error: (err as Error).message });
  }
}
