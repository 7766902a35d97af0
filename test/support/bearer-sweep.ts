/**
 * The security sweep's parts (issue 18, item 7): the operations an OpenAPI document declares, the bad
 * access tokens every Bearer operation must refuse, and row counts of every table of a database (to
 * prove a refused request wrote nothing).
 */
import { importJWK, type JWK, SignJWT } from "jose";
import { newId } from "../../src/lib/ids";

export interface Operation {
  method: string;
  /** The documented path, `{param}` placeholders included. */
  path: string;
  security?: Record<string, string[]>[];
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, { security?: Record<string, string[]>[] }>>;
}

const METHODS = new Set(["get", "post", "put", "patch", "delete"]);

/** Every operation of the document, in document order. */
export function operationsOf(doc: OpenApiDocument): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (METHODS.has(method)) out.push({ method: method.toUpperCase(), path, security: op.security });
    }
  }
  return out;
}

/** True when the operation's security names the scheme (OpenAPI: any one requirement object suffices). */
export function requires(op: Operation, scheme: string): boolean {
  return (op.security ?? []).some((req) => scheme in req);
}

/** The path with every `{param}` filled by a fresh id (a Bearer check answers before any lookup). */
export function concretePath(path: string): string {
  return path.replace(/\{[^}]+\}/g, () => newId());
}

/** The body a write is sent: valid JSON, so only the credential can be why it is refused. */
export function bodyFor(method: string): string | undefined {
  return method === "GET" || method === "DELETE" ? undefined : "{}";
}

function b64url(value: unknown): string {
  return btoa(JSON.stringify(value)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
}

function claimsOf(token: string): Record<string, unknown> {
  const part = token.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/");
  return JSON.parse(atob(part)) as Record<string, unknown>;
}

function headerOf(token: string): Record<string, unknown> {
  const part = token.split(".")[0]!.replace(/-/g, "+").replace(/_/g, "/");
  return JSON.parse(atob(part)) as Record<string, unknown>;
}

export type BadTokenKind = "missing" | "malformed" | "forged-signature" | "expired" | "revoked-session";

/**
 * The five ways to fail the Bearer check, built from a live access token and a revoked one:
 * no header; a token that is not a JWS; the live token's header and claims with another key's signature
 * (the published kid kept); the live token's claims signed by the platform's real key but expired an hour
 * ago (its session is live); and a genuine, unexpired token whose session was revoked.
 */
export async function badTokens(
  live: string,
  revoked: string,
  signingKeysJson: string,
): Promise<{ kind: BadTokenKind; token: string | null }[]> {
  const header = headerOf(live);
  const claims = claimsOf(live);
  const { current } = JSON.parse(signingKeysJson) as { current: JWK };
  const realKey = await importJWK({ ...current, alg: "EdDSA" }, "EdDSA");
  const foreign = await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"]);
  const now = Math.floor(Date.now() / 1000);
  const forged = await new SignJWT(claims)
    .setProtectedHeader(header as { alg: string })
    .sign((foreign as CryptoKeyPair).privateKey);
  const expired = await new SignJWT({ ...claims, iat: now - 3600, exp: now - 1800 })
    .setProtectedHeader(header as { alg: string })
    .sign(realKey);
  return [
    { kind: "missing", token: null },
    { kind: "malformed", token: `${b64url({ alg: "EdDSA" })}.not-json` },
    { kind: "forged-signature", token: forged },
    { kind: "expired", token: expired },
    { kind: "revoked-session", token: revoked },
  ];
}

/** Rows of every table of `db` (its own tables: not D1's or SQLite's bookkeeping). */
export async function rowCounts(db: D1Database): Promise<Record<string, number>> {
  const { results } = await db
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name != 'd1_migrations' ORDER BY name",
    )
    .all<{ name: string }>();
  const counts = await db.batch(results.map((t) => db.prepare(`SELECT COUNT(*) AS n FROM "${t.name}"`)));
  return Object.fromEntries(results.map((t, i) => [t.name, (counts[i]!.results[0] as { n: number }).n]));
}
