/** Reads a spec's Errors table: `| 409 | \`LAST_SITE_OWNER\`, ... |` rows into codes and code families. */
import { readFileSync } from "node:fs";
import path from "node:path";

export const specDir = path.resolve(import.meta.dirname, "../../../shared/spec");

export interface SpecErrors {
  /** Every status row of the table, with or without codes. */
  statuses: Set<number>;
  /** `CODE -> statuses` for the exact codes the table names. */
  codes: Map<string, Set<number>>;
  /** `PREFIX_ -> status` for the families the table names as `PREFIX_*`. */
  families: Map<string, number>;
  /** The whole spec text, for codes named in the operations rather than the table. */
  text: string;
}

export function readSpecErrors(service: "identity" | "content" | "sites"): SpecErrors {
  const text = readFileSync(path.join(specDir, `${service}.md`), "utf8");
  const section = text.split(/^## Errors$/m)[1]?.split(/^## /m)[0];
  if (!section) throw new Error(`${service}.md has no Errors section`);
  const out: SpecErrors = { statuses: new Set(), codes: new Map(), families: new Map(), text };
  for (const line of section.split("\n")) {
    const row = /^\|\s*(\d{3})\s*\|(.*)\|\s*$/.exec(line);
    if (!row) continue;
    const status = Number(row[1]);
    out.statuses.add(status);
    for (const [, token] of row[2]!.matchAll(/`([A-Z][A-Z0-9_]*\*?)`/g)) {
      if (token!.endsWith("_*")) out.families.set(token!.slice(0, -1), status);
      else out.codes.set(token!, new Set([...(out.codes.get(token!) ?? []), status]));
    }
  }
  return out;
}

/** The status a spec gives a code: its exact row, else its family's. */
export function specStatusesOf(spec: SpecErrors, code: string): Set<number> | undefined {
  const exact = spec.codes.get(code);
  if (exact) return exact;
  for (const [prefix, status] of spec.families) if (code.startsWith(prefix)) return new Set([status]);
  return undefined;
}
