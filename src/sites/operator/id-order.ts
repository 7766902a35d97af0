/**
 * One total order over site ids of both kinds (ULIDs and legacy UUIDs), for the operator console's
 * keyset paging. Both are 128-bit values: a UUID's 32 hex digits, a ULID's 26 Crockford base32 digits
 * (the first at most 7, so 130 - 2 bits). The order key is that value as 32 lower-case hex digits, so
 * string order is numeric order; ULIDs keep their time order, UUIDs fall where their value puts them.
 * The key written 8-4-4-4-12 is a UUID (the console's `next_cursor`), and any cursor a client sends (ULID
 * or UUID) maps back to a key. `ID_ORDER_KEY_SQL` computes the same key in SQLite; the expression index
 * `sites_id_key` (migrations/sites/0004_operator_audit.sql) is over exactly this text.
 */
import { isUlid, isUuid } from "../../lib/ids";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** The 32-hex order key of a ULID or UUID, or null when `id` is neither. */
export function idOrderKey(id: string): string | null {
  if (isUuid(id)) return id.replaceAll("-", "").toLowerCase();
  if (!isUlid(id)) return null;
  let value = 0n;
  for (const ch of id.toUpperCase()) value = value * 32n + BigInt(CROCKFORD.indexOf(ch));
  return value.toString(16).padStart(32, "0");
}

/** An order key written as a UUID (8-4-4-4-12). */
export function keyAsUuid(key: string): string {
  return `${key.slice(0, 8)}-${key.slice(8, 12)}-${key.slice(12, 16)}-${key.slice(16, 20)}-${key.slice(20)}`;
}

function digit(position: number): string {
  return `(instr('${CROCKFORD}', upper(substr(id, ${position}, 1))) - 1)`;
}

/** The value of `count` base32 digits from `start` (1-based), as one shifted-and-or'd integer. */
function digits(start: number, count: number): string {
  const terms = Array.from({ length: count }, (_, i) => {
    const shift = 5 * (count - 1 - i);
    return shift === 0 ? digit(start + i) : `(${digit(start + i)} << ${shift})`;
  });
  return `(${terms.join(" | ")})`;
}

/**
 * `idOrderKey(id)` in SQLite: 2 + 8 + 8 + 8 base32 digits are 8 + 40 + 40 + 40 bits, printed as
 * 2 + 10 + 10 + 10 hex digits (every function here is deterministic, so it can be indexed).
 */
export const ID_ORDER_KEY_SQL = `(CASE WHEN length(id) = 36 THEN lower(replace(id, '-', '')) ELSE printf('%02x%010x%010x%010x', ${digits(1, 2)}, ${digits(3, 8)}, ${digits(11, 8)}, ${digits(19, 8)}) END)`;
