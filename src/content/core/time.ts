/** RFC 3339 timestamps, normalized to UTC with milliseconds so that text order is time order in SQL. */
const RFC3339_RE = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:\d{2})$/;

export function parseRfc3339(value: string): string | null {
  if (!RFC3339_RE.test(value)) return null;
  const ms = Date.parse(value.replace(" ", "T"));
  if (Number.isNaN(ms)) return null;
  return new Date(ms).toISOString();
}
