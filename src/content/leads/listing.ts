/**
 * `GET /v1/leads` and `GET /v1/leads/{id}`: the query rules (plain functions over the parsed query, shared
 * with the leads export), the keyset listing and the read by id, each audited before it answers.
 *
 * Status split: a parameter that is malformed on its own is 400 (`limit` out of 1..100, corrupt `cursor`,
 * unknown `status` or `ordem`, `form_id` that is no ULID/UUID, a date that is no date); a well-formed
 * request that cannot be processed is 422 (`de` after `ate`; a `form_id` that names no form of the site).
 */
import { parseId } from "../../lib/ids";
import type { ApiError } from "../../lib/problem";
import type { Env } from "../core/bindings";
import { decodeCursor, encodeCursor } from "../core/cursor";
import { parseRfc3339 } from "../core/time";
import { fail, problem } from "../errors";
import { leadsArea } from "../forms/store";
import { sha256Base64url } from "../keys/key-hash";
import { auditLeadAccess, type LeadReader } from "./audit";
import { type Lead, toLead } from "./shapes";
import {
  getOpenLead,
  type LeadFilters,
  type LeadOrder,
  listLeadsPage,
  listLeadsPageWithTotal,
} from "./store";

export const LEADS_DEFAULT_LIMIT = 50;
export const LEADS_MAX_LIMIT = 100;
export const LEAD_STATUS_VALUES = ["clean", "spam", "all"] as const;
export const DEFAULT_LEAD_STATUS = "clean";
export const LEAD_ORDERS = ["asc", "desc"] as const satisfies readonly LeadOrder[];
export const DEFAULT_LEAD_ORDER: LeadOrder = "desc";

/** The filters of the lead list and the leads export, as their schemas parse them. */
export interface LeadFilterQuery {
  form_id?: string;
  status?: string;
  de?: string;
  ate?: string;
}

export interface LeadListQuery extends LeadFilterQuery {
  cursor?: string;
  limit?: string;
  ordem?: string;
}

export interface LeadListRequest {
  filters: LeadFilters;
  order: LeadOrder;
  limit: number;
  cursor: string | null;
}

export interface LeadPage {
  items: Lead[];
  next_cursor: string | null;
  /** With include=total: how many leads the filters match in all. */
  total?: number;
}

/** The 404 of every lead that cannot be shown: missing, another site's, or the forms app off. */
export function leadNotFound(): ApiError {
  return problem("NOT_FOUND", "No such lead.");
}

