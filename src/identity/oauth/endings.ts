/**
 * What ends an MCP agent's grant besides its person, its site's members and the token endpoint's own
 * detections (issue 37, docs/decisions/oauth-agents.md "Endings"; the registry entry
 * `identity.oauth_grant` in src/identity/credentials.ts): the statements each ending flow puts in its own
 * batch, so the grant ends iff the flow's write commits.
 *
 * - the person's password reset and change, and the account's deletion request (every grant of the person);
 * - the acceptance of a site's transfer (every grant on the site: they were approved under the origin);
 * - an organization turning SSO enforcement on (every grant on its sites: an agent holds no SSO session);
 * - a membership's end or role change (membership-endings.ts, delivered by members/grant-endings.ts from the
 *   change's `member_grant_endings` row): each grant of the person there approved before the change whose
 *   scopes the person's role no longer covers in full. A grant is never narrowed in place: the person connects the agent again under
 *   the role they hold now, so a later promotion does not silently widen an agent approved under another.
 *
 * Each ended grant gets its person's `oauth_grant.revoked` event (method: the reason), conditioned on its
 * own compare-and-set, as the grants' other ends write it (grants.ts).
 */
import type { SQL } from "drizzle-orm";
import { nowIso } from "../core/crypto";
import { type EventOrigin, recordEvent } from "../events/events";
import {
  endGrantStatement,
  endRemainingStatement,
  type GrantEndFields,
  type GrantScope,
  liveGrantsIn,
} from "./endings-store";

export type { GrantScope };

/** No network or browser: an end decided by someone else or by the platform shows neither. */
const NO_ORIGIN: EventOrigin = { ipPrefix: null, userAgent: null };

/**
 * Why a grant ends (`revoked_reason`, the event's `method`): a flow's, or one of grants.ts's ends (the
 * person, a site's member, the client's RFC 7009 revocation, the token endpoint's replay and reuse).
 */
export type FlowEndReason =
  | "person"
  | "site_member"
  | "client"
  | "code_replay"
  | "refresh_reuse"
  | "password_reset"
  | "password_changed"
  | "account_deleted"
  | "site_transferred"
  | "sso_enforced"
  | "membership_ended"
  | "role_changed";

export interface FlowEnding {
  reason: FlowEndReason;
  /** Who ended them (a person's id), or null for the platform's own ends. */
  by?: string | null;
  /** The event's origin: the person's own request only. */
  origin?: EventOrigin;
  /** The flow's own condition (its write won), ANDed into every revocation. */
  guard?: SQL;
}

export type LiveGrant = Awaited<ReturnType<typeof liveGrantsIn>>[number];

/** One grant's compare-and-set and its person's event (written only if this statement ended it). */
export function endOne(db: D1Database, grant: LiveGrant, end: GrantEndFields, ending: FlowEnding) {
  return [
    endGrantStatement(db, grant.id, end, ending.guard),
    recordEvent(
      db,
      ending.origin ?? NO_ORIGIN,
      {
        userId: grant.user_id,
        type: "oauth_grant.revoked",
        method: end.reason,
        actorUserId: end.by,
        target: grant.id,
        detail: `client ${grant.client_id}`,
      },
      { ifChanged: true },
    ),
  ];
}

/**
 * The statements ending every live grant `scope` names, for the flow's batch: per grant its
 * compare-and-set and its event, then a catch-all (no event) for a grant approved between this read and
 * the batch.
 */
export async function grantEndStatements(
  db: D1Database,
  scope: GrantScope,
  ending: FlowEnding,
): Promise<D1PreparedStatement[]> {
  const end: GrantEndFields = { reason: ending.reason, by: ending.by ?? null, at: nowIso() };
  const grants = await liveGrantsIn(db, scope);
  return [
    ...grants.flatMap((grant) => endOne(db, grant, end, ending)),
    endRemainingStatement(db, scope, end, ending.guard),
  ];
}
