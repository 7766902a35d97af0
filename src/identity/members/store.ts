/**
 * Organization and site memberships. Owner-ness is the structural `is_system` attribute of the role,
 * never its name, so a custom role cannot pose as an owner. Queries go through drizzle's query builder; the
 * owner rules are written once, as SQL fragments (`ownerRoleSql`, `keepsAnOwnerSql`), which the raw
 * statements of other stores (an invitation's acceptance, an account's deletion, the grant endings) embed
 * and the builder's queries take through `fragment` (src/lib/sql.ts).
 */
import { and, asc, eq, isNull, notExists, or, type SQL, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { type AnySQLiteColumn, alias } from "drizzle-orm/sqlite-core";
import { emailAddresses, orgMemberships, orgs, roles, siteMemberships } from "../../../schema/identity";
import { batch, fragment, prepared } from "../../lib/sql";
import { nowIso } from "../core/crypto";

type Scope = "org" | "site";

const TABLE = { org: "org_memberships", site: "site_memberships" } as const;
const SCOPE_COLUMN = { org: "org_id", site: "site_id" } as const;

/** The row names the owner guards are written with: the membership tables and their aliases, invitations. */
export type RowAlias = (typeof TABLE)[Scope] | "m" | "sm" | "invitations";
/** A bound parameter of the statement a guard goes into (`?1`, `?4`…), never a value. */
type Param = `?${number}`;

/**
 * SQL fragment: the row `alias` (a membership, or an invitation: any row with `role` and `org_id`) names an
 * owner (is_system) role of the scope.
 */
export function ownerRoleSql(scope: Scope, alias: RowAlias): string {
  return `EXISTS (SELECT 1 FROM roles r WHERE r.scope = '${scope}' AND r.is_system = 1 AND r.slug = ${alias}.role
                  AND (r.org_id IS NULL OR r.org_id = ${alias}.org_id))`;
}

/** `ownerRoleSql` for the query builder: the same SQL, over the row `alias` of the builder's query. */
export function ownerRole(scope: Scope, alias: RowAlias): SQL {
  return fragment(ownerRoleSql(scope, alias));
}

/**
 * SQL condition: the account `userSql` has asked for its deletion and is in its grace period (issue 24:
 * its memberships go at the erasure, so it never counts as the owner that remains).
 */
export function pendingDeletionSql(userSql: string): string {
  return `${userSql} IN (SELECT d.user_id FROM account_deletions d WHERE d.erased_at IS NULL)`;
}

/**
 * SQL condition on the membership row being changed or removed: it is not an owner, or another owner of
 * the same organization or site remains (an account pending deletion is no such owner). Evaluated inside
 * the UPDATE or DELETE itself, so two concurrent demotions of the last two owners cannot both pass.
 */
function anotherOwnerRemainsSql(scope: Scope, scopeParam: Param, userParam: Param): string {
  const table = TABLE[scope];
  return `(NOT ${ownerRoleSql(scope, table)}
           OR (SELECT COUNT(*) FROM ${table} m WHERE m.${SCOPE_COLUMN[scope]} = ${scopeParam}
                 AND m.user_id != ${userParam} AND ${ownerRoleSql(scope, "m")}
                 AND NOT ${pendingDeletionSql("m.user_id")}) > 0)`;
}

/**
 * `anotherOwnerRemainsSql` for the query builder, on the membership row of `userId` in organization or site
 * `scopeId` being changed or removed: the same SQL, its two parameters bound.
 */
function anotherOwnerRemains(scope: Scope, scopeId: string, userId: string): SQL {
  return fragment(anotherOwnerRemainsSql(scope, "?1", "?2"), scopeId, userId);
}

/**
 * SQL condition for a write that gives user `userParam` a role in the organization or site `scopeParam`
 * other than by an UPDATE of the membership row (an invitation's acceptance upserts it): the user holds
 * no membership there yet, the new role is an owner role (`toOwnerSql`), or another owner remains. The
 * same guard as `changeOrgRole`/`changeSiteRole`, for the write's own statement to evaluate.
 */
export function keepsAnOwnerSql(
  scope: Scope,
  scopeParam: Param,
  userParam: Param,
  toOwnerSql: string,
): string {
  const table = TABLE[scope];
  return `NOT EXISTS (SELECT 1 FROM ${table} WHERE ${table}.${SCOPE_COLUMN[scope]} = ${scopeParam}
            AND ${table}.user_id = ${userParam}
            AND NOT (${toOwnerSql} OR ${anotherOwnerRemainsSql(scope, scopeParam, userParam)}))`;
}

export interface OrgMember {
  role: string;
  isOwner: boolean;
  permissions: string[];
}

export async function orgMembership(
  db: D1Database,
  orgId: string,
  userId: string,
): Promise<OrgMember | null> {
  const m = orgMemberships;
  const row = await drizzle(db)
    .select({
      role: m.role,
      is_system: sql<number>`COALESCE(${roles.is_system}, 0)`,
      permissions: sql<string>`COALESCE(${roles.permissions}, '[]')`,
    })
    .from(m)
    .leftJoin(
      roles,
      and(
        eq(roles.scope, "org"),
        eq(roles.slug, m.role),
        or(isNull(roles.org_id), eq(roles.org_id, m.org_id)),
      ),
    )
    .where(and(eq(m.org_id, orgId), eq(m.user_id, userId)))
    .get();
  if (!row) return null;
  return {
    role: row.role,
    isOwner: row.is_system === 1,
    permissions: JSON.parse(row.permissions) as string[],
  };
}

/**
 * A member (org or site membership: same columns) with its primary address (LEFT JOIN, so maybe null)
 * and `is_owner`, computed by `ownerRoleSql` (0 or 1).
 */
export type MemberRow = Pick<typeof orgMemberships.$inferSelect, "user_id" | "role" | "created_at"> & {
  address: (typeof emailAddresses.$inferSelect)["address"] | null;
  is_owner: number;
};

/** The members of organization or site `scopeId` (`m` its membership table, `scopeColumn` its id column). */
async function listMembers(
  db: D1Database,
  scope: Scope,
  m: typeof orgMemberships | typeof siteMemberships,
  scopeColumn: AnySQLiteColumn,
  scopeId: string,
  limit: number,
): Promise<{ results: MemberRow[] }> {
  const results = await drizzle(db)
    .select({
      user_id: m.user_id,
      role: m.role,
      created_at: m.created_at,
      address: emailAddresses.address,
      is_owner: sql<number>`${ownerRole(scope, TABLE[scope])}`,
    })
    .from(m)
    .leftJoin(emailAddresses, and(eq(emailAddresses.user_id, m.user_id), eq(emailAddresses.is_primary, 1)))
    .where(eq(scopeColumn, scopeId))
    .orderBy(asc(m.created_at), asc(m.user_id))
    .limit(limit)
    .all();
  return { results };
}

export function listOrgMembers(db: D1Database, orgId: string, limit: number) {
  return listMembers(db, "org", orgMemberships, orgMemberships.org_id, orgId, limit);
}

export function listSiteMembers(db: D1Database, siteId: string, limit: number) {
  return listMembers(db, "site", siteMemberships, siteMemberships.site_id, siteId, limit);
}

/** After an owner change: the titular owner passes to the oldest remaining owner when it no longer is one. */
export function titularFixup(db: D1Database, orgId: string) {
  const d = drizzle(db);
  const m = alias(orgMemberships, "m");
  const oldestOwner = d
    .select({ user_id: m.user_id })
    .from(m)
    .where(and(eq(m.org_id, orgs.id), ownerRole("org", "m")))
    .orderBy(asc(m.created_at), asc(m.user_id))
    .limit(1);
  const titularIsOwner = d
    .select({ one: sql`1` })
    .from(m)
    .where(and(eq(m.org_id, orgs.id), eq(m.user_id, orgs.owner_user_id), ownerRole("org", "m")));
  return prepared(
    db,
    d
      .update(orgs)
      .set({ owner_user_id: sql`(${oldestOwner})` })
      .where(and(eq(orgs.id, orgId), notExists(titularIsOwner))),
  );
}

/** `event` (conditioned on the write before it) rides right after the membership write. */
export async function addOrgMember(
  db: D1Database,
  orgId: string,
  userId: string,
  role: string,
  event?: D1PreparedStatement,
) {
  await batch(db, [
    drizzle(db)
      .insert(orgMemberships)
      .values({ org_id: orgId, user_id: userId, role, created_at: nowIso() })
      .onConflictDoNothing(),
    ...(event ? [event] : []),
    titularFixup(db, orgId),
  ]);
}

/** Changes a member's role; false when that would demote the last owner. */
export async function changeOrgRole(
  db: D1Database,
  orgId: string,
  userId: string,
  role: string,
  toOwner: boolean,
  event?: D1PreparedStatement,
): Promise<boolean> {
  const [update] = await batch(db, [
    drizzle(db)
      .update(orgMemberships)
      .set({ role })
      .where(
        and(
          eq(orgMemberships.org_id, orgId),
          eq(orgMemberships.user_id, userId),
          or(sql`${toOwner ? 1 : 0} = 1`, anotherOwnerRemains("org", orgId, userId)),
        ),
      ),
    ...(event ? [event] : []),
    titularFixup(db, orgId),
  ]);
  // > 0, not === 1: D1 counts the rows the grant-ending triggers (migration 0009) write too.
  return (update?.changes ?? 0) > 0;
}

/** Removes a member; false when nothing was removed (the last owner never leaves). */
export async function removeOrgMember(
  db: D1Database,
  orgId: string,
  userId: string,
  event?: D1PreparedStatement,
): Promise<boolean> {
  const [removed] = await batch(db, [
    drizzle(db)
      .delete(orgMemberships)
      .where(
        and(
          eq(orgMemberships.org_id, orgId),
          eq(orgMemberships.user_id, userId),
          anotherOwnerRemains("org", orgId, userId),
        ),
      ),
    ...(event ? [event] : []),
    titularFixup(db, orgId),
  ]);
  return (removed?.changes ?? 0) > 0;
}

export async function isSiteOwner(db: D1Database, siteId: string, userId: string): Promise<boolean> {
  const sm = siteMemberships;
  const row = await drizzle(db)
    .select({ ok: sql<number>`1` })
    .from(sm)
    .where(and(eq(sm.site_id, siteId), eq(sm.user_id, userId), ownerRole("site", TABLE.site)))
    .get();
  return row !== undefined;
}

async function isSiteMember(db: D1Database, siteId: string, userId: string): Promise<boolean> {
  const row = await drizzle(db)
    .select({ ok: sql<number>`1` })
    .from(siteMemberships)
    .where(and(eq(siteMemberships.site_id, siteId), eq(siteMemberships.user_id, userId)))
    .get();
  return row !== undefined;
}

export type SiteMemberChange = "done" | "not_member" | "last_owner";

export async function changeSiteRole(
  db: D1Database,
  siteId: string,
  userId: string,
  role: string,
  toOwner: boolean,
  event?: D1PreparedStatement,
): Promise<SiteMemberChange> {
  const update = drizzle(db)
    .update(siteMemberships)
    .set({ role })
    .where(
      and(
        eq(siteMemberships.site_id, siteId),
        eq(siteMemberships.user_id, userId),
        or(sql`${toOwner ? 1 : 0} = 1`, anotherOwnerRemains("site", siteId, userId)),
      ),
    );
  const [res] = await batch(db, event ? [update, event] : [update]);
  if ((res?.changes ?? 0) > 0) return "done";
  return (await isSiteMember(db, siteId, userId)) ? "last_owner" : "not_member";
}

export async function removeSiteMember(
  db: D1Database,
  siteId: string,
  userId: string,
  event?: D1PreparedStatement,
): Promise<SiteMemberChange> {
  const remove = drizzle(db)
    .delete(siteMemberships)
    .where(
      and(
        eq(siteMemberships.site_id, siteId),
        eq(siteMemberships.user_id, userId),
        anotherOwnerRemains("site", siteId, userId),
      ),
    );
  const [res] = await batch(db, event ? [remove, event] : [remove]);
  if ((res?.changes ?? 0) !== 0) return "done";
  return (await isSiteMember(db, siteId, userId)) ? "last_owner" : "not_member";
}
