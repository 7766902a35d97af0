/**
 * The form token: a signed issue time and a random id, handed out with a form's definition and sent back
 * with the submission (`_token`), so the server knows how long the visitor had the form without trusting
 * a client clock, and can tell a token's second use from its first (the id is remembered for the token's
 * lifetime, leads/store.ts). `<issued ms, base36>.<id: 16 random bytes, base64url>.<HMAC-SHA-256
 * truncated to 16 bytes, base64url>` over the site, the form, the time and the id; the key is
 * `CURSOR_SECRET` under its own label, so a cursor is never a token. Two tokens minted in the same
 * millisecond differ by their ids.
 */
import { base64url, base64urlDecode, hmacSha256, timingSafeEqual } from "../keys/key-hash";

const MAC_BYTES = 16;
const ID_BYTES = 16;

function signed(siteId: string, formId: string, issued: string, id: string): string {
  return `form-token.v2.${siteId}.${formId}.${issued}.${id}`;
}

export async function issueFormToken(
  secret: string,
  siteId: string,
  formId: string,
  nowMs: number,
): Promise<string> {
  const issued = Math.floor(nowMs).toString(36);
  const id = base64url(crypto.getRandomValues(new Uint8Array(ID_BYTES)));
  const mac = (await hmacSha256(secret, signed(siteId, formId, issued, id))).slice(0, MAC_BYTES);
  return `${issued}.${id}.${base64url(mac)}`;
}

export interface VerifiedFormToken {
  issuedMs: number;
  /** The token's random id: a submission records it, a second one with the same id is a reuse. */
  id: string;
}

/** The issue time and id of a token made for this site and form, or null for anything else. */
export async function verifyFormToken(
  secret: string,
  siteId: string,
  formId: string,
  token: string,
): Promise<VerifiedFormToken | null> {
  const match = /^([0-9a-z]{1,11})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{22})$/.exec(token);
  if (!match) return null;
  const [, issued, id, macText] = match as unknown as [string, string, string, string];
  const mac = base64urlDecode(macText);
  const expected = (await hmacSha256(secret, signed(siteId, formId, issued, id))).slice(0, MAC_BYTES);
  if (!mac || !timingSafeEqual(mac, expected)) return null;
  return { issuedMs: Number.parseInt(issued, 36), id };
}

/** The issue time of a token made for this site and form, or null for anything else. */
export async function formTokenIssuedAt(
  secret: string,
  siteId: string,
  formId: string,
  token: string,
): Promise<number | null> {
  return (await verifyFormToken(secret, siteId, formId, token))?.issuedMs ?? null;
}
