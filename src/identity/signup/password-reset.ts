/** Password reset by e-mail: the request (a code and link to the address) and the confirmation. */
import { batch } from "../../lib/sql";
import type { Services } from "../core/context";
import type { Env } from "../core/worker-env";
import { fail } from "../errors";
import { callerEvent, eventOrigin } from "../events/events";
import { endPasskeysWithoutStepUpQuery } from "../factors/passkeys-store";
import { clearPasswordGuard, enforceVerifyQuotas } from "../login/guards";
import { requestOwnerCode } from "../login/owner-codes";
import { revokeAllSessionsStatement } from "../login/sessions-store";
import { consumeOtp } from "../messaging/otp";
import { noticePasswordReset } from "../messaging/owner-notices";
import { grantEndStatements } from "../oauth/endings";
import { setPasswordStatements } from "./accounts-store";
import { hashPassword } from "./password";
import { enforcePasswordPolicy } from "./password-policy";

/** Sends a reset code and link to the address's owner in the background; the answer never differs. */
export function requestPasswordReset(env: Env, services: Services, address: string) {
  return requestOwnerCode(env, services, address, {
    purpose: "password_reset",
    link: (linkToken) =>
      `${env.ISSUER}/auth/password/reset?email=${encodeURIComponent(address)}&code=${linkToken}`,
    events: {
      failed: "reset_delivery_failed",
      withoutAccount: "reset_requested_without_account",
      capped: "reset_capped",
    },
  });
}

/**
 * Sets the new password with the reset code (consumed once). One D1 batch: the password and the
 * credential epoch, every code and link voided, every session revoked, and every passkey registered
 * without the step-up ended (issue 31: a stolen access token could add one, and a passkey signs in
 * alone, so the reset that takes the account back must end it), and every MCP agent's grant ended
 * (oauth/endings.ts), each recorded. Then the owner is told
 * what the reset ended and what is still on the account.
 */
export async function confirmPasswordReset(
  env: Env,
  services: Services,
  input: { address: string; code: string; newPassword: string },
) {
  await enforceVerifyQuotas(env, services.request.ip, input.address, input.code);
  await enforcePasswordPolicy(env, services, input.newPassword);
  const hash = await hashPassword(input.newPassword);
  const won = await consumeOtp(env, { purpose: "password_reset", target: input.address, code: input.code });
  if (!won?.userId) fail("CODE_INVALID", "The code is invalid.");
  const userId = won.userId;
  const origin = eventOrigin(services.request);
  const agents = await grantEndStatements(
    env.DB,
    { userId },
    { reason: "password_reset", by: userId, origin },
  );
  const outcomes = await batch(env.DB, [
    ...setPasswordStatements(env.DB, userId, hash),
    revokeAllSessionsStatement(env.DB, userId, "password_reset"),
    callerEvent(env, services, userId, "password_reset"),
    ...agents,
    endPasskeysWithoutStepUpQuery(env.DB, userId),
    callerEvent(
      env,
      services,
      userId,
      "factor_removed",
      { method: "passkey", detail: "ended by the password reset: registered without the step-up" },
      { ifChanged: true },
    ),
  ]);
  const endedPasskeys = outcomes.at(-2)?.rows ?? [];
  await clearPasswordGuard(env, `account|${userId}`);
  await noticePasswordReset(
    { env, mailer: services.mailer, log: services.log },
    { userId, address: input.address, endedPasskeys },
  );
}
