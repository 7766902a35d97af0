/**
 * The forms app's switch per site (from the site projection) and the site's forms. "Open" means what the
 * forms area needs to exist: the app switched on (and, for the anonymous routes, the site live). Queries
 * go through drizzle's query builder.
 */
import { and, desc, eq, getTableColumns, isNull, notInArray, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { forms, formsAppState, sites } from "../../../schema/content";
import type { Computed } from "../../lib/rows";
import type { SiteProjection } from "../../lib/rpc";
import { batch, first, prepared, query } from "../../lib/sql";
import type { FormField } from "./fields";

export type FormRow = typeof forms.$inferSelect;

export interface FormRecord {
  id: string;
  site_id: string;
  name: string;
  fields: FormField[];
  created_by: string;
  created_at: string;
  deleted_at: string | null;
}

export function toFormRecord(row: FormRow): FormRecord {
  return {
    id: row.id,
    site_id: row.site_id,
    name: row.name,
    fields: JSON.parse(row.fields_json) as FormField[],
    created_by: row.created_by,
    created_at: row.created_at,
    deleted_at: row.deleted_at,
  };
}

/**
 * The statement that copies the projection's forms switch, for the projection's own batch; none when the
 * push does not carry it. An older push never overwrites a newer one (pushes may arrive out of order).
 */
export function formsAppStatements(db: D1Database, site: SiteProjection): D1PreparedStatement[] {
  if (site.forms_enabled === undefined) return [];
  const t = formsAppState;
  return [
    prepared(
      db,
      drizzle(db)
        .insert(t)
        .values({ site_id: site.id, enabled: site.forms_enabled ? 1 : 0, updated_at: site.updated_at })
        .onConflictDoUpdate({
          target: t.site_id,
          set: { enabled: sql`excluded.enabled`, updated_at: sql`excluded.updated_at` },
          setWhere: sql`excluded.updated_at >= ${t.updated_at}`,
        }),
    ),
  ];
}

/** Whether the site's forms area exists: the app on and the site neither deleted nor archived. */
export async function formsAreaOpen(db: D1Database, siteId: string): Promise<boolean> {
  const row = await drizzle(db)
    .select({ open: sql<number>`1` })
    .from(sites)
    .innerJoin(formsAppState, and(eq(formsAppState.site_id, sites.id), eq(formsAppState.enabled, 1)))
    .where(and(eq(sites.id, siteId), notInArray(sites.status, ["deleted", "archived"])))
    .get();
  return row !== undefined;
}

/**
 * The forms area of a key's site and, when `formId` is given, that form of the site (deleted forms too:
 * their leads stay readable). `open` false: the app is off.
 */
export async function leadsArea(
  db: D1Database,
  siteId: string,
  formId: string | null,
): Promise<{ open: boolean; form: FormRecord | null }> {
  const open = query<Computed<{ open: number }>>(
    db,
    "SELECT 1 AS open FROM forms_app_state WHERE site_id = ? AND enabled = 1",
    siteId,
  );
  if (formId === null) return { open: (await first(open)) !== null, form: null };
  const [state, form] = await batch(db, [
    open,
    query<FormRow>(db, "SELECT * FROM forms WHERE id = ? AND site_id = ?", formId, siteId),
  ]);
  const row = form.rows[0] ?? null;
  return { open: state.rows.length > 0, form: row ? toFormRecord(row) : null };
}

/** A form that takes submissions: not deleted, of a live site (`active`) with the forms app on. */
export async function getSubmittableForm(
  db: D1Database,
  siteId: string,
  formId: string,
): Promise<FormRecord | null> {
  const row = await drizzle(db)
    .select(getTableColumns(forms))
    .from(forms)
    .innerJoin(sites, and(eq(sites.id, forms.site_id), eq(sites.status, "active")))
    .innerJoin(formsAppState, and(eq(formsAppState.site_id, forms.site_id), eq(formsAppState.enabled, 1)))
    .where(and(eq(forms.id, formId), eq(forms.site_id, siteId), isNull(forms.deleted_at)))
    .get();
  return row ? toFormRecord(row) : null;
}

export async function insertForm(db: D1Database, form: FormRecord): Promise<void> {
  await drizzle(db)
    .insert(forms)
    .values({
      id: form.id,
      site_id: form.site_id,
      name: form.name,
      fields_json: JSON.stringify(form.fields),
      created_by: form.created_by,
      created_at: form.created_at,
    })
    .run();
}

/** The site's forms (not deleted), newest first. */
export async function listSiteForms(db: D1Database, siteId: string): Promise<FormRecord[]> {
  const results = await drizzle(db)
    .select()
    .from(forms)
    .where(and(eq(forms.site_id, siteId), isNull(forms.deleted_at)))
    .orderBy(desc(forms.created_at), desc(forms.id))
    .all();
  return results.map(toFormRecord);
}

/** Soft delete; false when the site has no such (live) form. */
export async function softDeleteForm(db: D1Database, siteId: string, formId: string, now: string) {
  const result = await drizzle(db)
    .update(forms)
    .set({ deleted_at: now })
    .where(and(eq(forms.id, formId), eq(forms.site_id, siteId), isNull(forms.deleted_at)))
    .run();
  return result.meta.changes > 0;
}
