/** Access tokens of the running platform as the browser tests take them apart and age them. */
import { importJWK, type JWK, SignJWT } from "jose";
import { ensureDevVars } from "../../scripts/dev-vars.mjs";

/** Part `index` of a JWT (0 the header, 1 the claims), decoded. */
export const tokenPart = (token: string, index: number) =>
  JSON.parse(Buffer.from(token.split(".")[index]!, "base64url").toString("utf8")) as Record<string, unknown>;

/** `live`'s header and claims, signed by the platform's current key, expired half an hour ago. */
export async function expiredCopy(live: string): Promise<string> {
  const { current } = JSON.parse(ensureDevVars().identity.JWT_SIGNING_KEYS!) as { current: JWK };
  const key = await importJWK({ ...current, alg: "EdDSA" }, "EdDSA");
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ ...tokenPart(live, 1), iat: now - 3600, exp: now - 1800 })
    .setProtectedHeader(tokenPart(live, 0) as { alg: string })
    .sign(key);
}
