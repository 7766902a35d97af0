/**
 * The operator console's sites operations (spec: Platform operator console): the cross-tenant list, the
 * detail in any state, the lifecycle transitions (site/lifecycle.ts) and the purge. Plain input, plain data;
 * the routes (operator/sites-routes.ts) parse HTTP and check the capability (operator/gate.ts).
 */
import { z } from "@hono/zod-openapi";
import { newId, parseId } from "../../lib/ids";
import type { ApiError } from "../../lib/problem";
import type { Services } from "../core/app-env";
import { LOST, untilSwapped } from "../core/compare-and-swap";
import { fail, problem } from "../errors";
import { canonicalHost } from "../health/domains";
import { provedHostsOf, provedHostsOfSites } from "../health/domains-store";
import {
  countsAgainstLimit,
  isSiteStatus,
  SITE_STATUSES,
  type Transition,
  transitionTarget,
} from "../site/lifecycle";
import { aliasesOf, hostsOf, SiteSchema } from "../site/record";
import { afterWrite, invalidateSiteCaches } from "../site/service";
import { getSite, type SiteRow } from "../site/store";
import { pushSiteToContent } from "../site/sync";
import type { Operator } from "./gate";
import { idOrderKey, keyAsUuid } from "./id-order";
import {
  insertAuditRow,
  type KeyedSiteRow,
  listPlatformSites,
  purgeSiteRows,
  writeTransition,
} from "./store";

export const MAX_SEARCH_CHARS = 128;
export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 200;
export const MAX_REASON_CHARS = 500;
/** Compare-and-swap rounds before a transition or purge gives up under constant concurrent change. */
const MAX_ATTEMPTS = 5;

/** The console's list row: the site record's identity and lifecycle fields (never its settings). */
export const PlatformSiteSchema = SiteSchema.pick({
  id: true,
  org_id: true,
  name: true,
  slug: true,
  primary_domain: true,
  canonical_host: true,
  status_reason: true,
  status_changed_at: true,
  created_at: true,
})
  .extend({ status: z.string().openapi({ description: `One of ${SITE_STATUSES.join(", ")}` }) })
  .openapi("PlatformSite");

export const PlatformSiteDetailSchema = PlatformSiteSchema.extend({
  previous_status: z.string().nullable(),
  default_language: z.string(),
  updated_at: z.string(),
  domains: z.object({
    primary: z.string().nullable(),
    aliases: z.array(z.string()),
    canonical_host: z.string(),
  }),
}).openapi("PlatformSiteDetail");

export const PlatformSiteListSchema = z
  .object({
    items: z.array(PlatformSiteSchema),
    next_cursor: z
      .string()
      .nullable()
      .openapi({ description: "A UUID: pass it as `cursor` for the next page; null on the last page" }),
  })
  .openapi("PlatformSiteList");

export type PlatformSite = z.infer<typeof PlatformSiteSchema>;
export type PlatformSiteDetail = z.infer<typeof PlatformSiteDetailSchema>;

function badRequest(detail: string): ApiError {
  return problem("BAD_REQUEST", { detail });
}

function toPlatformSite(row: SiteRow, platformDomain: string, proved: ReadonlySet<string>): PlatformSite {
  return {
    id: row.id,
    org_id: row.org_id,
    name: row.name,
    slug: row.slug,
    primary_domain: row.primary_domain,
    canonical_host: canonicalHost(row, platformDomain, proved),
    status: row.status,
    status_reason: row.status_reason,
    status_changed_at: row.status_changed_at,
    created_at: row.created_at,
  };
}

function toPlatformSiteDetail(
  row: SiteRow,
  platformDomain: string,
  proved: ReadonlySet<string>,
): PlatformSiteDetail {
  const listed = toPlatformSite(row, platformDomain, proved);
  return {
    ...listed,
    previous_status: row.previous_status,
    default_language: row.default_language,
    updated_at: row.updated_at,
    domains: {
      primary: row.primary_domain,
      aliases: aliasesOf(row),
      canonical_host: listed.canonical_host,
    },
  };
}

