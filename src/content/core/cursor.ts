/**
 * Opaque keyset cursors: `base64url(JSON payload) "." base64url(HMAC-SHA-256(CURSOR_SECRET, payload))[:22]`.
 * The MAC makes them tamper-evident (any change is a 400, never a different page), and the payload
 * carries a fingerprint of the listing's filters so a cursor cannot be replayed against another query.
 */
import { base64url, base64urlDecode, hmacSha256, timingSafeEqual } from "../keys/key-hash";

export interface CursorPayload {
  /**
   * "p": public listing, keyed by (published_at, id); "a": authenticated status listing, keyed by id;
   * "l": lead listing, keyed by (created_at, id); "s": search results, keyed by (rank, id).
   */
  m: "p" | "a" | "l" | "s";
  /** published_at (public listing) or created_at (lead listing) of the last item. */
  p?: string;
  /** id of the last item. */
  i: string;
  /** Fingerprint of the filters the cursor belongs to. */
  f: string;
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();
const MAC_BYTES = 16;

export async function encodeCursor(secret: string, payload: CursorPayload): Promise<string> {
  const body = base64url(encoder.encode(JSON.stringify(payload)));
  const mac = (await hmacSha256(secret, `cursor.v1.${body}`)).slice(0, MAC_BYTES);
  return `${body}.${base64url(mac)}`;
}

export async function decodeCursor(secret: string, cursor: string): Promise<CursorPayload | null> {
  if (cursor.length > 1024) return null;
  const [body, macText, ...rest] = cursor.split(".");
  if (!body || !macText || rest.length > 0) return null;
  const mac = base64urlDecode(macText);
  if (!mac) return null;
  const expected = (await hmacSha256(secret, `cursor.v1.${body}`)).slice(0, MAC_BYTES);
  if (!timingSafeEqual(mac, expected)) return null;
  const raw = base64urlDecode(body);
  if (!raw) return null;
  try {
    const value = JSON.parse(decoder.decode(raw)) as Partial<CursorPayload>;
    if (
      !["p", "a", "l", "s"].includes(value.m ?? "") ||
      typeof value.i !== "string" ||
      typeof value.f !== "string"
    )
      return null;
    if ((value.m === "p" || value.m === "l" || value.m === "s") && typeof value.p !== "string") return null;
    return value as CursorPayload;
  } catch {
    return null;
  }
}
