/**
 * `GET /v1/export?resource=leads`: the site's leads as NDJSON (one lead per line, the list item shape) or
 * CSV (the form's own columns), streamed page by page from D1 so the first line leaves before the last
 * row is read and memory stays flat whatever the size. Audited: the row is written (status `started`)
 * before the stream exists and closed with the count when it ends (`completed`, `failed`, `aborted`).
 */
import type { Env } from "../core/bindings";
import { fail } from "../errors";
import { type FormField, LEAD_COLUMNS } from "../forms/fields";
import { leadsArea } from "../forms/store";
import { auditLeadAccess, closeLeadAudit, type LeadReader } from "./audit";
import { filterDetails, type LeadFilterQuery, leadFilters, leadsUnavailable } from "./listing";
import { toLead } from "./shapes";
import { type LeadFilters, type LeadRow, listLeadsPage } from "./store";

/** Rows per D1 read: a lead is at most 32 KiB, so a page stays well under D1's result limits. */
export const LEADS_EXPORT_PAGE = 250;

export interface LeadsExportQuery extends LeadFilterQuery {
  format?: string;
}

export interface LeadsExportRequest {
  filters: LeadFilters;
  format: "ndjson" | "csv";
}

export interface ExportFile {
  body: ReadableStream<Uint8Array>;
  filename: string;
  contentType: string;
}

/** The export's filters are the list's (same 400s and 422s); CSV needs `form_id`, whose fields are its columns. */
export function leadsExportRequest(query: LeadsExportQuery): LeadsExportRequest {
  const format = query.format === "csv" ? "csv" : "ndjson";
  const filters = leadFilters(query);
  if (format === "csv" && filters.formId === null) {
    fail("FORM_ID_REQUIRED", "A CSV export has the columns of one form: send form_id.");
  }
  return { filters, format };
}

const PLAIN_NUMBER = /^-?\d+(?:\.\d+)?$/;

/**
 * One CSV cell (RFC 4180: quoted when it holds a quote, comma or line break; quotes doubled). A text that a
 * spreadsheet would run as a formula (starting with = + - @, tab or carriage return) gets a leading
 * apostrophe (OWASP's CSV injection advice); a plain number is left as it is.
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  let text = typeof value === "string" ? value : String(value);
  if (/^[=+\-@\t\r]/.test(text) && !PLAIN_NUMBER.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvRow(cells: unknown[]): string {
  return `${cells.map(csvCell).join(",")}\r\n`;
}

export function csvHeader(fields: FormField[]): string {
  return csvRow([...LEAD_COLUMNS, ...fields.map((f) => f.name)]);
}

export function csvLine(fields: FormField[], row: LeadRow): string {
  const lead = toLead(row);
  return csvRow([
    lead.id,
    lead.created_at,
    lead.status,
    lead.spam_reasons.join(" "),
    lead.page_url,
    ...fields.map((f) => lead.fields[f.name]),
  ]);
}

export function ndjsonLine(row: LeadRow): string {
  return `${JSON.stringify(toLead(row))}\n`;
}

export type StreamEnd = "completed" | "failed" | "aborted";

/**
 * A byte stream of `lines` over keyset pages: one `readPage` per pull (the consumer's pace), so at most one
 * page is held at a time. `end` runs once with the outcome and the number of rows sent; a failed
 * `end("completed")` errors the stream, so a download that ends cleanly is always one the audit closed.
 */
export function pagedLines(options: {
  readPage: (after: LeadRow | null) => Promise<LeadRow[]>;
  pageSize: number;
  header: string;
  line: (row: LeadRow) => string;
  end: (outcome: StreamEnd, count: number) => Promise<void>;
}): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let last: LeadRow | null = null;
  let count = 0;
  let pending = options.header;
  let ended = false;
  const finish = async (outcome: StreamEnd) => {
    if (ended) return;
    ended = true;
    await options.end(outcome, count);
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const rows = await options.readPage(last);
        count += rows.length;
        const text = pending + rows.map(options.line).join("");
        pending = "";
        if (text !== "") controller.enqueue(encoder.encode(text));
        if (rows.length < options.pageSize) {
          await finish("completed");
          controller.close();
        } else {
          last = rows[rows.length - 1]!;
        }
      } catch (err) {
        await finish("failed").catch(() => undefined);
        controller.error(err);
      }
    },
    async cancel() {
      await finish("aborted").catch(() => undefined);
    },
  });
}

/** The audited export of the key's site's leads. */
export async function exportLeads(
  env: Env,
  reader: LeadReader,
  request: LeadsExportRequest,
  now: string,
): Promise<ExportFile> {
  const { filters, format } = request;
  const details = { ...filterDetails(filters), format };
  const area = await leadsArea(env.DB, reader.siteId, filters.formId);
  if (!area.open) {
    await auditLeadAccess(env.DB, reader, { action: "leads.export", outcome: "not_found", details }, now);
    throw leadsUnavailable();
  }
  if (filters.formId !== null && !area.form) fail("UNKNOWN_FORM", "form_id names no form of this site.");
  const auditId = await auditLeadAccess(
    env.DB,
    reader,
    { action: "leads.export", outcome: "started", details },
    now,
  );
  const fields = area.form?.fields ?? [];
  const body = pagedLines({
    readPage: (after) =>
      listLeadsPage(env.DB, {
        siteId: reader.siteId,
        filters,
        order: "asc",
        after: after && { createdAt: after.created_at, id: after.id },
        limit: LEADS_EXPORT_PAGE,
      }),
    pageSize: LEADS_EXPORT_PAGE,
    header: format === "csv" ? csvHeader(fields) : "",
    line: format === "csv" ? (row) => csvLine(fields, row) : ndjsonLine,
    end: (outcome, count) => closeLeadAudit(env.DB, auditId, outcome, count),
  });
  const scope = filters.formId ?? reader.siteId;
  return {
    body,
    filename: `leads-${scope}-${now.slice(0, 10)}.${format}`,
    contentType: format === "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson",
  };
}
