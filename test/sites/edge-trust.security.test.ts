/**
 * Issue 19, item 4: called directly (not through the gateway), sites believes edge headers only when the
 * gateway's HMAC over them verifies (src/lib/edge-trust.ts). Anything else is anonymous: a forged
 * `X-Platform-Operator` grants nothing, and a request without edge headers is not a service caller.
 * Unsigned, tampered, foreign-secret, stale, future and replayed-elsewhere signatures are all refused.
 */
import { describe, expect, it } from "vitest";
import { EDGE_SIGNATURE_HEADER } from "../../src/lib/edge";
import { EDGE_SIGNATURE_MAX_AGE_S, signEdgeHeaders as gatewaySigns } from "../../src/lib/edge-trust";
import { newId } from "../../src/lib/ids";
import { signEdgeHeaders } from "../support/edge-signing";
import { api, apiUnsigned, makeSite, orgMember, sites, sitesEnv, uniqueSlug } from "../support/sites-helpers";

const operator = () => ({ "x-platform-operator": "operator_admin", "x-user-id": newId() });

/** A GET of `path` with `headers` exactly as given (already signed, or not). */
async function raw(path: string, headers: Headers | Record<string, string>, method = "GET") {
  const res = await sites.fetch(`http://sites.internal${path}`, { method, headers });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("sites called directly: edge headers count only when the gateway signed them", () => {
  it("a forged X-Platform-Operator is anonymous: the console answers 403 as to anyone", async () => {
    const forged = await apiUnsigned("GET", "/api/v1/platform/sites?limit=1", { headers: operator() });
    expect(forged.status).toBe(403);
    expect(forged.body).toMatchObject({ code: "FORBIDDEN" });
    const nothing = await apiUnsigned("GET", "/api/v1/platform/sites?limit=1");
    expect(forged.body).toEqual(nothing.body);
    // The same headers signed as the gateway signs them work.
    expect((await api("GET", "/api/v1/platform/sites?limit=1", { headers: operator() })).status).toBe(200);
  });

  it("a request without edge headers is anonymous, not a service caller", async () => {
    const orgId = newId();
    const body = { org_id: orgId, name: "Unsigned", slug: uniqueSlug() };
    const unsigned = await apiUnsigned("POST", "/api/v1/sites", { body });
    expect(unsigned.status).toBe(403);
    expect(unsigned.body).toMatchObject({ code: "FORBIDDEN" });
    const { site } = await makeSite();
    const read = await apiUnsigned("GET", `/api/v1/sites/${site.id}`);
    const missing = await apiUnsigned("GET", `/api/v1/sites/${newId()}`);
    expect(read.status).toBe(404);
    expect(read.body).toEqual(missing.body);
    // Signed by a holder of the secret, the same request is a service caller (the spec's rule).
    expect((await api("POST", "/api/v1/sites", { body })).status).toBe(201);
  });

  it("an owner's headers unsigned read like a stranger's: 404, nothing written", async () => {
    const { site, owner } = await makeSite();
    expect((await api("GET", `/api/v1/sites/${site.id}`, { headers: owner })).status).toBe(200);
    const read = await apiUnsigned("GET", `/api/v1/sites/${site.id}`, { headers: owner });
    expect(read.status).toBe(404);
    const patch = await apiUnsigned("PATCH", `/api/v1/sites/${site.id}`, {
      headers: owner,
      body: { name: "Taken over" },
    });
    expect(patch.status).toBe(404);
    const del = await apiUnsigned("DELETE", `/api/v1/sites/${site.id}`, { headers: owner });
    expect(del.status).toBe(404);
    const row = await sitesEnv.DB.prepare("SELECT name, status FROM sites WHERE id = ?")
      .bind(site.id)
      .first<{ name: string; status: string }>();
    expect(row).toEqual({ name: "Test Site", status: site.status });
  });

  it("refuses a tampered, foreign, stale, future or replayed-elsewhere signature", async () => {
    const { site, orgId } = await makeSite();
    const path = `/api/v1/sites/${site.id}`;
    const url = `http://sites.internal${path}`;
    const owner = orgMember(orgId);
    expect((await raw(path, signEdgeHeaders("GET", url, owner))).status).toBe(200);

    // Signed as a stranger, then the memberships swapped for the owner's.
    const tampered = signEdgeHeaders("GET", url, orgMember(newId()));
    tampered.set("x-org-memberships", owner["x-org-memberships"]!);
    // A header added after signing counts as a change too.
    const added = signEdgeHeaders("GET", url, { "x-user-id": newId() });
    added.set("x-platform-operator", "operator_admin");
    const foreign = signEdgeHeaders("GET", url, owner, { secret: "a-forger-s-guess-of-the-secret" });
    const stale = signEdgeHeaders("GET", url, owner, {
      at: Date.now() - (EDGE_SIGNATURE_MAX_AGE_S + 5) * 1000,
    });
    const future = signEdgeHeaders("GET", url, owner, {
      at: Date.now() + (EDGE_SIGNATURE_MAX_AGE_S + 5) * 1000,
    });
    const otherPath = signEdgeHeaders("GET", `http://sites.internal/api/v1/sites/${newId()}`, owner);
    const otherMethod = signEdgeHeaders("DELETE", url, owner);
    const garbage = new Headers(owner);
    garbage.set(EDGE_SIGNATURE_HEADER, "t=1,v1=AAAA");
    // A client's own "verified" marker is removed before anything reads it.
    const marker = new Headers({ ...owner, "x-edge-verified": "1" });

    const missing = await raw(`/api/v1/sites/${newId()}`, {});
    for (const headers of [
      tampered,
      added,
      foreign,
      stale,
      future,
      otherPath,
      otherMethod,
      garbage,
      marker,
    ]) {
      const res = await raw(path, headers);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(missing.body);
    }
    const console = signEdgeHeaders("GET", "http://sites.internal/api/v1/platform/sites", {
      "x-user-id": newId(),
    });
    console.set("x-platform-operator", "operator_admin");
    expect((await raw("/api/v1/platform/sites", console)).status).toBe(403);
  });

  it("a signature just inside the window passes", async () => {
    const { site, owner } = await makeSite();
    const url = `http://sites.internal/api/v1/sites/${site.id}`;
    const recent = signEdgeHeaders("GET", url, owner, {
      at: Date.now() - (EDGE_SIGNATURE_MAX_AGE_S - 5) * 1000,
    });
    expect((await raw(`/api/v1/sites/${site.id}`, recent)).status).toBe(200);
  });

  it("the gateway's WebCrypto signature and the tests' helper agree byte for byte, body digested or counted", async () => {
    const url = "http://sites.internal/api/v1/sites/x?a=1";
    const at = Date.now();
    const json = new TextEncoder().encode(JSON.stringify({ name: "Agreed" }));
    for (const [contentType, body] of [
      ["application/json", json],
      ["application/octet-stream", json],
      ["application/json", new Uint8Array(1024 * 1024 + 1)],
      [null, null],
    ] as const) {
      const headers = new Headers(orgMember(newId()));
      if (contentType) headers.set("content-type", contentType);
      await gatewaySigns(
        sitesEnv.EDGE_HMAC_SECRET,
        { service: "sites", method: "PATCH", url, body },
        headers,
        at,
      );
      const helper = signEdgeHeaders("PATCH", url, headers, { at, body });
      expect(helper.get(EDGE_SIGNATURE_HEADER), String(contentType)).toBe(headers.get(EDGE_SIGNATURE_HEADER));
    }
  });

  it("service-to-service RPC is unaffected (no headers, no signature)", async () => {
    const { site, orgId } = await makeSite();
    expect(await sites.siteOrg(site.id)).toMatchObject({ org_id: orgId });
  });
});
