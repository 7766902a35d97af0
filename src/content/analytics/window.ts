/**
 * The window of an analytics read (`from`, `to`, `days`), in UTC days. Pure: `today` is passed in.
 * - `from`/`to` (`YYYY-MM-DD`, `to` inclusive) take precedence; `days` is then ignored, even malformed.
 *   Only `from`: up to today. Only `to`: the default 30 days ending there. `from` after `to` is 400, and
 *   so is a range longer than 366 days (any calendar year, leap years included).
 * - Otherwise `days` 1..365 (default 30): the last `days` days, today included (`days=1` is today).
 */
import { fail } from "../errors";

export const DAYS_DEFAULT = 30;
export const DAYS_MAX = 365;
/** The longest `from`..`to` range, both ends included. */
export const RANGE_MAX_DAYS = 366;

export interface AnalyticsWindow {
  /** First day, `YYYY-MM-DD` (UTC). */
  from: string;
  /** Last day, included. */
  to: string;
  /** Days covered, both ends included. */
  days: number;
}

export interface WindowQuery {
  from?: string | undefined;
  to?: string | undefined;
  days?: string | undefined;
}

const DAY_MS = 86_400_000;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The UTC day of an instant, `YYYY-MM-DD`. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** `day` plus `n` days (n may be negative). */
export function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
}

/** Days from `from` to `to`, both included. */
export function daysInRange(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1;
}

/** A real calendar day written `YYYY-MM-DD` (2025-02-30 and 2025-1-01 are not). */
export function parseDay(value: string): string | null {
  const m = DATE_RE.exec(value);
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const at = new Date(Date.UTC(year, month - 1, day));
  if (at.getUTCFullYear() !== year || at.getUTCMonth() !== month - 1 || at.getUTCDate() !== day) return null;
  if (year < 1970) return null;
  return value;
}

function dayParam(name: "from" | "to", value: string): string {
  return (
    parseDay(value) ??
    fail("INVALID_WINDOW", {
      detail: `${name} must be a date written YYYY-MM-DD (UTC).`,
      details: { parameter: name },
    })
  );
}

export function analyticsWindow(query: WindowQuery, today: string): AnalyticsWindow {
  if (query.from !== undefined || query.to !== undefined) {
    const to = query.to !== undefined ? dayParam("to", query.to) : today;
    const from = query.from !== undefined ? dayParam("from", query.from) : addDays(to, -(DAYS_DEFAULT - 1));
    if (from > to) {
      fail("INVALID_WINDOW", { detail: "from must not be after to.", details: { parameter: "from" } });
    }
    const days = daysInRange(from, to);
    if (days > RANGE_MAX_DAYS) {
      fail("INVALID_WINDOW", {
        detail: `from..to covers at most ${RANGE_MAX_DAYS} days.`,
        details: { parameter: "to" },
      });
    }
    return { from, to, days };
  }
  const days =
    query.days === undefined ? DAYS_DEFAULT : /^\d{1,3}$/.test(query.days) ? Number(query.days) : 0;
  if (days < 1 || days > DAYS_MAX) {
    fail("INVALID_WINDOW", {
      detail: `days must be an integer from 1 to ${DAYS_MAX}.`,
      details: { parameter: "days" },
    });
  }
  return { from: addDays(today, -(days - 1)), to: today, days };
}

/** Every day of the window, in order. */
export function windowDays(window: AnalyticsWindow): string[] {
  return Array.from({ length: window.days }, (_, i) => addDays(window.from, i));
}
