/**
 * Leaving (issue 24 §2, docs/decisions/account-life.md). `DELETE /auth/account` (Bearer, step-up) refuses while
 * the account is the last owner of an organization or site; otherwise, in one batch, the account is
 * disabled for DELETION_GRACE_DAYS, every session ends and every code in flight dies, and the primary
 * address is told with the way back: `POST /auth/account/deletion/cancel`, proved by an e-mailed code.
 * A sign-in whose proof succeeded meanwhile answers 403 ACCOUNT_PENDING_DELETION (`refuseInactive`).
 */
import { rpc, type SitesRpc } from "../../lib/rpc";
import { batch } from "../../lib/sql";
import type { Services } from "../core/context";
import { nowIso } from "../core/crypto";
import type { Env } from "../core/worker-env";
import { fail } from "../errors";
import { callerEvent, eventOrigin, recordEvent } from "../events/events";
import { enforceRateLimit, enforceVerifyQuotas, hitRateLimit } from "../login/guards";
import type { TemplateVars } from "../messaging/messages";
import type { Mailer } from "../messaging/messaging";
import { consumeOtp, issueOtp } from "../messaging/otp";
import { grantEndStatements } from "../oauth/endings";
import { deletionPending } from "../oauth/endings-store";
import { findVerifiedOwner, primaryEmail } from "../signup/accounts-store";
import {
  cancelDeletionStatements,
  cancellableDeletion,
  DELETION_GRACE_DAYS,
  deletionOf,
  lastOwnerships,
  requestDeletionStatements,
} from "./deletion-store";

/** The operation that cancels a deletion during its grace period (named in answers and e-mails). */
export const CANCEL_OPERATION = "POST /api/v1/auth/account/deletion/cancel";

const DAY_MS = 24 * 3600 * 1000;

/** Site names for the 409; a site the registry does not name (or a registry down) keeps only its id. */
async function namedSites(env: Env, ids: string[]) {
  if (ids.length === 0) return [];
  const names = new Map<string, string>();
  try {
    for (const s of await rpc<SitesRpc>(env.SITES).siteNames(ids)) names.set(s.id, s.name);
  } catch {
    // The refusal stands without the names.
  }
  return ids.map((id) => ({ id, name: names.get(id) ?? null }));
}

/** 409 LAST_ORG_OWNER / LAST_SITE_OWNER with the names, when the account is the last owner of any. */
async function refuseLastOwner(env: Env, userId: string) {
  const { orgs, siteIds } = await lastOwnerships(env.DB, userId);
  const sites = await namedSites(env, siteIds);
  const details = { orgs: orgs.map((o) => ({ id: o.id, name: o.name })), sites };
  if (orgs.length > 0) {
    fail("LAST_ORG_OWNER", {
      detail: `The account is the last owner of ${orgs.map((o) => o.name).join(", ")}: name another owner first.`,
      details,
    });
  }
  if (sites.length > 0) {
    fail("LAST_SITE_OWNER", {
      detail: `The account is the last owner of ${sites.map((s) => s.name ?? s.id).join(", ")}: name another owner first.`,
      details,
    });
  }
}

/** Checks that may refuse before the step-up is asked for (no code is spent on a refused deletion). */
export async function checkDeletable(env: Env, userId: string) {
  await refuseLastOwner(env, userId);
}

/** The request, after the step-up: one batch; the last-owner rule is evaluated again inside it. */
export async function requestDeletion(env: Env, services: Services, userId: string) {
  const address = await primaryEmail(env.DB, userId);
  const now = nowIso();
  const eraseAfter = new Date(Date.parse(now) + DELETION_GRACE_DAYS * DAY_MS).toISOString();
  const event = callerEvent(env, services, userId, "account_deletion_requested", {}, { ifChanged: true });
  // Its MCP agents' grants end with its sessions, only once the deletion is pending (oauth/endings.ts).
  const agents = await grantEndStatements(
    env.DB,
    { userId },
    {
      reason: "account_deleted",
      by: userId,
      origin: eventOrigin(services.request),
      guard: deletionPending(env.DB, userId),
    },
  );
  const [inserted] = await batch(env.DB, [
    ...requestDeletionStatements(env.DB, userId, { now, eraseAfter }, event),
    ...agents,
  ]);
  if ((inserted?.changes ?? 0) === 0) {
    // Lost to a concurrent request of the same account (then it is pending: the same answer), or an
    // ownership that changed since the check.
    const pending = await deletionOf(env.DB, userId);
    if (pending && !pending.erased_at) return { erase_after: pending.erase_after, cancel: CANCEL_OPERATION };
    await refuseLastOwner(env, userId);
    fail("LOOKUP_FAILED", "The deletion could not be recorded; nothing changed.");
  }
  if (address) {
    await tell(services.mailer, services.log, address, {
      kind: "scheduled",
      eraseAfter,
      restorePage: `${env.ISSUER}/auth/account/restore`,
      cancelOperation: CANCEL_OPERATION,
    });
  }
  return { erase_after: eraseAfter, cancel: CANCEL_OPERATION };
}

