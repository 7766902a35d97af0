/** Password reset by e-mail: the request side (the confirmation sets the password with the code). */
import type { Services } from "../core/context";
import type { Env } from "../core/worker-env";
import { requestOwnerCode } from "../login/owner-codes";

/** Sends a reset code and link to the address's owner in the background; the answer never differs. */
export function requestPasswordReset(env: Env, services: Services, address: string) {
  return requestOwnerCode(env, services, address, {
    purpose: "password_reset",
    message: (code, linkToken) => {
      const link = `${env.ISSUER}/auth/password/reset?email=${encodeURIComponent(address)}&code=${linkToken}`;
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
