/** Lead rows: the submission insert (with its duplicate check), keyset pages, one lead by id. */
import type { leads } from "../../../schema/content";

export type LeadRow = Omit<typeof leads.$inferSelect, "site_id" | "content_hash">;

const LEAD_COLUMNS = "id, form_id, status, spam_reasons_json, fields_json, page_url, created_at";

export interface NewLead {
  id: string;
  site_id: string;
  form_id: string;
  /** Reasons found before storing; `duplicate` is added here when it applies. */
  spam_reasons: string[];
  fields_json: string;
  content_hash: string;
  page_url: string | null;
  created_at: string;
}

/**
 * Stores a submission. The duplicate rule (same form, same values since `duplicateSince`) is decided
 * inside the INSERT: D1 runs one write at a time, so of two identical submissions racing each other the
 * second always sees the first.
 */
export async function insertLead(
  db: D1Database,
  lead: NewLead,
  duplicateSince: string,
): Promise<{ status: "clean" | "spam"; spam_reasons: string[] }> {
  const row = await db
    .prepare(
      `INSERT INTO leads (id, site_id, form_id, status, spam_reasons_json, fields_json, content_hash, page_url, created_at)
       SELECT ?1, ?2, ?3,
              CASE WHEN d.dup OR json_array_length(?4) > 0 THEN 'spam' ELSE 'clean' END,
              CASE WHEN d.dup THEN json_insert(?4, '$[#]', 'duplicate') ELSE json(?4) END,
              ?5, ?6, ?7, ?8
       FROM (SELECT EXISTS (SELECT 1 FROM leads WHERE form_id = ?3 AND content_hash = ?6 AND created_at >= ?9) AS dup) d
       RETURNING status, spam_reasons_json`,
    )
    .bind(
      lead.id,
      lead.site_id,
      lead.form_id,
      JSON.stringify(lead.spam_reasons),
      lead.fields_json,
      lead.content_hash,
      lead.page_url,
      lead.created_at,
      duplicateSince,
    )
    .first<{ status: "clean" | "spam"; spam_reasons_json: string }>();
  return { status: row!.status, spam_reasons: JSON.parse(row!.spam_reasons_json) as string[] };
}

export interface LeadFilters {
  formId: string | null;
  /** null: both statuses. */
  status: "clean" | "spam" | null;
  /** created_at >= from */
  from: string | null;
  /** created_at < toExclusive */
  toExclusive: string | null;
}

export type LeadOrder = "asc" | "desc";

/**
 * One keyset page of the site's leads in (created_at, id) order, resuming after `after`. `limit` rows at
 * most (callers ask one more to know whether a next page exists).
 */
export async function listLeadsPage(
  db: D1Database,
  siteId: string,
  filters: LeadFilters,
  order: LeadOrder,
  after: { createdAt: string; id: string } | null,
  limit: number,
): Promise<LeadRow[]> {
  const where = ["site_id = ?"];
  const binds: unknown[] = [siteId];
  if (filters.formId !== null) {
    where.push("form_id = ?");
    binds.push(filters.formId);
  }
  if (filters.status !== null) {
    where.push("status = ?");
    binds.push(filters.status);
  }
  if (filters.from !== null) {
    where.push("created_at >= ?");
    binds.push(filters.from);
  }
  if (filters.toExclusive !== null) {
    where.push("created_at < ?");
    binds.push(filters.toExclusive);
  }
  if (after) {
    where.push(`(created_at, id) ${order === "desc" ? "<" : ">"} (?, ?)`);
    binds.push(after.createdAt, after.id);
  }
  const direction = order === "desc" ? "DESC" : "ASC";
  const { results } = await db
    .prepare(
      `SELECT ${LEAD_COLUMNS} FROM leads WHERE ${where.join(" AND ")}
       ORDER BY created_at ${direction}, id ${direction} LIMIT ?`,
    )
    .bind(...binds, limit)
    .all<LeadRow>();
  return results;
}

/** A lead of the site, only while the site's forms app is on: every other case is the same null. */
export async function getOpenLead(db: D1Database, siteId: string, id: string): Promise<LeadRow | null> {
  return db
    .prepare(
      `SELECT ${LEAD_COLUMNS.split(", ")
        .map((c) => `l.${c}`)
        .join(", ")} FROM leads l
       JOIN forms_app_state f ON f.site_id = l.site_id AND f.enabled = 1
       WHERE l.id = ? AND l.site_id = ?`,
    )
    .bind(id, siteId)
    .first<LeadRow>();
}
