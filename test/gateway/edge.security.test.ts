import { describe, expect, it } from "vitest";
import { call, createOrg, createSite, verifiedUser } from "../support/platform";

/** The edge contract: client-sent edge headers are stripped and set only from the verified identity. */
describe("edge headers", () => {
  const forged = (orgId: string, siteId: string, userId: string) => ({
    "x-org-memberships": JSON.stringify([
      { org_id: orgId, role: "org_owner", permissions: ["members:manage"] },
    ]),
    "x-site-memberships": JSON.stringify([{ site_id: siteId, role: "site_owner" }]),
    "x-user-id": userId,
    "x-platform-operator": "operator_admin",
    "x-session-kind": "staff",
    "X-Org-Memberships": JSON.stringify([{ org_id: orgId, role: "org_owner", permissions: [] }]),
  });

  it("never grant access: without a Bearer the dashboard API answers 401", async () => {
    const owner = await verifiedUser();
    const org = await createOrg(owner.access_token);
    const site = await createSite(owner.access_token, org.id);

    const read = await call("GET", `/api/v1/sites/${site.id}`, {
      headers: forged(org.id, site.id, owner.user.id),
    });
    expect(read.status).toBe(401);
    const create = await call("POST", "/api/v1/sites", {
      headers: forged(org.id, site.id, owner.user.id),
      body: { org_id: org.id, name: "x", slug: `forged-${Date.now()}` },
    });
    expect(create.status).toBe(401);
    const keys = await call("GET", `/api/v1/sites/${site.id}/api-keys`, {
      headers: forged(org.id, site.id, owner.user.id),
    });
    expect(keys.status).toBe(401);
  });

  it("never grant access: with another user's Bearer the forged memberships are replaced by the real ones", async () => {
    const owner = await verifiedUser();
    const org = await createOrg(owner.access_token);
    const site = await createSite(owner.access_token, org.id);
    const intruder = await verifiedUser();
    const headers = forged(org.id, site.id, owner.user.id);
    const token = intruder.access_token;

    const missing = await call("GET", "/api/v1/sites/01JAAAAAAAAAAAAAAAAAAAAAAA", { token });
    const read = await call("GET", `/api/v1/sites/${site.id}`, { token, headers });
    expect(read.status).toBe(404);
    expect(read.body).toEqual(missing.body);

    const patch = await call("PATCH", `/api/v1/sites/${site.id}`, {
      token,
      headers,
      body: { name: "owned" },
    });
    expect(patch.status).toBe(404);
    const del = await call("DELETE", `/api/v1/sites/${site.id}`, { token, headers });
    expect(del.status).toBe(404);

    const create = await call("POST", "/api/v1/sites", {
      token,
      headers,
      body: { org_id: org.id, name: "x", slug: `forged-${Date.now()}` },
    });
    expect(create.status).toBe(403);
    expect(create.body).toMatchObject({ code: "FORBIDDEN" });

    const batch = await call<unknown[]>("GET", `/api/v1/sites/batch?ids=${site.id}`, { token, headers });
    expect(batch.status).toBe(200);
    expect(JSON.stringify(batch.body)).not.toContain(site.id);

    const keys = await call("POST", `/api/v1/sites/${site.id}/api-keys`, {
      token,
      headers,
      body: { name: "stolen", kind: "secret", scopes: ["posts:write"] },
    });
    expect(keys.status).toBe(404);

    // The owner still reaches the site: the real memberships were set by the edge.
    const own = await call("GET", `/api/v1/sites/${site.id}`, { token: owner.access_token });
    expect(own.status).toBe(200);
  });

  it("refuses a forged or tampered access token", async () => {
    const owner = await verifiedUser();
    const [h, p, s] = owner.access_token.split(".");
    const claims = JSON.parse(atob(p!.replace(/-/g, "+").replace(/_/g, "/"))) as Record<string, unknown>;
    const tampered = btoa(JSON.stringify({ ...claims, sub: "01JAAAAAAAAAAAAAAAAAAAAAAA" }))
      .replace(/=+$/, "")
      .replace(/\+/g, "-")
      .replace(/\//g, "_");
    expect(
      (
        await call("GET", "/api/v1/sites/batch?ids=01JAAAAAAAAAAAAAAAAAAAAAAA", {
          token: `${h}.${tampered}.${s}`,
        })
      ).status,
    ).toBe(401);
    const none = `${btoa(JSON.stringify({ alg: "none", typ: "JWT" })).replace(/=+$/, "")}.${p}.`;
    expect(
      (await call("GET", "/api/v1/sites/batch?ids=01JAAAAAAAAAAAAAAAAAAAAAAA", { token: none })).status,
    ).toBe(401);
  });
});

describe("edge basics", () => {
  it("answers /health itself and /ready when every service is ready", async () => {
    expect((await call("GET", "/health")).status).toBe(200);
    const ready = await call<{ status: string }>("GET", "/ready");
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe("ready");
  });

  it("answers identity's probes through the edge with its standard 404 problem", async () => {
    for (const path of ["/api/v1/auth/health", "/api/v1/auth/ready"]) {
      const res = await call("GET", path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      expect(res.body).toEqual({
        type: "about:blank",
        title: "Not Found",
        status: 404,
        code: "NOT_FOUND",
        detail: "No such resource.",
      });
    }
    expect((await call("GET", "/health")).status).toBe(200);
  });

  it("returns a problem+json 404 for a path outside the route table", async () => {
    const res = await call("GET", "/nowhere");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toContain("application/problem+json");
    expect(res.body).toMatchObject({ status: 404, code: "NOT_FOUND" });
  });

  it("echoes a well-formed X-Request-Id and makes one otherwise", async () => {
    const given = await call("GET", "/health", { headers: { "x-request-id": "req-12345678" } });
    expect(given.headers.get("x-request-id")).toBe("req-12345678");
    const made = await call("GET", "/health", { headers: { "x-request-id": "<script>" } });
    expect(made.headers.get("x-request-id")).toMatch(/^[0-9A-Z]{26}$/);
  });

  it("allows credentialed CORS on the dashboard API only from allowlisted origins", async () => {
    const allowed = await call("OPTIONS", "/api/v1/sites", {
      headers: { origin: "http://localhost:5173", "access-control-request-method": "POST" },
    });
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
    expect(allowed.headers.get("access-control-allow-credentials")).toBe("true");
    const refused = await call("OPTIONS", "/api/v1/sites", {
      headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
    });
    expect(refused.headers.get("access-control-allow-origin")).toBeNull();
    const content = await call("OPTIONS", "/v1/posts", {
      headers: { origin: "https://any.example", "access-control-request-method": "GET" },
    });
    expect(content.headers.get("access-control-allow-origin")).toBe("https://any.example");
    expect(content.headers.get("access-control-allow-credentials")).toBeNull();
    // If-Match (a post's PATCH on the dashboard routes) from the dashboard's origins only (issue 34).
    expect(content.headers.get("access-control-allow-headers")).not.toMatch(/if-match/i);
  });

  it("lets the dashboard's origins call the dashboard's content routes, If-Match included (issue 34)", async () => {
    const path = "/api/v1/sites/01JAAAAAAAAAAAAAAAAAAAAAAA/posts/hello-world";
    const allowed = await call("OPTIONS", path, {
      headers: {
        origin: "http://localhost:5173",
        "access-control-request-method": "PATCH",
        "access-control-request-headers": "authorization, content-type, if-match",
      },
    });
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
    expect(allowed.headers.get("access-control-allow-methods")).toContain("PATCH");
    expect(allowed.headers.get("access-control-allow-headers")).toMatch(/\bIf-Match\b/);
    expect(allowed.headers.get("access-control-expose-headers")).toMatch(/\bETag\b/);
    const refused = await call("OPTIONS", path, {
      headers: { origin: "https://evil.example", "access-control-request-method": "PATCH" },
    });
    expect(refused.headers.get("access-control-allow-origin")).toBeNull();
    expect(refused.headers.get("access-control-allow-headers")).toBeNull();
  });
});

describe("edge body limit", () => {
  it("refuses a body above 9 MiB with 413 before it reaches a service", async () => {
    const big = "x".repeat(9 * 1024 * 1024 + 1);
    const res = await call("POST", "/v1/posts", { body: { title: big }, token: "ck_whatever" });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
  });
});

describe("by-host through the edge", () => {
  it("answers the renderer without a session, with the public view only", async () => {
    const owner = await verifiedUser();
    const org = await createOrg(owner.access_token);
    const site = await createSite(owner.access_token, org.id);
    const res = await call<Record<string, unknown>>(
      "GET",
      `/api/v1/sites/by-host?host=${site.slug}.sites.localhost`,
    );
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(site.id);
    expect(res.body.org_id).toBeUndefined();
    const unknown = await call("GET", "/api/v1/sites/by-host?host=nothing-here.sites.localhost");
    expect(unknown.status).toBe(404);
  });
});

describe("the development host proof through the edge (issue 31)", () => {
  it("needs the Bearer of a member holding settings on the site: none is 401, another tenant's is 404, the owner's proves", async () => {
    const owner = await verifiedUser();
    const org = await createOrg(owner.access_token);
    const site = await createSite(owner.access_token, org.id);
    const host = `blog.${site.slug}.example.com`;
    const patched = await call("PATCH", `/api/v1/sites/${site.id}`, {
      token: owner.access_token,
      body: { primary_domain: host },
    });
    expect(patched.status).toBe(200);
    const prove = (options: { token?: string; headers?: Record<string, string> } = {}) =>
      call("POST", "/api/v1/sites/__dev/prove-host", { body: { host }, ...options });

    for (const res of [
      await prove(),
      await prove({ token: "not-a-jwt" }),
      await prove({
        headers: {
          "x-user-id": owner.user.id,
          "x-session-kind": "staff",
          "x-org-memberships": JSON.stringify([
            { org_id: org.id, role: "org_owner", permissions: [], owner: true },
          ]),
        },
      }),
    ]) {
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: "UNAUTHENTICATED" });
    }
    const stranger = await verifiedUser();
    const denied = await prove({ token: stranger.access_token });
    expect(denied.status).toBe(404);
    expect((await call("GET", `/api/v1/sites/by-host?host=${host}`)).status).toBe(404);

    const proved = await prove({ token: owner.access_token });
    expect(proved.status).toBe(200);
    expect(proved.body).toEqual({ host, site_id: site.id, verified: true });
    const served = await call<Record<string, unknown>>("GET", `/api/v1/sites/by-host?host=${host}`);
    expect(served.body.id).toBe(site.id);
  });
});

describe("scheme forwarding", () => {
  it("tells identity the client's real scheme, so cookies over https are Secure and a client's claim is ignored", async () => {
    const { exports } = await import("cloudflare:workers");
    const session = await verifiedUser();
    const refresh = (base: string, headers: Record<string, string> = {}) =>
      exports.default.fetch(`${base}/api/v1/auth/refresh`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ refresh_token: current }),
      });
    let current = session.refresh_token;
    const overHttps = await refresh("https://platform.example");
    expect(overHttps.status).toBe(200);
    expect(overHttps.headers.get("set-cookie")).toMatch(/svc_refresh=[^,]*Secure/i);
    current = ((await overHttps.json()) as { refresh_token: string }).refresh_token;
    const spoofed = await refresh("http://127.0.0.1:8787", { "x-forwarded-proto": "https" });
    expect(spoofed.status).toBe(200);
    expect(spoofed.headers.get("set-cookie")).not.toMatch(/Secure/i);
  });
});
