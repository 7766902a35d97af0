/**
 * The form token: a signed issue time handed out with a form's definition and sent back with the
 * submission (`_token`), so the server knows how long the visitor had the form without trusting a
 * client clock. `<issued ms, base36>.<HMAC-SHA-256 truncated to 16 bytes, base64url>` over the site, the
 * form and the time; the key is `CURSOR_SECRET` under its own label, so a cursor is never a token.
 */
import { base64url, base64urlDecode, hmacSha256, timingSafeEqual } from "../auth/key-hash";

const MAC_BYTES = 16;

function signed(siteId: string, formId: string, issued: string): string {
  return `form-token.v1.${siteId}.${formId}.${issued}`;
}

export async function issueFormToken(
  secret: string,
  siteId: string,
  formId: string,
  nowMs: number,
): Promise<string> {
  const issued = Math.floor(nowMs).toString(36);
  const mac = (await hmacSha256(secret, signed(siteId, formId, issued))).slice(0, MAC_BYTES);
  return `${issued}.${base64url(mac)}`;
}

/** The issue time of a token made for this site and form, or null for anything else. */
export async function formTokenIssuedAt(
  secret: string,
  siteId: string,
  formId: string,
  token: string,
): Promise<number | null> {
  const match = /^([0-9a-z]{1,11})\.([A-Za-z0-9_-]{22})$/.exec(token);
  if (!match) return null;
  const mac = base64urlDecode(match[2]!);
  const expected = (await hmacSha256(secret, signed(siteId, formId, match[1]!))).slice(0, MAC_BYTES);
  if (!mac || !timingSafeEqual(mac, expected)) return null;
  return Number.parseInt(match[1]!, 36);
}
