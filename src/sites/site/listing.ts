/**
 * `GET /v1/sites` (beyond the spec, issue 23): the sites the caller can see through organization roles,
 * site roles and shares, each with the caller's effective role and permissions on it (the one permission
 * model, src/lib/site-permissions.ts). Filters `org_id`, `role`, `status`, `q`; keyset paging. A reader
 * session, a caller without memberships and a service caller (no edge headers: the platform-wide list is
 * the operator console's) get an empty list, as `batch` answers a reader.
 */
import { z } from "@hono/zod-openapi";
import type { EdgeIdentity } from "../../lib/edge";
import { parseId } from "../../lib/ids";
import { SITE_PERMISSIONS, type SitePermission } from "../../lib/site-permissions";
import { problem } from "../errors";
import { provedHostsOfSites } from "../health/domains-store";
import { searchTerm } from "../operator/console";
import { idOrderKey, keyAsUuid } from "../operator/id-order";
import { isReader, memberOrgIds } from "./access";
import { canonicalRole, effectiveSiteRole } from "./effective-role";
import { type ListedSiteRow, listCallerSites } from "./listing-store";
import { sitePermissions } from "./permissions";
import { SiteSchema, toSiteRecord } from "./record";

export const DEFAULT_LIST_PAGE = 50;
export const MAX_LIST_PAGE = 200;
/** Statuses a caller may ask for; `deleted` is never listed. Without `status`: the live ones. */
export const LISTABLE_STATUSES = ["active", "inactive", "archived"] as const;
const LIVE_STATUSES = ["active", "inactive"];
const ROLE_RE = /^[a-z0-9][a-z0-9_:-]{0,63}$/;
/** With a role filter, rows are judged in code: at most this many chunks are read for one page. */
const MAX_CHUNKS = 5;

export const ListedSiteSchema = SiteSchema.omit({ settings: true, settings_unreadable: true })
  .extend({
    role: z.string().openapi({
      description:
        "The caller's effective site role: a site role's slug, or for a grant through an organization site_owner (reaches delete), site_editor (manages) or site_viewer (reads)",
    }),
    permissions: z.array(z.enum(SITE_PERMISSIONS)).openapi({
      description: "What the caller may do with the site (src/lib/site-permissions.ts)",
    }),
  })
  .openapi("ListedSite");

export const SiteListSchema = z
  .object({
    items: z.array(ListedSiteSchema),
    next_cursor: z
      .string()
      .nullable()
      .openapi({ description: "Pass as `cursor` for the next page; null on the last page" }),
  })
  .openapi("SiteList");

type ListedSite = z.infer<typeof ListedSiteSchema>;

export interface SiteListQuery {
  org_id?: string | undefined;
  role?: string | undefined;
  status?: string | undefined;
  q?: string | undefined;
  cursor?: string | undefined;
  limit?: string | undefined;
}

function badRequest(detail: string) {
  return problem("BAD_REQUEST", { detail });
}

function parseLimit(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_LIST_PAGE;
  const n = /^\d{1,4}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(n >= 1 && n <= MAX_LIST_PAGE)) throw badRequest(`limit: an integer from 1 to ${MAX_LIST_PAGE}`);
  return n;
}

function parseStatuses(raw: string | undefined): string[] {
  if (raw === undefined) return LIVE_STATUSES;
  if (!(LISTABLE_STATUSES as readonly string[]).includes(raw)) {
    throw badRequest(`status: one of ${LISTABLE_STATUSES.join(", ")}`);
  }
  return [raw];
}

function parseRole(raw: string | undefined): string | null {
  if (raw === undefined) return null;
  const role = raw.trim().toLowerCase();
  if (!ROLE_RE.test(role)) throw badRequest("role: a site role slug (such as site_editor)");
  return canonicalRole(role);
}

interface ParsedQuery {
  orgId: string | null;
  role: string | null;
  statuses: string[];
  q: string | null;
  afterKey: string | null;
  limit: number;
}

export function parseSiteListQuery(query: SiteListQuery): ParsedQuery {
  const afterKey = query.cursor === undefined ? null : idOrderKey(query.cursor.trim());
  if (query.cursor !== undefined && afterKey === null) {
    throw badRequest("cursor: must be the next_cursor of the previous page");
  }
  const orgId = query.org_id === undefined ? null : parseId(query.org_id.trim());
  if (query.org_id !== undefined && orgId === null) throw badRequest("org_id: must be a ULID or UUID");
  return {
    orgId,
    role: parseRole(query.role),
    statuses: parseStatuses(query.status),
    q: searchTerm(query.q),
    afterKey,
    limit: parseLimit(query.limit),
  };
}

function siteIdsOf(identity: EdgeIdentity): string[] {
  const ids = (identity.siteMemberships ?? []).map((m) => parseId(m.site_id));
  return [...new Set(ids.filter((id): id is string => id !== null))];
}

function judged(identity: EdgeIdentity, row: ListedSiteRow) {
  const permissions = sitePermissions(identity, row, row.shares);
  const role = permissions.has("read") ? effectiveSiteRole(identity, row, row.shares) : null;
  return { row, role, permissions };
}

type Judged = ReturnType<typeof judged> & { role: string };

/**
 * Up to `limit + 1` sites the caller sees, matching the role filter, from `afterKey` on. Without a role
 * filter one query answers; with one, chunks are read until the page fills, the sites run out or
 * MAX_CHUNKS chunks were read (then the page may be short and its cursor is the last site read).
 */
async function collect(env: SitesEnv, identity: EdgeIdentity, p: ParsedQuery) {
  const base = { orgIds: [...memberOrgIds(identity)], siteIds: siteIdsOf(identity), ...p };
  const out: Judged[] = [];
  let afterKey = p.afterKey;
  for (let chunk = 0; chunk < MAX_CHUNKS; chunk++) {
    const rows = await listCallerSites(env.DB, { ...base, afterKey, limit: p.limit + 1 });
    for (const row of rows) {
      const j = judged(identity, row);
      if (j.role !== null && (p.role === null || j.role === p.role)) out.push(j as Judged);
      if (out.length > p.limit) return { out, scannedTo: null };
    }
    if (rows.length <= p.limit) return { out, scannedTo: null };
    afterKey = rows.at(-1)?.order_key ?? null;
  }
  return { out, scannedTo: afterKey };
}

function listed(j: Judged, platformDomain: string, proved: ReadonlySet<string>): ListedSite {
  const { settings: _s, settings_unreadable: _u, ...record } = toSiteRecord(j.row, platformDomain, proved);
  const permissions = SITE_PERMISSIONS.filter((x: SitePermission) => j.permissions.has(x));
  return { ...record, role: j.role, permissions };
}

export async function listSitesForCaller(
  env: SitesEnv,
  identity: EdgeIdentity,
  query: SiteListQuery,
): Promise<z.infer<typeof SiteListSchema>> {
  const p = parseSiteListQuery(query);
  if (isReader(identity)) return { items: [], next_cursor: null };
  const { out, scannedTo } = await collect(env, identity, p);
  const page = out.slice(0, p.limit);
  const proved = await provedHostsOfSites(
    env.DB,
    page.map((j) => j.row.id),
  );
  const last = page.at(-1)?.row.order_key;
  const nextKey = out.length > p.limit ? last : scannedTo;
  return {
    items: page.map((j) => listed(j, env.PLATFORM_DOMAIN, proved.get(j.row.id) ?? new Set())),
    next_cursor: nextKey ? keyAsUuid(nextKey) : null,
  };
}
