import type { ApiError } from "../../lib/problem";
import type { Services } from "../core/context";
import { maskEmail } from "../core/crypto";
import type { Env } from "../core/worker-env";
import { fail, problem } from "../errors";
import { enforceRateLimit } from "../login/guards";
import { consumeOtp, issueOtp } from "../messaging/otp";
import { primaryEmail } from "../signup/accounts-store";

/**
 * The one step-up protocol of every sensitive operation. Without a code: a `sensitive_action` OTP bound
 * to this account and operation goes to the primary e-mail and the answer is 428 STEP_UP_REQUIRED with
 * the masked destination; nothing is changed. With a code: it is consumed (single use) or the answer is
 * 401 CODE_INVALID. When the code can be neither sent nor checked: 503 STEP_UP_UNAVAILABLE, nothing done.
 * Callers run every check that can refuse the request before this, and the change after it.
 * Sending counts on a per-account quota and checking on the client IP's verify quota and a per-account
 * one (429 RATE_LIMITED): a stolen access token can neither flood the owner's mailbox with codes nor
 * guess without end by asking for fresh ones.
 *
 * Threat and sources: a stolen access token (or an unattended signed-in browser) must not be enough to
 * change what protects the account. NIST SP 800-63B §7.2 (reauthentication) and §4.2.3 ask for a fresh
 * authentication before high-value actions; RFC 9470 (OAuth 2.0 Step Up Authentication Challenge
 * Protocol) is the same idea as a protocol: the resource server refuses with a challenge the client
 * answers with a stronger, fresher proof. Ours answers 428 (RFC 6585 §3: "the origin server requires the
 * request to be conditional") with the proof sent out of band. The code is single use and bound to the
 * operation, so one intercepted code authorizes one action (NIST SP 800-63B §5.1.3.1 on out-of-band
 * secrets: single use, short lived, rate limited per §5.2.2).
 */
/** How to repeat the request with the code: a header everywhere but the primary change (the spec's body `code`). */
function repeatWith(operation: string): string {
  const where = operation === "emails.primary" ? "the body field code" : "the X-Step-Up-Code header";
  return `repeat the same request with the code in ${where}.`;
}

export async function requireStepUp(
  env: Env,
  services: Services,
  userId: string,
  operation: string,
  code: string | undefined | null,
) {
  let address: string | null;
  try {
    address = await primaryEmail(env.DB, userId);
  } catch (err) {
    throw unavailable(err);
  }
  if (!address) fail("STEP_UP_UNAVAILABLE", "No address to send a code to.");

  if (code === undefined || code === null || code === "") {
    await enforceRateLimit(env, "step_up_send", userId);
    try {
      const otp = await issueOtp(env, {
        purpose: "sensitive_action",
        target: address,
        userId,
        context: operation,
      });
      await services.mailer.send({
        to: address,
        purpose: "sensitive_action",
        code: otp.code,
      });
    } catch (err) {
      throw unavailable(err);
    }
    fail("STEP_UP_REQUIRED", {
      detail: `A confirmation code was sent to ${maskEmail(address)}; ${repeatWith(operation)}`,
      details: { channel: "email", sent_to: maskEmail(address) },
    });
  }

  await enforceRateLimit(env, "verify_ip", services.request.ip);
  await enforceRateLimit(env, "step_up_verify_user", userId);
  let ok: boolean;
  try {
    ok =
      (await consumeOtp(env, {
        purpose: "sensitive_action",
        target: address,
        code,
        userId,
        context: operation,
      })) !== null;
  } catch (err) {
    throw unavailable(err);
  }
  if (!ok) fail("CODE_INVALID", "The confirmation code is invalid.");
}

function unavailable(err: unknown): ApiError {
  return problem("STEP_UP_UNAVAILABLE", {
    detail: "The confirmation code could not be sent or checked; nothing was changed.",
    reason: `step-up unavailable: ${(err as Error)?.message}`,
  });
}
