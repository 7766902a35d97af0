/**
 * Adding a sign-in factor costs proof in proportion to its power (issue 18, docs/decisions/step-up.md).
 * An account without a factor (no confirmed TOTP, no verified phone, no passkey) enrolls its first TOTP
 * or phone with the access token alone: that is how two-step sign-in gets turned on, and either only
 * adds a check behind the password. A passkey is different: it signs in alone (passkey-first sign-in),
 * so every passkey, the first included, pays the step-up (issue 31). Otherwise an account with a factor
 * pays the step-up (step-up.ts) on the first call of the ceremony, before anything is stored; the
 * ceremony records that it was opened with the proof, and its confirm or finish call, which asks for no
 * second code, completes only if it was (or, for TOTP and phone, the account still has no factor,
 * decided inside the storing write). Every factor added and every recovery-code pool generated tells the
 * primary address at once, with a one-click undo (owner-notices.ts, address-disown.ts).
 */
import { batch } from "../../lib/sql";
import type { Services } from "../core/context";
import type { Env } from "../core/worker-env";
import { fail, problem } from "../errors";
import { callerEvent } from "../events/events";
import { type NoticeSender, noticeFactorAdded } from "../messaging/owner-notices";
import { newRecoveryPool, verifyTotp } from "./factors";
import { requireStepUp } from "./step-up";
import { deletePendingTotp, type FactorKind, findTotp, hasRecoveryPool, hasSignInFactor } from "./store";

/**
 * Each ceremony's step-up operation name (bound into the code like every step-up's) and whether an
 * account without a factor may open it with the access token alone. Never a passkey: a stolen access
 * token that planted one would sign in with it alone, even after the owner reset the password (issue 31).
 */
const ENROLLMENT = {
  totp: { operation: "mfa.totp.add", firstWithoutStepUp: true },
  phone: { operation: "mfa.phone.add", firstWithoutStepUp: true },
  passkey: { operation: "mfa.passkey.add", firstWithoutStepUp: false },
} as const;

/**
 * The proof of a ceremony being opened, to run after every check that can refuse it and before it is
 * stored: false (none needed) for a first TOTP or phone on an account without a factor, true once the
 * step-up code was consumed; otherwise the step-up's 428, 401 CODE_INVALID, 429 or 503 is thrown and
 * nothing is stored.
 */
export function enrollmentProof(
  env: Env,
  services: Services,
  userId: string,
  ceremony: keyof typeof ENROLLMENT,
  stepUpCode: string | undefined,
) {
  const { operation, firstWithoutStepUp } = ENROLLMENT[ceremony];
  return async (): Promise<boolean> => {
    if (firstWithoutStepUp && !(await hasSignInFactor(env.DB, userId))) return false;
    await requireStepUp(env, services, userId, operation, stepUpCode);
    return true;
  };
}

/** Whether a ceremony opened with or without the proof may still complete now. */
export async function mayComplete(env: Env, userId: string, steppedUp: boolean): Promise<boolean> {
  return steppedUp || !(await hasSignInFactor(env.DB, userId));
}

function noticeSender(env: Env, services: Services): NoticeSender {
  return { env, mailer: services.mailer, log: services.log };
}

/** The owner notice of a factor just added or a pool just generated (never fails the request). */
export function tellOwner(
  env: Env,
  services: Services,
  userId: string,
  input: { kind: FactorKind; id: string; detail?: string; alsoRecovery?: boolean },
) {
  return noticeFactorAdded(noticeSender(env, services), { userId, ...input });
}

const NO_PENDING = () => problem("NOT_FOUND", "No pending TOTP enrollment.");

/**
 * Confirms the pending TOTP with a current code; the first confirmation also generates the recovery
 * pool. A pending secret opened without the step-up on an account that has since gained a factor is
 * dropped (404: start again, which asks for the step-up). The owner is told, with an undo.
 */
export async function confirmTotpEnrollment(env: Env, services: Services, userId: string, code: string) {
  const pending = await findTotp(env.DB, userId);
  if (!pending || pending.confirmed_at || !pending.id) throw NO_PENDING();
  if (!(await mayComplete(env, userId, pending.stepped_up === 1))) {
    await deletePendingTotp(env.DB, userId);
    throw NO_PENDING();
  }
  const added = callerEvent(env, services, userId, "factor_added", { method: "totp" }, { ifChanged: true });
  if (!(await verifyTotp(env, userId, code, "pending", added))) {
    fail("MFA_INVALID_CODE", "The TOTP code is invalid.");
  }
  if (await hasRecoveryPool(env.DB, userId)) {
    await tellOwner(env, services, userId, { kind: "totp", id: pending.id });
    return { confirmed: true as const };
  }
  const pool = await newRecoveryPool(env, userId);
  await batch(env.DB, [...pool.statements, callerEvent(env, services, userId, "recovery_codes_generated")]);
  await tellOwner(env, services, userId, { kind: "totp", id: pending.id, alsoRecovery: true });
  return { confirmed: true as const, recovery_codes: pool.codes };
}

/** A new recovery pool (the caller ran the step-up); the owner is told, with a link voiding it. */
export async function generateRecoveryPool(env: Env, services: Services, userId: string) {
  const pool = await newRecoveryPool(env, userId);
  await batch(env.DB, [...pool.statements, callerEvent(env, services, userId, "recovery_codes_generated")]);
  await tellOwner(env, services, userId, { kind: "recovery", id: pool.poolId });
  return pool.codes;
}
