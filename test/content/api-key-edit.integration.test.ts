/**
 * Editing an API key (issue 35): `PATCH /api/v1/sites/{site_id}/api-keys/{id}` changes its name, scopes,
 * allowed origins and server reads. Narrowing holds on the very next request; widening costs what creating
 * costs (`integrations`) and is recorded on the key like its creation (`last_widened`); a revoked,
 * carried-over, unknown or other site's key is 404; concurrent edits leave one whole row.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { contentDbOf } from "../support/content-groups";
import {
  call,
  createKey,
  makeSite,
  ORIGIN,
  ownerHeaders,
  problem,
  staffHeaders,
} from "../support/content-helpers";

const keysPath = (siteId: string) => `/api/v1/sites/${siteId}/api-keys`;
const OTHER = "https://other.example.test";

interface Listed {
  id: string;
  name: string;
  scopes: string[];
  allowed_origins: string[];
  server_reads: boolean;
  last_widened: {
    at: string;
    by: string | null;
    added: { scopes: string[]; allowed_origins: string[]; server_reads: boolean };
  } | null;
  warnings?: { code: string; path: string; message: string }[];
}

function edit(site: { id: string }, id: string, body: unknown, headers: Record<string, string>) {
  return call("PATCH", `${keysPath(site.id)}/${id}`, { headers, body });
}

async function listed(site: Parameters<typeof ownerHeaders>[0], id: string): Promise<Listed> {
  const res = await call("GET", keysPath(site.id), { headers: ownerHeaders(site) });
  const { items } = (await res.json()) as { items: Listed[] };
  return items.find((k) => k.id === id)!;
}

describe("PATCH /api/v1/sites/{site_id}/api-keys/{id}: each field", () => {
  it("name: renamed, nothing else changes, no widening recorded", async () => {
    const site = await makeSite();
    const key = await createKey(site, { scopes: ["posts:read"] });
    const res = await edit(site, key.id, { name: "renamed" }, ownerHeaders(site));
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    const body = (await res.json()) as Listed & Record<string, unknown>;
    expect(body).toMatchObject({ id: key.id, name: "renamed", scopes: ["posts:read"], last_widened: null });
    expect(JSON.stringify(body)).not.toContain(key.key);
    expect(await listed(site, key.id)).toMatchObject({ name: "renamed", scopes: ["posts:read"] });
  });

  it("scopes: replaced; a public key still takes only read scopes (400 SCOPE_NOT_ALLOWED)", async () => {
    const site = await makeSite();
    const secret = await createKey(site, { scopes: ["posts:read"] });
    const res = await edit(site, secret.id, { scopes: ["posts:read", "posts:write"] }, ownerHeaders(site));
    expect(res.status).toBe(200);
    expect(((await res.json()) as Listed).scopes).toEqual(["posts:read", "posts:write"]);

    const pub = await createKey(site, { kind: "public", scopes: ["posts:read"] });
    const refused = await edit(site, pub.id, { scopes: ["posts:read", "posts:write"] }, ownerHeaders(site));
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      code: "SCOPE_NOT_ALLOWED",
      details: { forbidden: ["posts:write"] },
    });
    expect((await listed(site, pub.id)).scopes).toEqual(["posts:read"]);
    for (const scopes of [[], ["posts:delete"]]) {
      const bad = await edit(site, secret.id, { scopes }, ownerHeaders(site));
      expect(bad.status, JSON.stringify(scopes)).toBe(400);
    }
  });

  it("allowed_origins: replaced (public keys only; empty is ALLOWED_ORIGINS_REQUIRED; a secret key's is 400)", async () => {
    const site = await makeSite();
    const pub = await createKey(site, { kind: "public", scopes: ["posts:read"] });
    const res = await edit(site, pub.id, { allowed_origins: [OTHER, `${OTHER}/`] }, ownerHeaders(site));
    expect(res.status).toBe(200);
    expect(((await res.json()) as Listed).allowed_origins).toEqual([OTHER]);

    const empty = await edit(site, pub.id, { allowed_origins: [] }, ownerHeaders(site));
    expect(empty.status).toBe(400);
    expect((await problem(empty)).code).toBe("ALLOWED_ORIGINS_REQUIRED");
    const invalid = await edit(
      site,
      pub.id,
      { allowed_origins: ["https://a.test/path", "*"] },
      ownerHeaders(site),
    );
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({
      code: "INVALID_ORIGIN",
      details: { invalid: ["https://a.test/path", "*"] },
    });

    const secret = await createKey(site, { scopes: ["posts:read"] });
    const refused = await edit(site, secret.id, { allowed_origins: [OTHER] }, ownerHeaders(site));
    expect(refused.status).toBe(400);
    expect((await problem(refused)).code).toBe("BAD_REQUEST");
    expect((await listed(site, pub.id)).allowed_origins).toEqual([OTHER]);
  });

  it("server_reads: on and off on a public key; true on a secret key is 400", async () => {
    const site = await makeSite();
    const pub = await createKey(site, { kind: "public", scopes: ["posts:read"] });
    expect((await listed(site, pub.id)).server_reads).toBe(false);
    const on = await edit(site, pub.id, { server_reads: true }, ownerHeaders(site));
    expect(on.status).toBe(200);
    expect(((await on.json()) as Listed).server_reads).toBe(true);
    const off = await edit(site, pub.id, { server_reads: false }, ownerHeaders(site));
    expect(((await off.json()) as Listed).server_reads).toBe(false);

    const secret = await createKey(site, { scopes: ["posts:read"] });
    const refused = await edit(site, secret.id, { server_reads: true }, ownerHeaders(site));
    expect(refused.status).toBe(400);
    expect((await problem(refused)).code).toBe("BAD_REQUEST");
    expect((await listed(site, secret.id)).server_reads).toBe(false);
  });

  it("strict body: an unknown field is refused and named (400, details.path), nothing changes; an empty body is 400", async () => {
    const site = await makeSite();
    const key = await createKey(site, { scopes: ["posts:read"] });
    const res = await edit(site, key.id, { name: "x", scoeps: ["posts:write"] }, ownerHeaders(site));
    expect(res.status).toBe(400);
    const body = (await res.json()) as {
      code: string;
      detail: string;
      details: { path: string; unknown: string[] };
    };
    expect(body.code).toBe("BAD_REQUEST");
    expect(body.details).toEqual({ path: "scoeps", unknown: ["scoeps"] });
    expect(body.detail).toContain('"scoeps"');
    expect((await listed(site, key.id)).name).toBe("test key");
    const empty = await edit(site, key.id, {}, ownerHeaders(site));
    expect(empty.status).toBe(400);
    expect((await problem(empty)).code).toBe("BAD_REQUEST");
  });
});

describe("narrowing holds on the very next request", () => {
  it("a removed scope: the next read needing it is 403 INSUFFICIENT_SCOPE", async () => {
    const site = await makeSite();
    const key = await createKey(site, { scopes: ["posts:read", "post_types:read"] });
    // Warm this isolate's key cache with the old scopes.
    expect((await call("GET", "/v1/post-types", { key: key.key })).status).toBe(200);
    expect((await call("GET", "/v1/post-types", { key: key.key })).status).toBe(200);
    const res = await edit(site, key.id, { scopes: ["posts:read"] }, ownerHeaders(site));
    expect(res.status).toBe(200);
    const after = await call("GET", "/v1/post-types", { key: key.key });
    expect(after.status).toBe(403);
    expect(await after.json()).toMatchObject({
      code: "INSUFFICIENT_SCOPE",
      details: { missing_scopes: ["post_types:read"] },
    });
    expect((await call("GET", "/v1/posts", { key: key.key })).status).toBe(200);
    // Narrowing is no widening: nothing recorded.
    expect((await listed(site, key.id)).last_widened).toBeNull();
  });

  it("a removed origin: the next read from it is 403 ORIGIN_NOT_ALLOWED; the kept one still reads", async () => {
    const site = await makeSite();
    const key = await createKey(site, {
      kind: "public",
      scopes: ["posts:read"],
      allowed_origins: [ORIGIN, OTHER],
    });
    expect((await call("GET", "/v1/posts", { key: key.key, origin: OTHER })).status).toBe(200);
    expect((await call("GET", "/v1/posts", { key: key.key, origin: OTHER })).status).toBe(200);
    expect((await edit(site, key.id, { allowed_origins: [ORIGIN] }, ownerHeaders(site))).status).toBe(200);
    const after = await call("GET", "/v1/posts", { key: key.key, origin: OTHER });
    expect(after.status).toBe(403);
    expect((await problem(after)).code).toBe("ORIGIN_NOT_ALLOWED");
    expect((await call("GET", "/v1/posts", { key: key.key, origin: ORIGIN })).status).toBe(200);
  });

  it("server reads turned off: the next read without an Origin is 403", async () => {
    const site = await makeSite();
    const res = await call("POST", keysPath(site.id), {
      headers: ownerHeaders(site),
      body: {
        name: "ssr",
        kind: "public",
        scopes: ["posts:read"],
        allowed_origins: [ORIGIN],
        server_reads: true,
      },
    });
    const key = (await res.json()) as { id: string; key: string };
    expect((await call("GET", "/v1/posts", { key: key.key })).status).toBe(200);
    expect((await edit(site, key.id, { server_reads: false }, ownerHeaders(site))).status).toBe(200);
    const after = await call("GET", "/v1/posts", { key: key.key });
    expect(after.status).toBe(403);
    expect((await problem(after)).code).toBe("ORIGIN_NOT_ALLOWED");
  });

  it("a widened scope works on the very next request too", async () => {
    const site = await makeSite();
    const key = await createKey(site, { scopes: ["posts:read"] });
    expect((await call("GET", "/v1/post-types", { key: key.key })).status).toBe(403);
    await edit(site, key.id, { scopes: ["posts:read", "post_types:read"] }, ownerHeaders(site));
    expect((await call("GET", "/v1/post-types", { key: key.key })).status).toBe(200);
  });
});

describe("widening: the creation's cost and record", () => {
  it("is recorded on the key like its creation (who, when, what was added) and listed; a narrowing keeps the record", async () => {
    const site = await makeSite();
    const key = await createKey(site, { kind: "public", scopes: ["posts:read"] });
    const before = Date.now();
    const res = await edit(
      site,
      key.id,
      { scopes: ["posts:read", "seo:read"], allowed_origins: [ORIGIN, OTHER], server_reads: true },
      ownerHeaders(site, "admin-2"),
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as Listed;
    expect(body.last_widened).toMatchObject({
      by: "admin-2",
      added: { scopes: ["seo:read"], allowed_origins: [OTHER], server_reads: true },
    });
    expect(Date.parse(body.last_widened!.at)).toBeGreaterThanOrEqual(before - 1000);
    expect((await listed(site, key.id)).last_widened).toEqual(body.last_widened);
    const row = await (await contentDbOf(site.id))
      .prepare("SELECT widened_by, widened_at, widened_json, created_by FROM api_keys WHERE id = ?")
      .bind(key.id)
      .first<Record<string, string>>();
    expect(row).toMatchObject({ widened_by: "admin-2", created_by: `user-${site.id}` });
    expect(JSON.parse(row!.widened_json!)).toEqual({
      scopes: ["seo:read"],
      allowed_origins: [OTHER],
      server_reads: true,
    });

    // Narrowing (and renaming) after it: the record of the widening stays as it was.
    const narrowed = await edit(site, key.id, { scopes: ["posts:read"], name: "n" }, ownerHeaders(site));
    expect(((await narrowed.json()) as Listed).last_widened).toEqual(body.last_widened);
    // Sending what the key already has widens nothing.
    const same = await edit(
      site,
      key.id,
      { allowed_origins: [OTHER, ORIGIN], server_reads: true },
      ownerHeaders(site),
    );
    expect(((await same.json()) as Listed).last_widened).toEqual(body.last_widened);
    // A second widening replaces the record with what it added.
    const again = await edit(
      site,
      key.id,
      { scopes: ["posts:read", "media:read"] },
      ownerHeaders(site, "admin-3"),
    );
    expect(((await again.json()) as Listed).last_widened).toMatchObject({
      by: "admin-3",
      added: { scopes: ["media:read"], allowed_origins: [], server_reads: false },
    });
  });

  it("a member without `integrations` can neither widen nor narrow: the same 404 as a missing site, nothing changes", async () => {
    const site = await makeSite();
    const key = await createKey(site, { kind: "public", scopes: ["posts:read"] });
    const missing = await call("PATCH", `${keysPath(newId())}/${key.id}`, {
      headers: ownerHeaders(site),
      body: { scopes: ["posts:read", "seo:read"] },
    });
    expect(missing.status).toBe(404);
    const missingBody = await missing.text();
    const members = [
      staffHeaders("editor", {
        org: [{ org_id: site.org_id, role: "editor", permissions: ["sites:manage"] }],
      }),
      staffHeaders("member", { org: [{ org_id: site.org_id, role: "org_member" }] }),
      staffHeaders("site-editor", { site: [{ site_id: site.id, role: "site_editor" }] }),
      staffHeaders("custom", {
        site: [{ site_id: site.id, role: "custom", permissions: ["integrations"] } as never],
      }),
    ];
    for (const headers of members) {
      for (const body of [
        { scopes: ["posts:read", "seo:read"] },
        { server_reads: true },
        { scopes: ["media:read"] },
      ]) {
        const res = await edit(site, key.id, body, headers);
        expect(res.status, `${headers["x-user-id"]} ${JSON.stringify(body)}`).toBe(404);
        expect(await res.text()).toBe(missingBody);
      }
    }
    expect(await listed(site, key.id)).toMatchObject({
      scopes: ["posts:read"],
      server_reads: false,
      last_widened: null,
    });
  });
});

describe("which keys can be edited", () => {
  it("a revoked key, an unknown id and an id that is no id: 404 with one body", async () => {
    const site = await makeSite();
    const key = await createKey(site, { scopes: ["posts:read"] });
    const unknown = await edit(site, newId(), { name: "x" }, ownerHeaders(site));
    expect(unknown.status).toBe(404);
    const unknownBody = await unknown.text();
    expect(
      (await call("DELETE", `${keysPath(site.id)}/${key.id}`, { headers: ownerHeaders(site) })).status,
    ).toBe(204);
    for (const id of [key.id, "not-an-id"]) {
      const res = await edit(site, id, { name: "x" }, ownerHeaders(site));
      expect(res.status).toBe(404);
      expect(await res.text()).toBe(unknownBody);
    }
    // Revoked stays revoked: an edit never brings it back.
    expect((await call("GET", "/v1/posts", { key: key.key })).status).toBe(401);
  });

  it("tenant wall: another site's key id is 404 with the same body, and that key is unchanged", async () => {
    const a = await makeSite();
    const b = await makeSite();
    const keyB = await createKey(b, { scopes: ["posts:read"] });
    const unknown = await edit(a, newId(), { name: "x" }, ownerHeaders(a));
    const unknownBody = await unknown.text();
    const res = await edit(a, keyB.id, { name: "stolen", scopes: ["posts:read", "export"] }, ownerHeaders(a));
    expect(res.status).toBe(404);
    expect(await res.text()).toBe(unknownBody);
    // A's owner on B's path: B is a missing site to them.
    const onB = await edit(b, keyB.id, { name: "stolen" }, ownerHeaders(a));
    expect(onB.status).toBe(404);
    expect(await listed(b, keyB.id)).toMatchObject({
      name: "test key",
      scopes: ["posts:read"],
      last_widened: null,
    });
  });

  it("a key a transfer carried over is 404 to the new owner until kept, then editable", async () => {
    const site = await makeSite();
    const key = await createKey(site, { kind: "public", scopes: ["posts:read"] });
    const to = newId();
    const queue = (env as unknown as { TEST_SITE_TRANSFERRED: Queue }).TEST_SITE_TRANSFERRED;
    await queue.send({
      type: "site.transferred",
      transfer_id: newId(),
      site_id: site.id,
      from_org_id: site.org_id,
      to_org_id: to,
      mode: "transfer",
      share_role: null,
      at: new Date().toISOString(),
    });
    for (let i = 0; i < 100; i++) {
      const row = await (await contentDbOf(site.id))
        .prepare("SELECT carried_over_at FROM api_keys WHERE id = ?")
        .bind(key.id)
        .first<{ carried_over_at: string | null }>();
      if (row?.carried_over_at) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const buyer = staffHeaders("buyer", { org: [{ org_id: to, role: "org_owner" }] });
    const unknown = await edit(site, newId(), { name: "x" }, buyer);
    expect(unknown.status).toBe(404);
    const res = await edit(site, key.id, { scopes: ["posts:read", "seo:read"], server_reads: true }, buyer);
    expect(res.status).toBe(404);
    expect(await res.text()).toBe(await unknown.text());
    expect((await call("POST", `${keysPath(site.id)}/${key.id}/keep`, { headers: buyer })).status).toBe(200);
    const kept = await edit(site, key.id, { name: "kept" }, buyer);
    expect(kept.status).toBe(200);
  });
});

describe("concurrent edits", () => {
  it("50 concurrent PATCHes leave one whole row: one writer's name, origins and scopes, and its widening's record", async () => {
    const site = await makeSite();
    const key = await createKey(site, { kind: "public", scopes: ["posts:read"] });
    const scopeSets = [
      ["posts:read"],
      ["posts:read", "seo:read"],
      ["posts:read", "media:read"],
      ["posts:read", "post_types:read", "seo:read"],
    ];
    const bodies = Array.from({ length: 50 }, (_, i) => ({
      name: `writer-${i}`,
      allowed_origins: [`https://w${i}.example.test`],
      scopes: scopeSets[i % scopeSets.length]!,
    }));
    const results = await Promise.all(
      bodies.map((body) => edit(site, key.id, body, ownerHeaders(site, `admin-${body.name}`))),
    );
    for (const res of results) expect(res.status).toBe(200);
    const final = await listed(site, key.id);
    const i = Number(final.name.replace("writer-", ""));
    expect(final).toMatchObject({
      name: `writer-${i}`,
      allowed_origins: [`https://w${i}.example.test`],
      scopes: scopeSets[i % scopeSets.length],
    });
    // Every edit added its origin: the record is the last writer's, whole.
    expect(final.last_widened).toMatchObject({
      by: `admin-writer-${i}`,
      added: { allowed_origins: [`https://w${i}.example.test`] },
    });
    // The key in use agrees with the row.
    expect(
      (await call("GET", "/v1/posts", { key: key.key, origin: `https://w${i}.example.test` })).status,
    ).toBe(200);
  });
});

describe("sites:read: accepted, reserved", () => {
  it("a key whose only scope is sites:read is created with a RESERVED_SCOPE warning; with another scope, none", async () => {
    const site = await makeSite();
    const res = await call("POST", keysPath(site.id), {
      headers: ownerHeaders(site),
      body: { name: "reserved", kind: "secret", scopes: ["sites:read"] },
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { id: string; scopes: string[]; warnings?: Listed["warnings"] };
    expect(body.scopes).toEqual(["sites:read"]);
    expect(body.warnings).toEqual([
      expect.objectContaining({
        code: "RESERVED_SCOPE",
        path: "scopes",
        message: expect.stringContaining("sites:read"),
      }),
    ]);
    for (const [kind, scopes] of [
      ["secret", ["sites:read", "posts:read"]],
      ["public", ["sites:read", "posts:read"]],
    ] as const) {
      const other = await call("POST", keysPath(site.id), {
        headers: ownerHeaders(site),
        body: { name: "x", kind, scopes, ...(kind === "public" ? { allowed_origins: [ORIGIN] } : {}) },
      });
      expect(other.status).toBe(201);
      expect(await other.json()).not.toHaveProperty("warnings");
    }
    // Editing a key down to sites:read alone warns the same way.
    const key = await createKey(site, { scopes: ["posts:read"] });
    const edited = await edit(site, key.id, { scopes: ["sites:read"] }, ownerHeaders(site));
    expect(((await edited.json()) as Listed).warnings).toEqual([
      expect.objectContaining({ code: "RESERVED_SCOPE" }),
    ]);
    const fine = await edit(site, key.id, { name: "y" }, ownerHeaders(site));
    expect(await fine.json()).toHaveProperty("warnings");
    const mixed = await edit(site, key.id, { scopes: ["sites:read", "posts:read"] }, ownerHeaders(site));
    expect(await mixed.json()).not.toHaveProperty("warnings");
  });
});

describe("wildcard origins, on create and on PATCH", () => {
  const WILD = "https://*.my-project.pages.dev";

  it("a key made with a wildcard reads from one label below it only, over https", async () => {
    const site = await makeSite();
    const key = await createKey(site, { kind: "public", scopes: ["posts:read"], allowed_origins: [WILD] });
    expect(key.allowed_origins).toEqual([WILD]);
    for (const [origin, status] of [
      ["https://abc.my-project.pages.dev", 200],
      ["https://my-project.pages.dev", 403],
      ["https://a.b.my-project.pages.dev", 403],
      ["http://abc.my-project.pages.dev", 403],
      ["https://abc.other.pages.dev", 403],
    ] as const) {
      const res = await call("GET", "/v1/posts", { key: key.key, origin });
      expect(res.status, origin).toBe(status);
      if (status === 200) expect(res.headers.get("access-control-allow-origin")).toBe(origin);
    }
  });

  it("never `*` alone nor directly under a public suffix: 400 INVALID_ORIGIN on create and on PATCH, nothing changes", async () => {
    const site = await makeSite();
    const key = await createKey(site, { kind: "public", scopes: ["posts:read"] });
    for (const origin of [
      "*",
      "https://*.pages.dev",
      "https://*.com",
      "https://*.co.uk",
      "http://*.my-project.pages.dev",
    ]) {
      const created = await call("POST", keysPath(site.id), {
        headers: ownerHeaders(site),
        body: { name: "x", kind: "public", scopes: ["posts:read"], allowed_origins: [origin] },
      });
      expect(created.status, origin).toBe(400);
      expect((await problem(created)).code, origin).toBe("INVALID_ORIGIN");
      const edited = await edit(site, key.id, { allowed_origins: [ORIGIN, origin] }, ownerHeaders(site));
      expect(edited.status, origin).toBe(400);
      expect(await edited.json(), origin).toMatchObject({
        code: "INVALID_ORIGIN",
        details: { invalid: [origin] },
      });
    }
    expect((await listed(site, key.id)).allowed_origins).toEqual([ORIGIN]);
  });

  it("a wildcard added by PATCH is a widening (recorded), and reads from it work at once", async () => {
    const site = await makeSite();
    const key = await createKey(site, { kind: "public", scopes: ["posts:read"] });
    expect(
      (await call("GET", "/v1/posts", { key: key.key, origin: "https://pr-7.my-project.pages.dev" })).status,
    ).toBe(403);
    const res = await edit(site, key.id, { allowed_origins: [ORIGIN, WILD] }, ownerHeaders(site));
    expect(((await res.json()) as Listed).last_widened).toMatchObject({ added: { allowed_origins: [WILD] } });
    expect(
      (await call("GET", "/v1/posts", { key: key.key, origin: "https://pr-7.my-project.pages.dev" })).status,
    ).toBe(200);
  });
});
