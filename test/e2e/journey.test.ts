import { exports } from "cloudflare:workers";
import { bearer, contentClient, identityClient, sitesClient } from "@site-platform/client";
import { describe, expect, it } from "vitest";
import { allContentDbs, contentDirectory } from "../support/content-groups";
import { outboxCode, PASSWORD, totpFor, uniqueEmail } from "../support/platform";

/** The typed clients (generated from the services' OpenAPI documents), through the gateway. */
const edge = (request: Request) => exports.default.fetch(request);
const options = { fetch: edge, baseUrl: "http://localhost:8787" };
const identity = identityClient(options);
const content = contentClient(options);
const sites = sitesClient(options);

/**
 * The platform journey across all four Workers, through the gateway only: signup, e-mail code, TOTP,
 * password + TOTP login, organization, site, API keys, a published post, and the public read with a
 * `pk_` key from an allowlisted origin. Every call goes through the typed clients, so a renamed path or
 * field in a service's API breaks this file's typecheck.
 */
describe("platform journey", () => {
  it("runs from signup to a public read of a published post", async () => {
    const email = uniqueEmail("journey");

    const signup = await identity.POST("/api/v1/auth/signup", { body: { email, password: PASSWORD } });
    expect(signup.response.status).toBe(202);

    const code = await outboxCode(email, "email_verify");
    const verified = await identity.POST("/api/v1/auth/email/verify/confirm", { body: { email, code } });
    expect(verified.response.status).toBe(200);
    const session = verified.data!;
    expect(session.token_type).toBe("Bearer");
    expect(session.user.email).toBe(email);
    const [header] = session.access_token.split(".");
    const jwtHeader = JSON.parse(atob(header!.replace(/-/g, "+").replace(/_/g, "/"))) as {
      alg: string;
      kid?: string;
    };
    expect(jwtHeader.alg).toBe("EdDSA");
    expect(jwtHeader.kid).toBeTruthy();
    const cookies = verified.response.headers.get("set-cookie") ?? "";
    expect(cookies).toContain("svc_session=");
    expect(cookies).toMatch(/svc_refresh=[^;]+;[^,]*HttpOnly/i);

    const enrol = await identity.POST("/api/v1/auth/mfa/totp", { headers: bearer(session.access_token) });
    expect(enrol.response.status).toBe(200);
    expect(enrol.data!.otpauth_uri).toMatch(/^otpauth:\/\/totp\//);
    const totp = totpFor(enrol.data!.secret);
    const confirmTotp = await identity.POST("/api/v1/auth/mfa/totp/confirm", {
      headers: bearer(session.access_token),
      body: { code: totp.generate() },
    });
    expect(confirmTotp.response.status).toBeLessThan(300);

    // The code just used for enrolment cannot be replayed: log in with the next window's code.
    const login = await identity.POST("/api/v1/auth/login", {
      body: { email, password: PASSWORD, totp_code: totp.generate({ timestamp: Date.now() + 30_000 }) },
    });
    expect(login.response.status).toBe(200);
    const token = login.data!.access_token;

    const org = await identity.POST("/api/v1/auth/orgs", {
      headers: bearer(token),
      body: { name: "Journey Org", slug: `journey-${crypto.randomUUID().slice(0, 8)}` },
    });
    expect(org.response.status).toBe(201);

    // The organization just created works on the holder's next request.
    const created = await sites.POST("/api/v1/sites", {
      headers: bearer(token),
      body: {
        org_id: org.data!.id,
        name: "Site",
        slug: `site-${crypto.randomUUID().slice(0, 8)}`,
        default_language: "en",
      },
    });
    expect(created.response.status).toBe(201);
    const site = created.data!;
    expect(site.org_id).toBe(org.data!.id);

    const secret = await content.POST("/api/v1/sites/{site_id}/api-keys", {
      params: { path: { site_id: site.id } },
      headers: bearer(token),
      body: { name: "autoposter", kind: "secret", scopes: ["posts:write", "posts:read"] },
    });
    expect(secret.response.status).toBe(201);
    const secretKey = secret.data!.key;
    expect(secretKey).toMatch(/^ck_/);
    const origin = "https://reader.example";
    const publicKey = await content.POST("/api/v1/sites/{site_id}/api-keys", {
      params: { path: { site_id: site.id } },
      headers: bearer(token),
      body: { name: "site", kind: "public", scopes: ["posts:read"], allowed_origins: [origin] },
    });
    expect(publicKey.response.status).toBe(201);
    const readKey = publicKey.data!.key;
    expect(readKey).toMatch(/^pk_/);

    const post = await content.POST("/v1/posts", {
      headers: bearer(secretKey),
      body: {
        title: "Hello, platform",
        summary: "The first post",
        status: "published",
        blocks_json: {
          blocks: [
            { id: "a1", type: "header", data: { text: "Hello", level: 2 } },
            { id: "a2", type: "paragraph", data: { text: "Bold <b>move</b><script>alert(1)</script>" } },
          ],
        },
      },
    });
    expect(post.response.status).toBe(201);
    expect(post.data!.slug).toBe("hello-platform");

    const list = await content.GET("/v1/posts", { headers: { ...bearer(readKey), origin } });
    expect(list.response.status).toBe(200);
    expect(list.data!.items.map((p) => p.slug)).toEqual(["hello-platform"]);
    expect(list.response.headers.get("access-control-allow-origin")).toBe(origin);

    const detail = await content.GET("/v1/posts/{reference}", {
      params: { path: { reference: "hello-platform" } },
      headers: { ...bearer(readKey), origin },
    });
    expect(detail.response.status).toBe(200);
    expect(detail.data!.content_html).toContain("<h2>Hello</h2>");
    expect(detail.data!.content_html).toContain("<b>move</b>");
    expect(detail.data!.content_html).not.toContain("<script");

    // The public key from another origin is refused.
    const elsewhere = await content.GET("/v1/posts", {
      headers: { ...bearer(readKey), origin: "https://evil.example" },
    });
    expect(elsewhere.response.status).toBe(403);

    // Content stores only a hash of each key: no row of any content table holds the key itself, in any
    // site group or the directory (docs/decisions/site-groups.md).
    let rows = 0;
    for (const db of [...allContentDbs(), contentDirectory]) {
      const tables = await db
        .prepare(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT LIKE '%fts%'",
        )
        .all<{ name: string }>();
      expect(tables.results.length).toBeGreaterThan(0);
      for (const { name } of tables.results) {
        const all = await db.prepare(`SELECT * FROM "${name}"`).all();
        rows += all.results.length;
        const dump = JSON.stringify(all.results);
        expect(dump).not.toContain(secretKey.slice(3));
        expect(dump).not.toContain(readKey.slice(3));
      }
    }
    expect(rows).toBeGreaterThan(0);
  });
});
