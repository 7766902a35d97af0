/**
 * What single sign-on changes in the memberships the edge sets (issue 24 §1; docs/decisions/sso.md):
 * - a session signed in through an organization's provider carries that organization only (and the
 *   site memberships it owns): the provider's proof is that organization's, not the account's;
 * - an organization that enforces SSO is dropped from every other session, except an owner's signed in
 *   with password and a second factor (break-glass): kept, recorded once per session, every owner told.
 */
import type { orgSso } from "../../../schema/identity";
import type { Row } from "../../lib/rows";
import type { Outcome } from "../../lib/sql";
import { nowIso } from "../core/crypto";
import type { Env } from "../core/worker-env";
import { createMailer } from "../messaging/messaging";
import { insertBreakGlass, type SsoSessionFactRow } from "./enforcement-store";
import { noticeOwners } from "./notices";

export interface SsoFacts {
  /** The organization whose provider signed this session in (null: another way). */
  ssoOrg: string | null;
  /** The session's sign-in method (`sessions.auth_method`). */
  method: string | null;
  familyId: string | null;
  /** The caller's organizations that enforce SSO. */
  enforced: string[];
}

/** What `ssoFactQueries` (sso/enforcement-store.ts) read, as the membership rule takes it. */
export function ssoFacts(
  session: Outcome<SsoSessionFactRow> | undefined,
  enforced: Outcome<Row<typeof orgSso, "org_id">> | undefined,
): SsoFacts {
  const row = session?.rows[0];
  return {
    ssoOrg: row?.sso_org ?? null,
    method: row?.auth_method ?? null,
    familyId: row?.family_id ?? null,
    enforced: (enforced?.rows ?? []).map((r) => r.org_id),
  };
}

/** Password plus a second factor (the phased login's `password_<factor>`, the one-step `password_totp`). */
function isBreakGlassMethod(method: string | null): boolean {
  return method?.startsWith("password_") === true;
}

/**
 * The organizations this session may carry: `allowed(orgId)`; `breakGlass` lists the enforcing
 * organizations kept only because an owner signed in with password and a second factor.
 */
export function ssoOrgRule(facts: SsoFacts, ownerOf: (orgId: string) => boolean) {
  const breakGlass: string[] = [];
  const dropped = new Set<string>();
  for (const orgId of facts.enforced) {
    if (facts.ssoOrg === orgId) continue;
    if (ownerOf(orgId) && isBreakGlassMethod(facts.method)) breakGlass.push(orgId);
    else dropped.add(orgId);
  }
  const allowed = (orgId: string | null) =>
    facts.ssoOrg !== null ? orgId === facts.ssoOrg : orgId === null || !dropped.has(orgId);
  return { allowed, breakGlass };
}

/** Records a break-glass sign-in once per session family and organization, and tells every owner. */
export async function recordBreakGlass(env: Env, facts: SsoFacts, userId: string, orgIds: string[]) {
  if (!facts.familyId) return;
  for (const orgId of orgIds) {
    if (await insertBreakGlass(env.DB, facts.familyId, orgId, userId, nowIso()))
      await noticeOwners(env, createMailer(env), orgId, "break_glass", () => {});
  }
}