export function leadsUnavailable(): ApiError {
  return problem("NOT_FOUND", "Leads are not available for this site.");
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Midnight UTC of a `YYYY-MM-DD` that is a real date (years 0100..9999); null otherwise. */
function dayStart(value: string): string | null {
  const m = DATE_ONLY.exec(value);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return null;
  return date.toISOString();
}

/** `iso` moved forward by `ms`; null past year 9999, where no upper bound is left to apply. */
function later(iso: string, ms: number): string | null {
  const moved = new Date(Date.parse(iso) + ms).toISOString();
  return /^\d{4}-/.test(moved) ? moved : null;
}

/**
 * `de` (start, inclusive) and `ate` (end, inclusive) as a half-open range [from, toExclusive): a date
 * `ate` ends at the next midnight UTC, an RFC 3339 `ate` one millisecond after the instant (stored times
 * have millisecond precision).
 */
export function dateRange(de: string | undefined, ate: string | undefined) {
  const bound = (name: string, value: string | undefined, end: boolean): string | null => {
    if (value === undefined) return null;
    const date = dayStart(value);
    if (date) return end ? later(date, 86_400_000) : date;
    const instant = DATE_ONLY.test(value) ? null : parseRfc3339(value);
    if (!instant || !/^\d{4}-/.test(instant)) {
      fail("INVALID_DATE", `${name} must be a date (YYYY-MM-DD) or an RFC 3339 timestamp.`);
    }
    return end ? later(instant, 1) : instant;
  };
  const from = bound("de", de, false);
  const toExclusive = bound("ate", ate, true);
  if (from !== null && toExclusive !== null && from >= toExclusive) {
    fail("INVALID_DATE_RANGE", "de must not be after ate.");
  }
  return { from, toExclusive };
}

/** `form_id`, `status` (default clean), `de`, `ate`: the filters the list and the export share. */
export function leadFilters(query: LeadFilterQuery): LeadFilters {
  let formId: string | null = null;
  if (query.form_id !== undefined) {
    formId = parseId(query.form_id);
    if (!formId) fail("INVALID_FORM_ID", "form_id must be a ULID or UUID.");
  }
  const status = query.status ?? DEFAULT_LEAD_STATUS;
  if (!(LEAD_STATUS_VALUES as readonly string[]).includes(status)) {
    fail("INVALID_STATUS", `status must be one of ${LEAD_STATUS_VALUES.join(", ")}.`);
  }
  return {
    formId,
    status: status === "all" ? null : (status as "clean" | "spam"),
    ...dateRange(query.de, query.ate),
  };
}

export function leadListRequest(query: LeadListQuery): LeadListRequest {
  let limit = LEADS_DEFAULT_LIMIT;
  if (query.limit !== undefined) {
    limit = /^\d{1,3}$/.test(query.limit) ? Number(query.limit) : Number.NaN;
    if (!(limit >= 1 && limit <= LEADS_MAX_LIMIT)) {
      fail("INVALID_LIMIT", `limit must be an integer from 1 to ${LEADS_MAX_LIMIT}.`);
    }
  }
  const order = query.ordem ?? DEFAULT_LEAD_ORDER;
  if (order !== "asc" && order !== "desc") fail("INVALID_ORDER", "ordem must be asc or desc.");
  return { filters: leadFilters(query), order, limit, cursor: query.cursor ?? null };
}

/** What the audit row records of a listing's filters. */
export function filterDetails(filters: LeadFilters): Record<string, unknown> {
  return {
    form_id: filters.formId,
    status: filters.status ?? "all",
    from: filters.from,
    to_exclusive: filters.toExclusive,
  };
}

async function fingerprint(siteId: string, request: LeadListRequest): Promise<string> {
  const print = JSON.stringify({ s: siteId, o: request.order, ...request.filters });
  return (await sha256Base64url(print)).slice(0, 16);
}

/** Where the page starts: after the verified cursor of this very listing (site, filters, order). */
async function resumePoint(env: Env, request: LeadListRequest, print: string) {
  if (request.cursor === null) return null;
  const payload = await decodeCursor(env.CURSOR_SECRET, request.cursor);
  if (payload?.m !== "l" || payload.f !== print || payload.p === undefined) {
    fail("INVALID_CURSOR", "cursor is corrupt or belongs to another listing.");
  }
  return { createdAt: payload.p, id: payload.i };
}

/** One audited page of the key's site's leads (and with `withTotal` how many the filters match in all). */
export async function listLeads(
  env: Env,
  reader: LeadReader,
  request: LeadListRequest,
  now: string,
  withTotal = false,
): Promise<LeadPage> {
  const print = await fingerprint(reader.siteId, request);
  const after = await resumePoint(env, request, print);
  const { filters, order, limit } = request;
  const details = { ...filterDetails(filters), order, limit, page: after ? "next" : "first" };
  const area = await leadsArea(env.DB, reader.siteId, filters.formId);
  if (!area.open) {
    await auditLeadAccess(env.DB, reader, { action: "leads.list", outcome: "not_found", details }, now);
    throw leadsUnavailable();
  }
  if (filters.formId !== null && !area.form) fail("UNKNOWN_FORM", "form_id names no form of this site.");
  const query = { siteId: reader.siteId, filters, order, after, limit: limit + 1 };
  const read = withTotal
    ? await listLeadsPageWithTotal(env.DB, query)
    : { rows: await listLeadsPage(env.DB, query), total: null };
  const rows = read.rows;
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const next =
    rows.length > limit && last
      ? await encodeCursor(env.CURSOR_SECRET, { m: "l", p: last.created_at, i: last.id, f: print })
      : null;
  const leadIds = page.map((r) => r.id);
  await auditLeadAccess(env.DB, reader, { action: "leads.list", outcome: "served", leadIds, details }, now);
  return {
    items: page.map(toLead),
    next_cursor: next,
    ...(read.total !== null ? { total: read.total } : {}),
  };
}

/** One audited lead of the key's site; every case that shows nothing is the same 404. */
export async function readLead(env: Env, reader: LeadReader, rawId: string, now: string): Promise<Lead> {
  const id = parseId(rawId);
  const row = id ? await getOpenLead(env.DB, reader.siteId, id) : null;
  if (!row) {
    const details = { requested_id: rawId.slice(0, 64) };
    await auditLeadAccess(env.DB, reader, { action: "leads.read", outcome: "not_found", details }, now);
    throw leadNotFound();
  }
  await auditLeadAccess(env.DB, reader, { action: "leads.read", outcome: "served", leadIds: [row.id] }, now);
  return toLead(row);
}
