/**
 * Issue 19, item 4: called directly, content believes edge headers only when the gateway signed them
 * (src/lib/edge-trust.ts, run first on every route). Unsigned staff headers administer nothing (401 as
 * without a session); on key-authenticated routes, edge headers of any kind change nothing, which is the
 * rule for any public route content gets: there it ignores every edge header.
 */
import { describe, expect, it } from "vitest";
import { EDGE_SIGNATURE_HEADER } from "../../src/lib/edge";
import { BASE, call, content, ownerHeaders, problem, tenant } from "../support/content-helpers";
import { signEdgeHeaders } from "../support/edge-signing";

const keysPath = (siteId: string) => `/api/v1/sites/${siteId}/api-keys`;

/** A request exactly as given: no signature added. */
function unsigned(method: string, path: string, headers: HeadersInit, body?: unknown) {
  const h = new Headers(headers);
  if (body !== undefined) h.set("content-type", "application/json");
  return content.fetch(
    new Request(`${BASE}${path}`, {
      method,
      headers: h,
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
}

describe("content called directly: edge headers count only when the gateway signed them", () => {
  it("an owner's unsigned headers administer no key: 401 as without a session, nothing written", async () => {
    const t = await tenant();
    const owner = { ...ownerHeaders(t.site), "x-platform-operator": "operator_admin" };
    const before = await call("GET", keysPath(t.site.id), { headers: ownerHeaders(t.site) });
    expect(before.status).toBe(200);
    const listed = ((await before.json()) as { items: unknown[] }).items.length;

    const list = await unsigned("GET", keysPath(t.site.id), owner);
    expect(list.status).toBe(401);
    expect((await problem(list)).code).toBe("UNAUTHENTICATED");
    const create = await unsigned("POST", keysPath(t.site.id), owner, {
      name: "stolen",
      kind: "secret",
      scopes: ["posts:write"],
    });
    expect(create.status).toBe(401);
    // A signature by another secret, or a stale one, is the same as none.
    const url = `${BASE}${keysPath(t.site.id)}`;
    for (const headers of [
      signEdgeHeaders("GET", url, owner, { secret: "not-the-platform-secret" }),
      signEdgeHeaders("GET", url, owner, { at: Date.now() - 10 * 60_000 }),
    ]) {
      const res = await unsigned("GET", keysPath(t.site.id), headers);
      expect(res.status).toBe(401);
    }

    const after = await call("GET", keysPath(t.site.id), { headers: ownerHeaders(t.site) });
    expect(((await after.json()) as { items: unknown[] }).items).toHaveLength(listed);
  });

  it("on a key-authenticated route edge headers, forged or signed, change nothing", async () => {
    const t = await tenant();
    const forged = {
      ...ownerHeaders(t.site),
      "x-platform-operator": "operator_admin",
      [EDGE_SIGNATURE_HEADER]: "t=1,v1=forged",
      "x-edge-verified": "1",
    };
    const plain = await call("GET", "/v1/posts", { key: t.ck });
    const withForged = await unsigned("GET", "/v1/posts", { ...forged, authorization: `Bearer ${t.ck}` });
    expect(withForged.status).toBe(plain.status);
    expect(await withForged.json()).toEqual(await plain.json());
    // Without a key, edge headers are no way in either.
    const noKey = await unsigned("GET", "/v1/posts", forged);
    expect(noKey.status).toBe(401);
    const signedNoKey = await unsigned(
      "GET",
      "/v1/posts",
      signEdgeHeaders("GET", `${BASE}/v1/posts`, ownerHeaders(t.site)),
    );
    expect(signedNoKey.status).toBe(401);
  });
});
