/**
 * `include` of the lists (issue 35): comma-separated extras of a list answer. `total` adds `total`, how many
 * items the list's filters match in all (not the page); the listing itself stays what it is (keyset where it
 * pages: never page or offset). An unknown value is a 400 naming it, never ignored.
 */
import { enumQuery } from "../../lib/query-params";
import { fail } from "../errors";

export const INCLUDE_VALUES = ["total"] as const;
export type IncludeValue = (typeof INCLUDE_VALUES)[number];

/** The `include` query parameter of a list, as documented. */
export function includeQuery() {
  return enumQuery(
    INCLUDE_VALUES,
    "Comma-separated extras: `total` adds `total`, the number of items the filters match in all (not the page). Unknown values are 400.",
  );
}

/** Whether `include` asks for the total; an unknown value is 400 BAD_REQUEST naming it (`details.unknown`). */
export function includesTotal(raw: string | undefined): boolean {
  if (raw === undefined) return false;
  const values = raw.split(",").map((v) => v.trim());
  const unknown = [...new Set(values.filter((v) => !(INCLUDE_VALUES as readonly string[]).includes(v)))];
  if (unknown.length > 0) {
    fail("BAD_REQUEST", {
      detail: `include takes ${INCLUDE_VALUES.join(", ")} (comma-separated); unknown: ${unknown.join(", ")}.`,
      details: { path: "include", unknown, allowed: [...INCLUDE_VALUES] },
    });
  }
  return values.includes("total");
}
