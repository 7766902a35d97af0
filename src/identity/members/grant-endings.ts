/**
 * The credential rule (docs/decisions/grant-endings.md): the API keys and webhooks a person created on a site end when the grant that let them create
 * them ends. Triggers (migration 0009) record every removal and role change of an organization or site
 * membership; for each, this module asks the one permission model (src/lib/site-permissions.ts) whether
 * the person still holds `integrations` there and, where they do not, has content end what they created
 * under the grant (`SitesRpc.endMemberGrants`, relayed to content: identity binds only sites), writes the
 * organization's `integrations_ended` event and mails the owners of the organization and of the sites
 * concerned the list of what ended.
 *
 * The same delivery ends the invitations and transfer offers the person sent that nobody took yet, where
 * they no longer hold `members:manage` (or own the site they invited to): revoked and cancelled, with the
 * organization's events (`sentGrantsEnding`); and the person's MCP agents' grants there whose scopes the
 * role no longer covers (oauth/membership-endings.ts).
 *
 * The member routes and an accepted invitation deliver the person's endings before they answer (so the
 * keys answer 401 at once); the hourly cron delivers whatever is left (a failed call, an erasure, a
 * transfer's ended memberships). A site whose owner changed since the membership was recorded is left to
 * the transfer's carry-over (docs/decisions/transfer-grants.md). Delivery is at least once; content's
 * ending is idempotent and only a call that ended something is told.
 */
import type { EdgeIdentity, OrgMembership, SiteMembership } from "../../lib/edge";
import type { Logger } from "../../lib/log";
import { type EndedIntegrations, type MemberGrantEnding, rpc, type SitesRpc } from "../../lib/rpc";
import { orgRolePermissions, personSitePermissions } from "../../lib/site-permissions";
import { batch } from "../../lib/sql";
import type { Services } from "../core/context";
import type { Env } from "../core/worker-env";
import { orgEvent } from "../events/events";
import type { Mailer } from "../messaging/messaging";
import { membershipGrantEndStatements } from "../oauth/membership-endings";
import {
  endSentGrantsStatements,
  type GrantEndingRow,
  markAttempted,
  markDelivered,
  membershipsIn,
  noticeRecipients,
  pendingGrantEndings,
  pendingSentGrants,
  type SentGrants,
} from "./grant-endings-store";
import { isSiteOwner, orgMembership } from "./store";

/** Endings delivered per cron run (the rest wait for the next run). */
const CRON_BATCH = 100;
/** Endings of one person a route delivers before answering. */
const ROUTE_BATCH = 20;

interface Delivery {
  env: Env;
  mailer: Mailer;
  log: Logger;
}

function asIdentity(userId: string, orgs: OrgMembership[], sites: SiteMembership[]): EdgeIdentity {
  const none = { sessionId: null, operator: null, sessionKind: "staff" as const, verified: true };
  return { userId, orgMemberships: orgs, siteMemberships: sites, ...none };
}

/** Organization scope: nothing ends while the role still grants it; sites the person owns are kept. */
async function orgEnding(env: Env, row: GrantEndingRow, orgId: string): Promise<MemberGrantEnding | null> {
  const { orgs, sites } = await membershipsIn(env.DB, row.user_id, orgId, null);
  if (orgs.some((m) => orgRolePermissions(m).includes("integrations"))) return null;
  const identity = asIdentity(row.user_id, [], sites);
  const except = sites
    .filter((s) => personSitePermissions(identity, { id: s.site_id, org_id: orgId }).has("integrations"))
    .map((s) => s.site_id);
  const base = { user_id: row.user_id, ended_at: row.ended_at };
  return { ...base, scope: "org", org_id: orgId, site_id: null, except_site_ids: except };
}

/** What content is asked to end for the recorded change, or null when nothing of the person's ends. */
async function endingFor(env: Env, row: GrantEndingRow): Promise<MemberGrantEnding | null> {
  if (row.site_id === null) return row.org_id === null ? null : orgEnding(env, row, row.org_id);
  const site = await rpc<SitesRpc>(env.SITES).siteOrg(row.site_id);
  // The site changed owner since: the transfer carried its integrations over (kept only explicitly).
  if (site && row.org_id !== null && site.org_id !== row.org_id) return null;
  const orgId = site?.org_id ?? row.org_id;
  if (orgId) {
    const { orgs, sites } = await membershipsIn(env.DB, row.user_id, orgId, row.site_id);
    const identity = asIdentity(row.user_id, orgs, sites);
    if (personSitePermissions(identity, { id: row.site_id, org_id: orgId }).has("integrations")) return null;
  }
  const base = { user_id: row.user_id, ended_at: row.ended_at, except_site_ids: [] };
  return { ...base, scope: "site", org_id: orgId, site_id: row.site_id };
}

