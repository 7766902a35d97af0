/**
 * How a refused input is told (issue 33, "nothing silently dropped"): one wording for every service and for the
 * hand parsers. An unknown field is named before any other mistake of the same body, with its JSON path in
 * `details.path` (dotted; array items by index) and every unknown name at that place in `details.unknown`;
 * other mistakes keep the first issue's path and message.
 */

/** The part of a zod issue this reads (zod's own `$ZodIssue` satisfies it). */
export interface InputIssue {
  readonly code: string;
  readonly path: readonly PropertyKey[];
  readonly message: string;
  readonly keys?: readonly string[];
}

export interface DescribedIssue {
  detail: string;
  details?: { path: string; unknown?: string[] };
  /** True when the refusal is an unknown field (a caller such as POST /v1/posts answers it with its own status). */
  unknownField: boolean;
}

/** `a.b.0.c` for ["a","b",0,"c"] (the same form `SETTINGS_UNKNOWN_KEY` uses). */
export function jsonPath(path: readonly PropertyKey[]): string {
  return path.map((part) => String(part)).join(".");
}

export function unknownFieldDetail(path: string, names: readonly string[]): string {
  const where = path.includes(".") ? ` (at ${path.slice(0, path.lastIndexOf("."))})` : "";
  const listed = names.map((n) => `"${n}"`).join(", ");
  return names.length > 1
    ? `Unknown fields ${listed}${where}: nothing a client sends is dropped; remove them or check their spelling.`
    : `Unknown field ${listed}${where}: nothing a client sends is dropped; remove it or check its spelling.`;
}

export function describeIssues(issues: readonly InputIssue[]): DescribedIssue {
  const unknown = issues.find((issue) => issue.code === "unrecognized_keys" && (issue.keys?.length ?? 0) > 0);
  if (unknown?.keys) {
    const path = jsonPath([...unknown.path, unknown.keys[0]!]);
    return {
      detail: unknownFieldDetail(path, unknown.keys),
      details: { path, unknown: [...unknown.keys] },
      unknownField: true,
    };
  }
  const first = issues[0];
  if (!first) return { detail: "invalid request", unknownField: false };
  const path = jsonPath(first.path);
  return {
    detail: path ? `${path}: ${first.message}` : first.message,
    ...(path ? { details: { path } } : {}),
    unknownField: false,
  };
}
