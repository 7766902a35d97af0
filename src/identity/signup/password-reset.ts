/** Password reset by e-mail: the request side (the confirmation sets the password with the code). */
import type { AppContext } from "../core/context";
import { requestOwnerCode } from "../login/owner-codes";

/** Sends a reset code and link to the address's owner in the background; the answer never differs. */
export function requestPasswordReset(c: AppContext, address: string) {
  return requestOwnerCode(c, address, {
    purpose: "password_reset",
    message: (code, linkToken) => {
      const link = `${c.env.ISSUER}/auth/password/reset?email=${encodeURIComponent(address)}&code=${linkToken}`;
      return {
        subject: "Reset your password",
        body: `Your password reset code is ${code}, or open ${link}. It expires in 30 minutes. If you did not ask for it, ignore this message.`,
        link,
      };
    },
    events: {
      failed: "reset_delivery_failed",
      withoutAccount: "reset_requested_without_account",
      capped: "reset_capped",
    },
  });
}
