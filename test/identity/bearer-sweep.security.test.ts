/**
 * Issue 18, item 7: one security sweep built from identity's own OpenAPI document. Every operation that
 * declares `bearerAuth` (each route's security and its middleware come from one value, `bearerAuth` in
 * src/identity/core/auth.ts) is sent a missing, a malformed, a forged-signature, an expired and a
 * revoked-session token: every answer is 401 `UNAUTHENTICATED` with one body (the expired one, whose
 * signature verified, `TOKEN_EXPIRED`), and no table of identity's
 * database changes (the dev outbox is a table too).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  badTokens,
  bodyFor,
  concretePath,
  type OpenApiDocument,
  operationsOf,
  requires,
  rowCounts,
} from "../support/bearer-sweep";
import { call, freshIp, signupVerified } from "../support/identity-helpers";

const e = env as unknown as IdentityEnv;

/** A live session (its claims make the forged and the expired tokens) and a revoked one. */
async function liveAndRevoked() {
  const { session: revoked } = await signupVerified();
  const { session: live } = await signupVerified();
  // Revoked by its own holder: the token stays genuine and unexpired, its session ends.
  const revoke = await call("DELETE", `/api/v1/auth/sessions/${revoked.session_id}`, {
    token: revoked.access_token,
  });
  expect(revoke.status).toBe(204);
  return { live, revoked };
}

describe("identity's Bearer operations, swept from /openapi.json", () => {
  it("answer 401 with one body to every bad token, and write nothing", async () => {
    const doc = (await (await call("GET", "/openapi.json")).json()) as OpenApiDocument;
    const bearer = operationsOf(doc).filter((op) => requires(op, "bearerAuth"));
    // Not vacuous: the document declares the scheme on the account's operations.
    expect(bearer.length).toBeGreaterThanOrEqual(40);
    expect(bearer.map((op) => `${op.method} ${op.path}`)).toContain("GET /api/v1/auth/sessions");

    const { live, revoked } = await liveAndRevoked();
    // The live token passes the check (the sweep's tokens fail it for their own reason only).
    expect((await call("GET", "/api/v1/auth/sessions", { token: live.access_token })).status).toBe(200);
    const tokens = await badTokens(live.access_token, revoked.access_token, e.JWT_SIGNING_KEYS);

    const before = await rowCounts(e.DB);
    expect(Object.keys(before)).toContain("outbox_messages");
    const failures: string[] = [];
    for (const op of bearer) {
      const bodies = new Set<string>();
      for (const { kind, token } of tokens) {
        const res = await call(op.method, concretePath(op.path), {
          ...(token ? { token } : {}),
          ...(bodyFor(op.method) === undefined ? {} : { rawBody: bodyFor(op.method) }),
          ip: freshIp(),
        });
        const text = await res.text();
        if (res.status !== 401) failures.push(`${op.method} ${op.path} (${kind}): ${res.status} ${text}`);
        else {
          expect(res.headers.get("www-authenticate")).toMatch(/^Bearer realm="site-platform"/);
          // Expired is said only of a token whose signature verified (docs/decisions/error-language.md).
          const code = kind === "expired" ? "TOKEN_EXPIRED" : "UNAUTHENTICATED";
          expect(JSON.parse(text)).toMatchObject({ status: 401, code });
          if (kind !== "expired") bodies.add(text);
        }
      }
      // Which check failed is not told: one body for every bad token.
      if (bodies.size > 1) failures.push(`${op.method} ${op.path}: ${bodies.size} different 401 bodies`);
    }
    expect(failures).toEqual([]);
    expect(await rowCounts(e.DB)).toEqual(before);
  });
});
