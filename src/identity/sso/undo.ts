/**
 * The one-click undo of a change to an organization's single sign-on (the credential rule, docs/decisions/grant-endings.md). Setting or
 * changing the configuration (owner, step-up) writes, in the change's own batch, an undo whose token is
 * mailed to every owner with the notice. The link puts the configuration back as it was before the change
 * (or removes single sign-on when there was none), and:
 *
 * - works once (a compare-and-set on `used_at` with a random claim, every restoring statement conditioned
 *   on that claim, all in one batch), for `SSO_UNDO_TTL_S`;
 * - is bound to that change: only while the configuration is still the one the change wrote (`config_id`
 *   and `updated_at`); after a later change only that change's own link undoes;
 * - answers the same 404 for an unknown, used, expired, superseded or another organization's token;
 * - ends every SSO session of the organization, the logins and registrations in flight, and the links
 *   made since the change (the provider being undone vouched for them); the owners are told.
 *
 * No session is needed: the token, mailed to an owner's primary address, is the proof (as `/auth/disown`).
 */
import { batch } from "../../lib/sql";
import { isoIn, nowIso, randomToken, sha256Hex } from "../core/crypto";
import type { Env } from "../core/worker-env";
import { fail } from "../errors";
import { grantEndStatements } from "../oauth/endings";
import type { SsoConfigRow } from "./store";
import {
  type Before,
  claimed,
  claimUndoStatement,
  domainsOf,
  endingStatements,
  findLiveUndo,
  insertUndoStatement,
  removalStatement,
  restoreStatements,
} from "./undo-store";

/** How long an undo link works (as the account's disown links). */
export const SSO_UNDO_TTL_S = 7 * 24 * 3600;

/** The configuration and its domains as they are now, to put back; null when there is none. */
export async function snapshot(db: D1Database, before: SsoConfigRow | null): Promise<Before | null> {
  if (!before) return null;
  return { config: before, domains: await domainsOf(db, before.org_id) };
}

/** A new undo: its token (for the link) and the INSERT that rides in the change's batch. */
export async function newUndo(db: D1Database, orgId: string, configId: string, before: Before | null) {
  const token = randomToken(32);
  const hash = await sha256Hex(token);
  const insert = (updatedAt: string) => [
    insertUndoStatement(db, { hash, orgId, configId, updatedAt, before, expiresAt: isoIn(SSO_UNDO_TTL_S) }),
  ];
  return { token, insert };
}

export function undoLink(env: Env, orgId: string, token: string): string {
  const base = env.ISSUER.replace(/\/$/, "");
  return `${base}/auth/sso/undo?org=${encodeURIComponent(orgId)}&token=${encodeURIComponent(token)}`;
}

/**
 * Undoes the change of `orgId`'s SSO that mailed `token`: "restored" (the earlier configuration is back) or
 * "removed" (there was none before). Anything else is 404 `NOT_FOUND`, whatever the reason.
 */
export async function undoSsoChange(env: Env, orgId: string, token: string): Promise<"restored" | "removed"> {
  const db = env.DB;
  const hash = await sha256Hex(token);
  const now = nowIso();
  const row = await findLiveUndo(db, hash, orgId, now);
  if (!row) fail("NOT_FOUND", "No such undo link (it may have been used, expired or been superseded).");
  const before = row.before_json ? (JSON.parse(row.before_json) as Before) : null;
  const nonce = randomToken(16);
  // An undo that puts back an enforcing configuration ends the organization's MCP agents' grants, as
  // turning enforcement on does (admin.ts), only under this request's claim.
  const agents =
    before?.config.enforced === 1
      ? await grantEndStatements(db, { orgId }, { reason: "sso_enforced", guard: claimed(db, hash, nonce) })
      : [];
  const [won] = await batch(db, [
    claimUndoStatement(db, hash, nonce, now),
    ...endingStatements(db, hash, nonce, orgId, row.updated_at),
    ...(before ? restoreStatements(db, hash, nonce, before) : [removalStatement(db, hash, nonce, orgId)]),
    ...agents,
  ]);
  if ((won?.changes ?? 0) === 0) {
    fail("NOT_FOUND", "No such undo link (it may have been used, expired or been superseded).");
  }
  return before ? "restored" : "removed";
}