async function tellOwners(d: Delivery, ending: MemberGrantEnding, ended: EndedIntegrations) {
  const siteIds = [...new Set([...ended.api_keys, ...ended.webhooks].map((i) => i.site_id))];
  const { owners, person } = await noticeRecipients(d.env.DB, ending.org_id, siteIds, ending.user_id);
  for (const to of owners) {
    await d.mailer
      .send({
        to,
        purpose: "integrations_ended_notice",
        vars: { who: person ?? undefined, apiKeys: ended.api_keys, webhooks: ended.webhooks },
      })
      .catch((err: unknown) =>
        d.log.error("owner_notice_failed", {
          purpose: "integrations_ended_notice",
          error: (err as Error).message,
        }),
      );
  }
}

/**
 * The invitations and transfer offers the person sent and nobody took yet end when the authority that let
 * them send one ends: `members:manage` in the organization (or, for a site invitation, being the site's
 * owner), as the invitation and transfer routes authorize them. Otherwise a removed administrator's
 * invitation to an accomplice, or offer of a site to an organization of their own, still works after the
 * removal (the credential matrix: `identity.invitation × member_removal`). Only what was sent up to the
 * change ends: what they send after a new grant was granted afresh.
 */
async function sentGrantsEnding(env: Env, row: GrantEndingRow): Promise<SentGrants | null> {
  const { user_id: userId, ended_at: endedAt } = row;
  const org = row.org_id ? await orgMembership(env.DB, row.org_id, userId) : null;
  if (org?.permissions.includes("members:manage")) return null;
  if (row.site_id !== null) {
    if (await isSiteOwner(env.DB, row.site_id, userId)) return null;
    return pendingSentGrants(env.DB, { userId, endedAt, siteId: row.site_id });
  }
  return row.org_id ? pendingSentGrants(env.DB, { userId, endedAt, orgId: row.org_id }) : null;
}

/** The statements ending what `sentGrantsEnding` found, each followed by the organization's event. */
function endSentGrants(env: Env, row: GrantEndingRow, sent: SentGrants | null): D1PreparedStatement[] {
  if (!sent || !row.org_id) return [];
  const orgId = row.org_id;
  const event = (type: "invitation_revoked" | "transfer_cancelled", detail: string) =>
    orgEvent(env.DB, orgId, type, { actorUserId: null, target: row.user_id, detail }, { ifChanged: true });
  return endSentGrantsStatements(env.DB, sent, {
    invitations: event(
      "invitation_revoked",
      `${sent.invitations.length} pending, sent by a former administrator`,
    ),
    transfers: event(
      "transfer_cancelled",
      `${sent.transfers.length} pending, offered by a former administrator`,
    ),
  });
}

async function deliverOne(d: Delivery, row: GrantEndingRow): Promise<void> {
  // The person's MCP agents whose scopes the role no longer covers end first, in a batch of their own
  // (compare-and-set, so a retry ends nothing twice): they do not wait on the sites call below.
  const agents = await membershipGrantEndStatements(d.env.DB, row);
  if (agents.length > 0) await batch(d.env.DB, agents);
  const ending = await endingFor(d.env, row);
  const sent = await sentGrantsEnding(d.env, row);
  const ended: EndedIntegrations = ending
    ? await rpc<SitesRpc>(d.env.SITES).endMemberGrants(ending)
    : { api_keys: [], webhooks: [] };
  const count = ended.api_keys.length + ended.webhooks.length;
  const statements = [markDelivered(d.env.DB, row.id)];
  if (ending?.org_id && count > 0) {
    const detail = `${ended.api_keys.length} API keys, ${ended.webhooks.length} webhooks${ending.site_id ? ` on site ${ending.site_id}` : ""}`;
    const fields = { actorUserId: null, target: row.user_id, detail };
    statements.push(orgEvent(d.env.DB, ending.org_id, "integrations_ended", fields, { ifChanged: true }));
  }
  // After the event above, which is conditioned on the delivery's mark (each event follows its own write).
  statements.push(...endSentGrants(d.env, row, sent));
  await batch(d.env.DB, statements);
  if (ending && count > 0) await tellOwners(d, ending, ended);
}

/**
 * Delivers the pending endings (of `userId` only when given); a failure is logged and counted, and left
 * for the next run. Answers how many were delivered.
 */
export async function deliverGrantEndings(d: Delivery, userId?: string): Promise<number> {
  let delivered = 0;
  for (const row of await pendingGrantEndings(d.env.DB, userId ? ROUTE_BATCH : CRON_BATCH, userId)) {
    try {
      await deliverOne(d, row);
      delivered += 1;
    } catch (err) {
      d.log.warn("grant_ending_failed", { ending_id: row.id, error: (err as Error).message });
      await markAttempted(d.env.DB, row.id).catch(() => undefined);
    }
  }
  return delivered;
}

/**
 * A member route's change, delivered before the route answers: the person's keys answer 401 and their
 * webhooks stop at once. Never fails the change (it is committed): what cannot be delivered now is logged
 * and left to the cron.
 */
export async function endGrantsNow(
  env: Env,
  services: Pick<Services, "mailer" | "log">,
  userId: string,
): Promise<void> {
  const delivery = { env, mailer: services.mailer, log: services.log };
  await deliverGrantEndings(delivery, userId).catch((err: unknown) =>
    delivery.log.warn("grant_endings_deferred", { error: (err as Error).message }),
  );
}