async function detailOf(env: SitesEnv, row: SiteRow): Promise<PlatformSiteDetail> {
  return toPlatformSiteDetail(row, env.PLATFORM_DOMAIN, await provedHostsOf(env.DB, row.id));
}

export interface PlatformListQuery {
  q?: string | undefined;
  org_id?: string | undefined;
  status?: string | undefined;
  cursor?: string | undefined;
  limit?: string | undefined;
}

/** The search term: trimmed, cut to 128 characters (code points), lower-cased; null when empty. */
export function searchTerm(raw: string | undefined): string | null {
  const trimmed = (raw ?? "").trim();
  if (trimmed === "") return null;
  return Array.from(trimmed).slice(0, MAX_SEARCH_CHARS).join("").toLowerCase();
}

function parseLimit(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_PAGE;
  const n = /^\d{1,4}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(n >= 1 && n <= MAX_PAGE)) throw badRequest(`limit: an integer from 1 to ${MAX_PAGE}`);
  return n;
}

export async function listSitesForOperator(
  env: SitesEnv,
  query: PlatformListQuery,
): Promise<{ items: PlatformSite[]; next_cursor: string | null }> {
  const afterKey = query.cursor === undefined ? null : idOrderKey(query.cursor.trim());
  if (query.cursor !== undefined && afterKey === null) {
    throw badRequest("cursor: must be the id (ULID or UUID) of the previous page's last site");
  }
  const orgId = query.org_id === undefined ? null : parseId(query.org_id.trim());
  if (query.org_id !== undefined && orgId === null) throw badRequest("org_id: must be a ULID or UUID");
  const status = query.status === undefined ? null : query.status;
  if (status !== null && !isSiteStatus(status)) {
    throw badRequest(`status: one of ${SITE_STATUSES.join(", ")}`);
  }
  const limit = parseLimit(query.limit);
  const rows = await listPlatformSites(env.DB, {
    afterKey,
    orgId,
    status,
    q: searchTerm(query.q),
    limit: limit + 1,
  });
  const page: KeyedSiteRow[] = rows.slice(0, limit);
  const proved = await provedHostsOfSites(
    env.DB,
    page.map((r) => r.id),
  );
  const last = page.at(-1);
  return {
    items: page.map((row) => toPlatformSite(row, env.PLATFORM_DOMAIN, proved.get(row.id) ?? new Set())),
    next_cursor: rows.length > limit && last ? keyAsUuid(last.order_key) : null,
  };
}

export function parseSiteId(raw: string): string {
  const id = parseId(raw);
  if (!id) throw badRequest("site id: must be a ULID or UUID");
  return id;
}

async function existingSite(db: D1Database, id: string): Promise<SiteRow> {
  const row = await getSite(db, id);
  if (!row) fail("NOT_FOUND", "Site not found.");
  return row;
}

export async function siteForOperator(env: SitesEnv, id: string): Promise<PlatformSiteDetail> {
  return detailOf(env, await existingSite(env.DB, id));
}

/**
 * The operator audit trail's row of a move of the site's content between content groups (issue 38): written
 * once content has started (or rolled back) the move, with the acting person and capability; the site's
 * status is unchanged (from and to), `reason` names the groups.
 */
export async function auditGroupMove(
  env: SitesEnv,
  operator: Operator,
  id: string,
  action: "group_move" | "group_move_rollback",
  move: { from: string; to: string },
): Promise<void> {
  const site = await existingSite(env.DB, id);
  await insertAuditRow(env.DB, {
    id: newId(),
    action,
    site_id: site.id,
    site_slug: site.slug,
    org_id: site.org_id,
    from_status: site.status,
    to_status: site.status,
    hosts_json: JSON.stringify(hostsOf(site, env.PLATFORM_DOMAIN)),
    actor_user_id: operator.userId,
    actor_capability: operator.capability,
    reason: `content group ${move.from} -> ${move.to}`,
    created_at: new Date().toISOString(),
  });
}

