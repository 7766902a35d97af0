import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  call,
  createSite,
  outboxCode,
  PASSWORD,
  type Session,
  totpFor,
  uniqueEmail,
} from "../support/platform";

/**
 * The platform journey across all four Workers, through the gateway only: signup, e-mail code, TOTP,
 * password + TOTP login, organization, site, API keys, a published post, and the public read with a
 * `pk_` key from an allowlisted origin.
 */
describe("platform journey", () => {
  it("runs from signup to a public read of a published post", async () => {
    const email = uniqueEmail("journey");

    const signup = await call("POST", "/api/v1/auth/signup", { body: { email, password: PASSWORD } });
    expect(signup.status).toBe(202);

    const code = await outboxCode(email, "email_verify");
    const verified = await call<Session & { token_type: string; expires_in: number }>(
      "POST",
      "/api/v1/auth/email/verify/confirm",
      { body: { email, code } },
    );
    expect(verified.status).toBe(200);
    expect(verified.body.token_type).toBe("Bearer");
    expect(verified.body.user.email).toBe(email);
    const [header] = verified.body.access_token.split(".");
    const jwtHeader = JSON.parse(atob(header!.replace(/-/g, "+").replace(/_/g, "/"))) as {
      alg: string;
      kid?: string;
    };
    expect(jwtHeader.alg).toBe("EdDSA");
    expect(jwtHeader.kid).toBeTruthy();
    const cookies = verified.headers.get("set-cookie") ?? "";
    expect(cookies).toContain("svc_session=");
    expect(cookies).toMatch(/svc_refresh=[^;]+;[^,]*HttpOnly/i);

    const enrol = await call<{ secret: string; otpauth_uri: string }>("POST", "/api/v1/auth/mfa/totp", {
      token: verified.body.access_token,
      body: {},
    });
    expect(enrol.status).toBe(200);
    expect(enrol.body.otpauth_uri).toMatch(/^otpauth:\/\/totp\//);
    const totp = totpFor(enrol.body.secret);
    const confirmTotp = await call("POST", "/api/v1/auth/mfa/totp/confirm", {
      token: verified.body.access_token,
      body: { code: totp.generate() },
    });
    expect(confirmTotp.status).toBeLessThan(300);

    // The code just used for enrolment cannot be replayed: log in with the next window's code.
    const login = await call<Session>("POST", "/api/v1/auth/login", {
      body: { email, password: PASSWORD, totp_code: totp.generate({ timestamp: Date.now() + 30_000 }) },
    });
    expect(login.status).toBe(200);
    const token = login.body.access_token;

    const org = await call<{ id: string; slug: string }>("POST", "/api/v1/auth/orgs", {
      token,
      body: { name: "Journey Org", slug: `journey-${Date.now().toString(36)}` },
    });
    expect(org.status).toBe(201);

    // The organization just created works on the holder's next request.
    const site = await createSite(token, org.body.id);
    expect(site.org_id).toBe(org.body.id);

    const secret = await call<{ id: string; key: string; kind: string }>(
      "POST",
      `/api/v1/sites/${site.id}/api-keys`,
      {
        token,
        body: { name: "autoposter", kind: "secret", scopes: ["posts:write", "posts:read"] },
      },
    );
    expect(secret.status).toBe(201);
    expect(secret.body.key).toMatch(/^ck_/);
    const origin = "https://reader.example";
    const publicKey = await call<{ key: string }>("POST", `/api/v1/sites/${site.id}/api-keys`, {
      token,
      body: { name: "site", kind: "public", scopes: ["posts:read"], allowed_origins: [origin] },
    });
    expect(publicKey.status).toBe(201);
    expect(publicKey.body.key).toMatch(/^pk_/);

    const post = await call<{ id: string; slug: string }>("POST", "/v1/posts", {
      token: secret.body.key,
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
    expect(post.status).toBe(201);
    expect(post.body.slug).toBe("hello-platform");

    const list = await call<{ items: { slug: string }[]; next_cursor: string | null }>("GET", "/v1/posts", {
      token: publicKey.body.key,
      headers: { origin },
    });
    expect(list.status).toBe(200);
    expect(list.body.items.map((p) => p.slug)).toEqual(["hello-platform"]);
    expect(list.headers.get("access-control-allow-origin")).toBe(origin);

    const detail = await call<{ slug: string; content_html: string }>("GET", "/v1/posts/hello-platform", {
      token: publicKey.body.key,
      headers: { origin },
    });
    expect(detail.status).toBe(200);
    expect(detail.body.content_html).toContain("<h2>Hello</h2>");
    expect(detail.body.content_html).toContain("<b>move</b>");
    expect(detail.body.content_html).not.toContain("<script");

    // The public key from another origin is refused.
    const elsewhere = await call("GET", "/v1/posts", {
      token: publicKey.body.key,
      headers: { origin: "https://evil.example" },
    });
    expect(elsewhere.status).toBe(403);

    // Content stores only a hash of each key: no row of any content table holds the key itself.
    const db = (env as unknown as { TEST_CONTENT_DB: D1Database }).TEST_CONTENT_DB;
    const tables = await db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT LIKE '%fts%'",
      )
      .all<{ name: string }>();
    expect(tables.results.length).toBeGreaterThan(0);
    let rows = 0;
    for (const { name } of tables.results) {
      const all = await db.prepare(`SELECT * FROM "${name}"`).all();
      rows += all.results.length;
      const dump = JSON.stringify(all.results);
      expect(dump).not.toContain(secret.body.key.slice(3));
      expect(dump).not.toContain(publicKey.body.key.slice(3));
    }
    expect(rows).toBeGreaterThan(0);
  });
});