/** A notice to the primary address; never fails the change it tells of (logged instead). */
export async function tell(
  mailer: Mailer,
  log: { error: (event: string, fields?: Record<string, unknown>) => void },
  to: string,
  vars: TemplateVars["account_deletion_notice"],
) {
  try {
    await mailer.send({ to, purpose: "account_deletion_notice", vars });
  } catch (err) {
    log.error("account_deletion_notice_failed", { error: (err as Error).message });
  }
}

/**
 * The refusal of a sign-in whose proof succeeded on an account that is not active and not locked: 403
 * ACCOUNT_PENDING_DELETION (with the cancel operation and the end of the grace) when its deletion is
 * pending, else the disabled account's 403 FORBIDDEN. Called only after the password, passkey or
 * e-mailed code matched, so it tells nothing to whoever lacks them.
 */
export async function refuseInactive(db: D1Database, userId: string): Promise<never> {
  const pending = await deletionOf(db, userId);
  if (pending && !pending.erased_at) {
    fail("ACCOUNT_PENDING_DELETION", {
      detail: `This account is scheduled for deletion after ${pending.erase_after}. To keep it, cancel the deletion with a code sent to its address (the page /auth/account/restore, or ${CANCEL_OPERATION}), then sign in.`,
      details: { erase_after: pending.erase_after, cancel: CANCEL_OPERATION },
    });
  }
  fail("FORBIDDEN", "This account is disabled.");
}

/**
 * The cancel's first call (no code): the answer is the same whoever asks; in the background, a code goes
 * to the address only when it is a usable verified address of an account whose deletion can still be
 * cancelled. Counted per client and per pair of address and client, like the magic link.
 */
export async function requestCancelCode(env: Env, services: Services, address: string) {
  const { ip } = services.request;
  await enforceRateLimit(env, "restore_ip", ip);
  await enforceRateLimit(env, "restore_pair", `${address}|${ip}`);
  const { log, mailer } = services;
  const work = (async () => {
    const owner = await findVerifiedOwner(env.DB, address);
    if (!owner || !(await cancellableDeletion(env.DB, owner.user_id, nowIso()))) {
      log.info("deletion_cancel_without_pending");
      return;
    }
    // The address-wide silent cap of owner codes: strangers from many clients cannot mail-bomb it.
    if (!(await hitRateLimit(env, "owner_code_mail", `account_restore|${address}`))) {
      log.warn("deletion_cancel_capped");
      return;
    }
    const otp = await issueOtp(env, { purpose: "account_restore", target: address, userId: owner.user_id });
    await mailer.send({
      to: address,
      purpose: "account_restore",
      code: otp.code,
    });
  })().catch((err: unknown) => log.error("deletion_cancel_code_failed", { error: (err as Error).message }));
  services.waitUntil(work);
}

/**
 * The cancel's second call: the code (single use, attempt-limited) proves the mailbox; the account is
 * active again (its sessions stay ended: the owner signs in anew) and the primary address is told.
 * Every failure, a grace period that ended meanwhile included, is the same 401 CODE_INVALID.
 */
export async function cancelDeletion(env: Env, services: Services, address: string, code: string) {
  await enforceVerifyQuotas(env, services.request.ip, address, code);
  const won = await consumeOtp(env, { purpose: "account_restore", target: address, code });
  if (!won?.userId) fail("CODE_INVALID", "The code is invalid.");
  const userId = won.userId;
  const event = recordEvent(
    env.DB,
    eventOrigin(services.request),
    { userId, type: "account_deletion_cancelled" },
    { ifChanged: true },
  );
  const [removed] = await batch(env.DB, cancelDeletionStatements(env.DB, userId, nowIso(), event));
  if ((removed?.changes ?? 0) === 0) fail("CODE_INVALID", "The code is invalid.");
  const primary = await primaryEmail(env.DB, userId);
  if (primary) {
    await tell(services.mailer, services.log, primary, { kind: "cancelled" });
  }
}
