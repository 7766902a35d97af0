/**
 * `GET /v1/export?resource=analytics`: the key's site's analytics over a window (`from`, `to`, `days`, as
 * the summary reads them) as NDJSON (default) or CSV.
 * - `group=day` (default): the time series, one line per day of the window, zeros included:
 *   `date`, `views`, `visitors`, `bot_views`.
 * - `group=path`: one line per day and path that had views (days without any have no line), ordered by
 *   day then path: `date`, `path`, `views`, `visitors`; streamed page by page.
 */

import { fail } from "../errors";
import { dailySeries } from "./report";
import type { AnalyticsStore, PathDay } from "./store-port";
import { type AnalyticsWindow, analyticsWindow, type WindowQuery } from "./window";

const PATH_PAGE = 500;

export interface AnalyticsExportQuery extends WindowQuery {
  format?: string | undefined;
  group?: string | undefined;
}

export interface ExportFile {
  body: ReadableStream<Uint8Array>;
  contentType: string;
  filename: string;
}

const DAY_COLUMNS = ["date", "views", "visitors", "bot_views"] as const;
const PATH_COLUMNS = ["date", "path", "views", "visitors"] as const;

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, quote or line break. A text that a spreadsheet
 * would run as a formula (leading `=`, `+`, `-`, `@`, tab, CR) is prefixed with `'` (CSV injection).
 */
export function csvField(value: string | number): string {
  if (typeof value === "number") return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One line of the export: the row's `columns`, in that order. */
function lineWriter(format: "ndjson" | "csv", columns: readonly string[]) {
  return (row: object): string => {
    const values = columns.map((c) => (row as Record<string, string | number>)[c]!);
    return format === "ndjson"
      ? `${JSON.stringify(Object.fromEntries(columns.map((c, i) => [c, values[i]])))}\n`
      : `${values.map(csvField).join(",")}\r\n`;
  };
}

function pathDayLines(
  store: AnalyticsStore,
  siteId: string,
  window: AnalyticsWindow,
  line: (row: PathDay) => string,
  header: string,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let after: { date: string; path: string } | null = null;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (header !== "") controller.enqueue(encoder.encode(header));
    },
    async pull(controller) {
      const rows = await store.pathDays(siteId, window, after, PATH_PAGE);
      const last = rows[rows.length - 1];
      if (last) {
        after = { date: last.date, path: last.path };
        controller.enqueue(encoder.encode(rows.map((r) => line(r)).join("")));
      }
      if (rows.length < PATH_PAGE) controller.close();
    },
  });
}

export async function exportAnalytics(
  store: AnalyticsStore,
  siteId: string,
  query: AnalyticsExportQuery,
  today: string,
): Promise<ExportFile> {
  const format = query.format === "csv" ? "csv" : "ndjson";
  const group = query.group ?? "day";
  if (group !== "day" && group !== "path") fail("BAD_REQUEST", "group must be day or path.");
  const window = analyticsWindow(query, today);
  const columns = group === "day" ? DAY_COLUMNS : PATH_COLUMNS;
  const header = format === "csv" ? `${columns.join(",")}\r\n` : "";
  const line = lineWriter(format, columns);
  const file = {
    contentType: format === "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson",
    filename: `analytics-${group}-${siteId}-${window.from}-${window.to}.${format}`,
  };
  if (group === "path") {
    return { ...file, body: pathDayLines(store, siteId, window, line, header) };
  }
  const series = dailySeries(window, await store.days(siteId, window));
  const text = header + series.map(line).join("");
  return { ...file, body: new Response(text).body! };
}
