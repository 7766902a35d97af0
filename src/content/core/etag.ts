/** Strong validators for public answers: the ETag is a hash of the exact body sent. */
import { sha256Base64url } from "../keys/key-hash";

export async function etagFor(body: string): Promise<string> {
  return `"${(await sha256Base64url(body)).slice(0, 27)}"`;
}

/** RFC 9110 If-None-Match: `*` or a list of (weak or strong) tags compared weakly. */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  const bare = etag.replace(/^W\//, "");
  return header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === bare);
}
