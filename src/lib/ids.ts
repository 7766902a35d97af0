import { monotonicFactory } from "ulidx";

const ULID_RE = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const ulidFactory = monotonicFactory();

/** A new ULID (monotonic within one isolate, so ids made in one request sort in creation order). */
export function newId(): string {
  return ulidFactory();
}

export function isUlid(value: string): boolean {
  if (!ULID_RE.test(value.toUpperCase())) return false;
  // The first character bounds the 48-bit timestamp; "8".."Z" overflow.
  return value[0]! <= "7";
}

export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}

/** Parses "ULID or UUID": ULIDs upper-cased, UUIDs lower-cased; null when neither. */
export function parseId(value: string): string | null {
  if (isUlid(value)) return value.toUpperCase();
  if (isUuid(value)) return value.toLowerCase();
  return null;
}

export function parseUlid(value: string): string | null {
  return isUlid(value) ? value.toUpperCase() : null;
}
