/**
 * Issue 18, item 7, behind the gateway: every dashboard operation of sites and content (the operations of
 * their OpenAPI documents that the edge's route table sends with a session: `routeFor(path).requiresSession`)
 * is sent a missing, a malformed, a forged-signature, an expired and a revoked-session token through the
 * gateway worker: every answer is 401 `UNAUTHENTICATED` with one body (the expired one, whose signature
 * verified, `TOKEN_EXPIRED`), and no table of any service changes.
 *
 * The bound: the edge caches what identity says about a session for EDGE_CONTEXT_TTL (at most 30 s), so a
 * session revoked elsewhere than through this edge isolate (another isolate, a password reset, a "not me"
 * link, here: identity called directly) keeps working at the edge until its cached entry expires, and
 * not a moment longer. The test controls the edge's clock (the gateway runs in the test's isolate, its
 * cache reads `Date.now()`): 29 s after the entry was cached the revoked token still reads; 30 s after,
 * every operation refuses it. (The services run in their own isolates on the real clock: the edge's
 * signature, stamped 30 s ahead, is still inside their 60 s window.)
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { routeFor } from "../../src/gateway/routes";
import {
  badTokens,
  bodyFor,
  concretePath,
  type OpenApiDocument,
  type Operation,
  operationsOf,
  rowCounts,
} from "../support/bearer-sweep";
import { contentDirectory, contentGroups } from "../support/content-groups";
import { BASE, call, createOrg, createSite, verifiedUser } from "../support/platform";

const e = env as unknown as GatewayEnv & {
  JWT_SIGNING_KEYS: string;
  TEST_IDENTITY_DB: D1Database;
  TEST_SITES_DB: D1Database;
};

const EDGE_CONTEXT_TTL_MS = 30_000;

async function dashboardOperations(): Promise<Operation[]> {
  const out: Operation[] = [];
  for (const service of ["sites", "content"]) {
    const res = await call<OpenApiDocument>("GET", `/docs/${service}/openapi.json`);
    expect(res.status).toBe(200);
    out.push(...operationsOf(res.body).filter((op) => routeFor(op.path)?.requiresSession));
  }
  return out;
}

async function allRowCounts() {
  return {
    identity: await rowCounts(e.TEST_IDENTITY_DB),
    // Content: every site group and the directory (docs/decisions/site-groups.md).
    ...Object.fromEntries(
      await Promise.all(
        [...contentGroups].map(async ([group, db]) => [`content ${group}`, await rowCounts(db)] as const),
      ),
    ),
    "content directory": await rowCounts(contentDirectory),
    sites: await rowCounts(e.TEST_SITES_DB),
  };
}

/** Through the gateway worker, with exactly this Authorization (or none). */
async function send(op: Operation, token: string | null) {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  const body = bodyFor(op.method);
  if (body !== undefined) headers["content-type"] = "application/json";
  const { exports } = await import("cloudflare:workers");
  const res = await exports.default.fetch(`${BASE}${concretePath(op.path)}`, {
    method: op.method,
    headers,
    body,
  });
  return { status: res.status, text: await res.text() };
}

describe("the dashboard operations of sites and content, swept through the gateway", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("refuse every bad token with one 401 and write nothing; a revoked session ends when its edge entry expires", async () => {
    const ops = await dashboardOperations();
    // Not vacuous: both services' dashboard operations are there.
    const names = ops.map((op) => `${op.method} ${op.path}`);
    expect(names).toContain("GET /api/v1/sites/{id}");
    expect(names).toContain("POST /api/v1/sites/{site_id}/api-keys");

    // The owner's session (to be revoked) and another account's live session (whose claims make the
    // forged and the expired tokens, so expiry or the signature is their only fault).
    const owner = await verifiedUser();
    const org = await createOrg(owner.access_token);
    // The owner's edge entry is cached by the first dashboard request after their last identity write
    // (createOrg dropped it): between these two instants.
    const cachedFrom = Date.now();
    const site = await createSite(owner.access_token, org.id);
    const live = await verifiedUser();
    const read = (token: string) => call("GET", `/api/v1/sites/${site.id}`, { token });

    // The owner's context is cached at the edge, then the session is revoked at identity directly (not
    // through this edge isolate, which would drop the user's entries at once).
    expect((await read(owner.access_token)).status).toBe(200);
    const cachedBy = Date.now();
    const revoke = await e.IDENTITY.fetch(`http://identity/api/v1/auth/sessions/${owner.session_id}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${owner.access_token}` },
    });
    expect(revoke.status).toBe(204);
    // Identity itself refuses the token at once.
    expect((await call("GET", "/api/v1/auth/sessions", { token: owner.access_token })).status).toBe(401);

    // Inside the bound the edge still serves it (the documented window) ...
    vi.useFakeTimers({ now: cachedFrom + EDGE_CONTEXT_TTL_MS - 1_000, toFake: ["Date"] });
    expect((await read(owner.access_token)).status).toBe(200);
    // ... and from the bound on, it is refused everywhere.
    vi.useFakeTimers({ now: cachedBy + EDGE_CONTEXT_TTL_MS + 500, toFake: ["Date"] });
    const batch = `/api/v1/sites/batch?ids=${site.id}`;
    expect((await call("GET", batch, { token: live.access_token })).status).toBe(200);

    const tokens = await badTokens(live.access_token, owner.access_token, e.JWT_SIGNING_KEYS);
    const before = await allRowCounts();
    const failures: string[] = [];
    for (const op of ops) {
      const bodies = new Set<string>();
      for (const { kind, token } of tokens) {
        const res = await send(op, token);
        if (res.status !== 401) failures.push(`${op.method} ${op.path} (${kind}): ${res.status} ${res.text}`);
        else if (kind === "expired") {
          // Said only of a token whose signature verified (docs/decisions/error-language.md): refresh.
          expect(JSON.parse(res.text)).toMatchObject({ status: 401, code: "TOKEN_EXPIRED" });
        } else {
          expect(JSON.parse(res.text)).toMatchObject({ status: 401, code: "UNAUTHENTICATED" });
          bodies.add(res.text);
        }
      }
      if (bodies.size > 1) failures.push(`${op.method} ${op.path}: ${bodies.size} different 401 bodies`);
    }
    expect(failures).toEqual([]);
    expect(await allRowCounts()).toEqual(before);
  });
});