/** The reason an operator gives: trimmed, at most 500 characters; empty or absent is null. */
export function parseReason(raw: string | undefined): string | null {
  const reason = raw?.trim() ?? "";
  if (reason === "") return null;
  if (Array.from(reason).length > MAX_REASON_CHARS) {
    throw badRequest(`reason: at most ${MAX_REASON_CHARS} characters`);
  }
  return reason;
}

function defaultSiteLimit(env: SitesEnv): number {
  const limit = Number.parseInt(env.DEFAULT_SITE_LIMIT, 10);
  return Number.isFinite(limit) ? limit : 10;
}

/**
 * Applies `transition` to the site as it is now. The write is a compare-and-swap on the status read; a
 * lost race re-reads and decides again from the winner's state, so concurrent operators end in the
 * state of some serial order of their requests. Leaving `deleted` needs room in the organization's plan
 * (409 SITE_LIMIT_REACHED). A transition to the current state answers it unchanged and writes nothing.
 */
export async function transitionSite(
  env: SitesEnv,
  services: Services,
  operator: Operator,
  id: string,
  transition: Transition,
  reason: string | null,
): Promise<PlatformSiteDetail> {
  return untilSwapped(MAX_ATTEMPTS, "The site kept changing; try again.", async () => {
    const before = await existingSite(env.DB, id);
    const to = transitionTarget(transition, before);
    if (to === before.status) return detailOf(env, before);
    const checkLimit = !countsAgainstLimit(before.status) && countsAgainstLimit(to);
    const written = await writeTransition(env.DB, {
      auditId: newId(),
      action: transition,
      site: before,
      to,
      reason,
      hosts: hostsOf(before, env.PLATFORM_DOMAIN),
      actor: { userId: operator.userId, capability: operator.capability },
      at: new Date().toISOString(),
      checkLimit,
      defaultSiteLimit: defaultSiteLimit(env),
    });
    if (written.changed) {
      const after = await existingSite(env.DB, id);
      services.log.info("site_status_changed", {
        site_id: id,
        transition,
        from: before.status,
        to: after.status,
        actor_user_id: operator.userId,
      });
      await afterWrite(env, services, before, after, [], `site_${transition}`);
      return detailOf(env, after);
    }
    if (written.status === null) fail("NOT_FOUND", "Site not found.");
    if (checkLimit && written.status === before.status) {
      fail("SITE_LIMIT_REACHED", "The organization's plan has no room for another site.");
    }
    return LOST;
  });
}

/**
 * Removes the site for good: the row and its hosts and shares go (slug and domains released) with an
 * audit row in the same batch; then the host-keyed and full-page caches of its hosts are invalidated and
 * content's projection is told the site is `deleted` (its keys stop working). Content's data (posts,
 * media, forms) is NOT deleted.
 */
export async function purgeSite(
  env: SitesEnv,
  services: Services,
  operator: Operator,
  id: string,
): Promise<void> {
  await untilSwapped(MAX_ATTEMPTS, "The site kept changing; try again.", async () => {
    const before = await existingSite(env.DB, id);
    const hosts = hostsOf(before, env.PLATFORM_DOMAIN);
    const at = new Date().toISOString();
    const purged = await purgeSiteRows(env.DB, {
      auditId: newId(),
      site: before,
      hosts,
      reason: null,
      actor: { userId: operator.userId, capability: operator.capability },
      at,
    });
    if (!purged) return LOST;
    services.log.info("site_purged", { site_id: id, actor_user_id: operator.userId });
    await invalidateSiteCaches(services, id, hosts, "site_purged");
    await pushSiteToContent(
      env,
      services,
      { ...before, status: "deleted", updated_at: at },
      { purged: true },
    );
  });
}
