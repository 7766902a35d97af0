import { describe, expect, it } from "vitest";
import { SCOPES } from "../../src/content/keys/scopes";
import { newId } from "../../src/lib/ids";
import { contentDbOf } from "../support/content-groups";
import {
  call,
  content,
  createKey,
  makeSite,
  ORIGIN,
  ownerHeaders,
  problem,
  staffHeaders,
} from "../support/content-helpers";

const path = (siteId: string) => `/api/v1/sites/${siteId}/api-keys`;

describe("POST /api/v1/sites/{site_id}/api-keys", () => {
  it("creates a secret key shown once as ck_ + 32 random bytes base64url, stores only its keyed hash", async () => {
    const site = await makeSite();
    const res = await call("POST", path(site.id), {
      headers: ownerHeaders(site, "user-1"),
      body: { name: "autoposter", kind: "secret", scopes: ["posts:write", "posts:read"] },
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(
      [
        "allowed_origins",
        "author",
        "created_at",
        "id",
        "key",
        "kind",
        "name",
        "scopes",
        "server_reads",
      ].sort(),
    );
    expect(body.key).toMatch(/^ck_[A-Za-z0-9_-]{43}$/);
    expect(body.kind).toBe("secret");
    expect(body.scopes).toEqual(["posts:write", "posts:read"]);
    expect(body.allowed_origins).toEqual([]);
    expect(body.server_reads).toBe(false);
    expect(body).not.toHaveProperty("warnings");
    const row = await (await contentDbOf(site.id))
      .prepare("SELECT * FROM api_keys WHERE id = ?")
      .bind(body.id)
      .first<Record<string, unknown>>();
    expect(row).not.toBeNull();
    expect(JSON.stringify(row)).not.toContain(String(body.key));
    expect(row!.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row!.created_by).toBe("user-1");
  });

  it("creates a public key with exact allowed origins, read scopes only", async () => {
    const site = await makeSite();
    const res = await call("POST", path(site.id), {
      headers: ownerHeaders(site),
      body: { name: "widget", kind: "public", scopes: ["posts:read"], allowed_origins: [ORIGIN] },
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { key: string; allowed_origins: string[] };
    expect(body.key).toMatch(/^pk_[A-Za-z0-9_-]{43}$/);
    expect(body.allowed_origins).toEqual([ORIGIN]);
  });

  it("refuses a public key without allowed_origins, with a non-exact origin, or with a write scope", async () => {
    const site = await makeSite();
    const cases = [
      { body: { name: "x", kind: "public", scopes: ["posts:read"] }, code: "ALLOWED_ORIGINS_REQUIRED" },
      {
        body: { name: "x", kind: "public", scopes: ["posts:read"], allowed_origins: [] },
        code: "ALLOWED_ORIGINS_REQUIRED",
      },
      {
        body: { name: "x", kind: "public", scopes: ["posts:read"], allowed_origins: ["https://a.test/path"] },
        code: "INVALID_ORIGIN",
      },
      {
        body: { name: "x", kind: "public", scopes: ["posts:read"], allowed_origins: ["*"] },
        code: "INVALID_ORIGIN",
      },
      {
        body: { name: "x", kind: "public", scopes: ["posts:write"], allowed_origins: [ORIGIN] },
        code: "SCOPE_NOT_ALLOWED",
      },
      {
        body: { name: "x", kind: "public", scopes: ["leads:read"], allowed_origins: [ORIGIN] },
        code: "SCOPE_NOT_ALLOWED",
      },
    ];
    for (const c of cases) {
      const res = await call("POST", path(site.id), { headers: ownerHeaders(site), body: c.body });
      expect(res.status, JSON.stringify(c.body)).toBe(400);
      expect((await problem(res)).code).toBe(c.code);
    }
  });

  it("refuses unknown scopes, an empty scope list, and an unknown kind", async () => {
    const site = await makeSite();
    for (const body of [
      { name: "x", kind: "secret", scopes: ["posts:delete"] },
      { name: "x", kind: "secret", scopes: [] },
      { name: "x", kind: "root", scopes: ["posts:read"] },
      { name: "", kind: "secret", scopes: ["posts:read"] },
    ]) {
      const res = await call("POST", path(site.id), { headers: ownerHeaders(site), body });
      expect(res.status).toBe(400);
    }
  });

  it("leads:read is never granted by default: a key carries exactly the scopes asked for, and no 'all' grant exists", async () => {
    const site = await makeSite();
    for (const scopes of [undefined, ["all"], ["*"], ["leads:*"], ["posts:read", "all"]]) {
      const res = await call("POST", path(site.id), {
        headers: ownerHeaders(site),
        body: { name: "x", kind: "secret", ...(scopes ? { scopes } : {}) },
      });
      expect(res.status, JSON.stringify(scopes)).toBe(400);
    }
    const exportKey = await createKey(site, { scopes: ["export", "posts:write", "posts:read"] });
    expect(exportKey.scopes).toEqual(["export", "posts:write", "posts:read"]);
    const listed = (await (await call("GET", path(site.id), { headers: ownerHeaders(site) })).json()) as {
      items: { id: string; scopes: string[] }[];
    };
    expect(listed.items.find((k) => k.id === exportKey.id)!.scopes).not.toContain("leads:read");
    for (const p of ["/v1/leads", "/v1/export?resource=leads"]) {
      const res = await call("GET", p, { key: exportKey.key });
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ details: { missing_scopes: ["leads:read"] } });
    }
  });

  it("accepts every one of the 15 scopes (the spec's 14 and site:code) on a secret key", async () => {
    const site = await makeSite();
    const scopes = [...SCOPES];
    expect(scopes).toHaveLength(15);
    const key = await createKey(site, { scopes });
    expect(key.scopes).toEqual(scopes);
  });
});

describe("key administration: who may", () => {
  it("401 without a signed-in user", async () => {
    const site = await makeSite();
    const res = await call("GET", path(site.id));
    expect(res.status).toBe(401);
  });

  it("org_owner, org_admin and site_owner may; others (members:manage alone too) get the same 404 as a missing site", async () => {
    const site = await makeSite();
    const allowed = [
      staffHeaders("u1", { org: [{ org_id: site.org_id, role: "org_owner" }] }),
      staffHeaders("u2", { org: [{ org_id: site.org_id, role: "org_admin" }] }),
      staffHeaders("u4", { site: [{ site_id: site.id, role: "site_owner" }] }),
    ];
    for (const headers of allowed) {
      expect((await call("GET", path(site.id), { headers })).status).toBe(200);
    }
    const denied = [
      staffHeaders("u3", { org: [{ org_id: site.org_id, role: "editor", permissions: ["members:manage"] }] }),
      staffHeaders("u5", { org: [{ org_id: site.org_id, role: "org_member" }] }),
      staffHeaders("u6", { site: [{ site_id: site.id, role: "site_editor" }] }),
      staffHeaders("u7", { org: [{ org_id: newId(), role: "org_owner" }] }),
      staffHeaders("u8", { site: [{ site_id: newId(), role: "site_owner" }] }),
      { "x-user-id": "u9" },
      {
        ...staffHeaders("u10", { org: [{ org_id: site.org_id, role: "org_owner" }] }),
        "x-session-kind": "reader",
      },
    ];
    const missing = await call("GET", path(newId()), { headers: ownerHeaders(site) });
    expect(missing.status).toBe(404);
    const missingBody = await missing.text();
    for (const headers of denied) {
      const res = await call("GET", path(site.id), { headers });
      expect(res.status).toBe(404);
      expect(await res.text()).toBe(missingBody);
      const post = await call("POST", path(site.id), {
        headers,
        body: { name: "x", kind: "secret", scopes: ["posts:read"] },
      });
      expect(post.status).toBe(404);
    }
  });

  it("a deleted or archived site answers its own owner exactly like a missing one", async () => {
    const missing = await call("GET", path(newId()), { headers: ownerHeaders(await makeSite()) });
    for (const status of ["deleted", "archived"]) {
      const site = await makeSite();
      await content.syncSite({ ...site, status, updated_at: new Date(Date.now() + 1000).toISOString() });
      const res = await call("GET", path(site.id), { headers: ownerHeaders(site) });
      expect(res.status).toBe(404);
      expect(await res.text()).toBe(await missing.clone().text());
    }
  });
});

describe("GET and DELETE /api/v1/sites/{site_id}/api-keys", () => {
  it("lists active keys without the key itself, and revocation takes effect at once", async () => {
    const site = await makeSite();
    const key = await createKey(site, { scopes: ["posts:read"] });
    const before = await call("GET", "/v1/posts", { key: key.key });
    expect(before.status).toBe(200);

    const list = await call("GET", path(site.id), { headers: ownerHeaders(site) });
    const text = await list.text();
    expect(text).not.toContain(key.key);
    const items = (JSON.parse(text) as { items: { id: string; key_prefix: string }[] }).items;
    expect(items.map((i) => i.id)).toEqual([key.id]);
    expect(key.key.startsWith(items[0]!.key_prefix)).toBe(true);

    const del = await call("DELETE", `${path(site.id)}/${key.id}`, { headers: ownerHeaders(site) });
    expect(del.status).toBe(204);
    const after = await call("GET", "/v1/posts", { key: key.key });
    expect(after.status).toBe(401);
    const listed = (await (await call("GET", path(site.id), { headers: ownerHeaders(site) })).json()) as {
      items: unknown[];
    };
    expect(listed.items).toEqual([]);
    const again = await call("DELETE", `${path(site.id)}/${key.id}`, { headers: ownerHeaders(site) });
    expect(again.status).toBe(404);
  });

  it("another site's key id answers 404 and stays valid", async () => {
    const a = await makeSite();
    const b = await makeSite();
    const keyB = await createKey(b, { scopes: ["posts:read"] });
    const res = await call("DELETE", `${path(a.id)}/${keyB.id}`, { headers: ownerHeaders(a) });
    expect(res.status).toBe(404);
    expect((await call("GET", "/v1/posts", { key: keyB.key })).status).toBe(200);
  });

  it("deleted or archived sites make their keys stop working", async () => {
    for (const status of ["deleted", "archived"]) {
      const site = await makeSite();
      const key = await createKey(site, { scopes: ["posts:read"] });
      expect((await call("GET", "/v1/posts", { key: key.key })).status).toBe(200);
      await content.syncSite({ ...site, status, updated_at: new Date(Date.now() + 1000).toISOString() });
      expect((await call("GET", "/v1/posts", { key: key.key })).status).toBe(401);
    }
  });
});
