/**
 * Lead rows: the submission insert (with its duplicate check), keyset pages, one lead by id. Reads go
 * through drizzle's query builder (the keyset bound as a row-value comparison, which the leads indexes
 * seek); the insert (an `INSERT … SELECT` deciding the duplicate and reused-token rules) and the token
 * prune (`DELETE … WHERE token_id IN (SELECT … LIMIT)`) stay raw SQL.
 */
import { and, asc, count, desc, eq, getTableColumns, gte, lt, type SQL, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { formsAppState, formTokenUses, leads } from "../../../schema/content";
import type { Row } from "../../lib/rows";
import { batch, prepared, typed } from "../../lib/sql";

export type LeadRow = Omit<typeof leads.$inferSelect, "site_id" | "content_hash">;

const { site_id: _siteId, content_hash: _contentHash, ...LEAD_COLUMNS } = getTableColumns(leads);

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

/** A verified form token's id, remembered until `expiresAt`; `now` prunes expired ids. */
export interface TokenUse {
  id: string;
  expiresAt: string;
  now: string;
}

/** Expired token ids each submission deletes: more than it adds, so the table holds about a day. */
const PRUNE_PER_SUBMISSION = 2;

/**
 * Stores a submission. The duplicate rule (same form, same values since `duplicateSince`) and the
 * reused-token rule (the token's id recorded by an earlier submission) are decided inside the INSERT,
 * and the token's id is recorded in the same batch: D1 runs one write at a time, so of two identical
 * submissions, or two with one token, racing each other the second always sees the first.
 */
export async function insertLead(
  db: D1Database,
  lead: NewLead,
  duplicateSince: string,
  token: TokenUse | null,
): Promise<{ status: "clean" | "spam"; spam_reasons: string[] }> {
  const insert = typed<Row<typeof leads, "status" | "spam_reasons_json">>(
    db
      .prepare(
        `INSERT INTO leads (id, site_id, form_id, status, spam_reasons_json, fields_json, content_hash, page_url, created_at)
       SELECT ?1, ?2, ?3,
              CASE WHEN d.dup OR d.reused OR json_array_length(?4) > 0 THEN 'spam' ELSE 'clean' END,
              CASE WHEN d.reused AND d.dup THEN json_insert(?4, '$[#]', 'duplicate', '$[#]', 'reused_token')
                   WHEN d.dup THEN json_insert(?4, '$[#]', 'duplicate')
                   WHEN d.reused THEN json_insert(?4, '$[#]', 'reused_token')
                   ELSE json(?4) END,
              ?5, ?6, ?7, ?8
       FROM (SELECT EXISTS (SELECT 1 FROM leads WHERE form_id = ?3 AND content_hash = ?6 AND created_at >= ?9) AS dup,
                    EXISTS (SELECT 1 FROM form_token_uses WHERE token_id = ?10) AS reused) d
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
        token?.id ?? null,
      ),
  );
  const tokenStatements: D1PreparedStatement[] = [];
  if (token) {
    tokenStatements.push(
      prepared(
        db,
        drizzle(db)
          .insert(formTokenUses)
          .values({ token_id: token.id, form_id: lead.form_id, expires_at: token.expiresAt })
          .onConflictDoNothing(),
      ),
      db
        .prepare(
          `DELETE FROM form_token_uses WHERE token_id IN
             (SELECT token_id FROM form_token_uses WHERE expires_at < ? LIMIT ${PRUNE_PER_SUBMISSION})`,
        )
        .bind(token.now),
    );
  }
  const [inserted] = await batch(db, [insert, ...tokenStatements]);
  // INSERT … SELECT from a one-row subquery always inserts, so RETURNING always gives the row.
  const row = inserted.rows[0];
  if (row === undefined) throw new Error("lead insert returned no row");
  return { status: row.status, spam_reasons: JSON.parse(row.spam_reasons_json) as string[] };
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

/** The site's leads the filters match. */
function leadFilter(siteId: string, filters: LeadFilters): SQL | undefined {
  return and(
    eq(leads.site_id, siteId),
    filters.formId === null ? undefined : eq(leads.form_id, filters.formId),
    filters.status === null ? undefined : eq(leads.status, filters.status),
    filters.from === null ? undefined : gte(leads.created_at, filters.from),
    filters.toExclusive === null ? undefined : lt(leads.created_at, filters.toExclusive),
  );
}

/**
 * One keyset page of the site's leads in (created_at, id) order, resuming after `after`. `limit` rows at
 * most (callers ask one more to know whether a next page exists).
 */
interface LeadsPage {
  siteId: string;
  filters: LeadFilters;
  order: LeadOrder;
  after: { createdAt: string; id: string } | null;
  limit: number;
}

function leadsPageQuery(db: D1Database, { siteId, filters, order, after, limit }: LeadsPage) {
  const direction = order === "desc" ? desc : asc;
  const keyset = after
    ? sql`(${leads.created_at}, ${leads.id}) ${sql.raw(order === "desc" ? "<" : ">")} (${after.createdAt}, ${after.id})`
    : undefined;
  return drizzle(db)
    .select(LEAD_COLUMNS)
    .from(leads)
    .where(and(leadFilter(siteId, filters), keyset))
    .orderBy(direction(leads.created_at), direction(leads.id))
    .limit(limit);
}

export async function listLeadsPage(db: D1Database, page: LeadsPage): Promise<LeadRow[]> {
  return leadsPageQuery(db, page).all();
}

/** A keyset page and how many leads the filters match in all (include=total): one batch. */
export async function listLeadsPageWithTotal(
  db: D1Database,
  page: LeadsPage,
): Promise<{ rows: LeadRow[]; total: number }> {
  const d = drizzle(db);
  const [rows, counted] = await d.batch([
    leadsPageQuery(db, page),
    d.select({ total: count() }).from(leads).where(leadFilter(page.siteId, page.filters)),
  ]);
  return { rows, total: counted[0]?.total ?? 0 };
}

/** A lead of the site, only while the site's forms app is on: every other case is the same null. */
export async function getOpenLead(db: D1Database, siteId: string, id: string): Promise<LeadRow | null> {
  const row = await drizzle(db)
    .select(LEAD_COLUMNS)
    .from(leads)
    .innerJoin(formsAppState, and(eq(formsAppState.site_id, leads.site_id), eq(formsAppState.enabled, 1)))
    .where(and(eq(leads.id, id), eq(leads.site_id, siteId)))
    .get();
  return row ?? null;
}
