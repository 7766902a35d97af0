/**
 * RFC 7591 registration of OAuth clients (issue 37, docs/decisions/oauth-agents.md "Clients") through the real
 * identity Worker: public and confidential clients, what is stored (the secret's hash only), unknown members
 * ignored and never echoed, each refusal as RFC 7591 JSON (never problem+json), the body cap, and the per-IP
 * quota counted and checked in one step (50 at once never pass 20). `resolveClient` and `verifyClientSecret`
 * read the registrations back as the consent page and the token endpoint will.
 */
import { describe, expect, it } from "vitest";
import { base64url } from "../../src/identity/core/crypto";
import { REGISTRATION_QUOTA, resolveClient, verifyClientSecret } from "../../src/identity/oauth/clients";
import { newId } from "../../src/lib/ids";
import { call, freshIp, json } from "../support/identity-helpers";
import { identityEnv, identityServices, register } from "../support/oauth-client-helpers";

const PATH = "/api/v1/auth/oauth/register";
const CLIENT_ID = /^mcp_[0-9A-HJKMNP-TV-Z]{26}$/;

const sha256b64url = async (text: string) =>
  base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))));

async function storedClient(id: string) {
  return identityEnv.DB.prepare("SELECT * FROM oauth_clients WHERE id = ?")
    .bind(id)
    .first<Record<string, unknown>>();
}

async function resolved(id: string) {
  const r = await resolveClient(identityEnv, identityServices(), id);
  if (!r.ok) throw new Error(`resolveClient(${id}): ${r.error} ${r.reason}`);
  return r.client;
}

/** An RFC 7591 error answer: the status, the JSON `error`, never problem+json. */
async function expectRefusal(body: unknown, status: number, error: string, opts: { rawBody?: string } = {}) {
  const res =
    opts.rawBody !== undefined
      ? await call("POST", PATH, { rawBody: opts.rawBody, ip: freshIp() })
      : await call("POST", PATH, { body, ip: freshIp() });
  expect(res.status, JSON.stringify(body)).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  const answer = await json<Record<string, unknown>>(res);
  expect(answer.error, JSON.stringify(body)).toBe(error);
  expect(typeof answer.error_description).toBe("string");
  expect(answer.client_id).toBeUndefined();
  return answer;
}

describe("POST /api/v1/auth/oauth/register: a public client", () => {
  it("answers 201 with the client information response, and the client resolves", async () => {
    const { status, body, res } = await register({
      redirect_uris: ["http://127.0.0.1:33418/callback", "https://app.example/cb"],
      client_name: "Public Agent",
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      client_uri: "https://app.example",
      scope: "posts:read posts:write",
    });
    expect(status).toBe(201);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(body.client_id).toMatch(CLIENT_ID);
    expect(body.client_id_issued_at).toBeTypeOf("number");
    expect(Math.abs(Number(body.client_id_issued_at) - Date.now() / 1000)).toBeLessThan(60);
    expect(body).not.toHaveProperty("client_secret");
    expect(body).not.toHaveProperty("client_secret_expires_at");
    expect(body).toMatchObject({
      client_name: "Public Agent",
      redirect_uris: ["http://127.0.0.1:33418/callback", "https://app.example/cb"],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      client_uri: "https://app.example",
      scope: "posts:read posts:write",
    });
    const client = await resolved(String(body.client_id));
    expect(client).toMatchObject({
      id: body.client_id,
      kind: "registered",
      name: "Public Agent",
      clientUri: "https://app.example",
      logoUri: null,
      redirectUris: ["http://127.0.0.1:33418/callback", "https://app.example/cb"],
      authMethod: "none",
      secretHash: null,
    });
    expect(await verifyClientSecret(client, "anything")).toBe(false);
  });

  it("takes the defaults: an unnamed client, client_secret_basic (RFC 7591 §2), the code grant", async () => {
    const { status, body } = await register({ redirect_uris: ["https://app.example/cb"] });
    expect(status).toBe(201);
    expect(body).toMatchObject({
      client_name: "Unnamed client",
      token_endpoint_auth_method: "client_secret_basic",
      grant_types: ["authorization_code"],
      response_types: ["code"],
    });
    expect(body.client_secret).toBeTypeOf("string");
  });

  it("accepts a native app's private-use scheme and loopback redirect URIs (RFC 8252)", async () => {
    const uris = ["com.example.agent:/oauth/callback", "http://localhost:8123/cb", "http://[::1]:9000/cb"];
    const { status, body } = await register({ redirect_uris: uris, token_endpoint_auth_method: "none" });
    expect(status).toBe(201);
    expect(body.redirect_uris).toEqual(uris);
  });

  it("ignores unknown members (RFC 7591 §2): stored nowhere, never echoed", async () => {
    const { status, body } = await register({
      redirect_uris: ["https://app.example/cb"],
      token_endpoint_auth_method: "none",
      software_statement: "eyJhbGciOiJub25lIn0.e30.",
      client_secret: "chosen-by-the-client",
      x_tracking: "<script>alert(1)</script>",
      jwks_uri: "https://evil.example/jwks",
    });
    expect(status).toBe(201);
    for (const member of ["software_statement", "client_secret", "x_tracking", "jwks_uri"]) {
      expect(body, member).not.toHaveProperty(member);
    }
    const row = await storedClient(String(body.client_id));
    expect(row?.metadata_json).not.toContain("x_tracking");
    expect(row?.metadata_json).not.toContain("chosen-by-the-client");
    expect(row?.secret_hash).toBeNull();
  });
});

describe("POST /api/v1/auth/oauth/register: a confidential client", () => {
  for (const method of ["client_secret_basic", "client_secret_post"] as const) {
    it(`${method}: the secret is answered once, stored as its hash, and verifies in constant time`, async () => {
      const { status, body } = await register({
        redirect_uris: ["https://server.example/cb"],
        client_name: "Server Agent",
        token_endpoint_auth_method: method,
      });
      expect(status).toBe(201);
      const secret = String(body.client_secret);
      expect(secret.length).toBeGreaterThanOrEqual(40);
      expect(body.client_secret_expires_at).toBe(0);
      expect(body.token_endpoint_auth_method).toBe(method);
      const row = await storedClient(String(body.client_id));
      expect(row?.kind).toBe("registered");
      expect(row?.secret_hash).toBe(await sha256b64url(secret));
      expect(JSON.stringify(row)).not.toContain(secret);
      const client = await resolved(String(body.client_id));
      expect(client.authMethod).toBe(method);
      expect(await verifyClientSecret(client, secret)).toBe(true);
      expect(await verifyClientSecret(client, `${secret}x`)).toBe(false);
      expect(await verifyClientSecret(client, secret.slice(0, -1))).toBe(false);
      expect(await verifyClientSecret(client, "")).toBe(false);
      expect(await verifyClientSecret(client, null)).toBe(false);
      expect(await verifyClientSecret(client, row?.secret_hash as string)).toBe(false);
    });
  }

  it("one client's secret never verifies another client", async () => {
    const a = await register({ redirect_uris: ["https://a.example/cb"] });
    const b = await register({ redirect_uris: ["https://b.example/cb"] });
    const clientB = await resolved(String(b.body.client_id));
    expect(await verifyClientSecret(clientB, String(a.body.client_secret))).toBe(false);
    expect(await verifyClientSecret(clientB, String(b.body.client_secret))).toBe(true);
  });
});

describe("POST /api/v1/auth/oauth/register: refusals (RFC 7591 §3.2.2 JSON, nothing stored)", () => {
  it("redirect_uris missing, empty, not a list, or too many: invalid_redirect_uri", async () => {
    await expectRefusal({ client_name: "x" }, 400, "invalid_redirect_uri");
    await expectRefusal({ redirect_uris: [] }, 400, "invalid_redirect_uri");
    await expectRefusal({ redirect_uris: "https://app.example/cb" }, 400, "invalid_redirect_uri");
    const eleven = Array.from({ length: 11 }, (_, i) => `https://app.example/cb${i}`);
    await expectRefusal({ redirect_uris: eleven }, 400, "invalid_redirect_uri");
  });

  it("each unsafe redirect URI: invalid_redirect_uri", async () => {
    const bad = [
      "https://app.example/cb#fragment",
      "http://app.example/cb",
      "http://192.168.1.10/cb",
      "javascript:alert(1)",
      "data:text/html,<script>alert(1)</script>",
      "file:///etc/passwd",
      "vbscript:msgbox",
      "/relative/cb",
      "cb",
      "https://user:pass@app.example/cb",
      " https://app.example/cb",
      "https://app.example/c\nb",
      "https://app.example/c\tb",
      `https://app.example/${"a".repeat(2100)}`,
      "",
      42,
    ];
    for (const uri of bad) {
      await expectRefusal({ redirect_uris: ["https://ok.example/cb", uri] }, 400, "invalid_redirect_uri");
    }
  });

  it("unsupported metadata: invalid_client_metadata", async () => {
    const ok = { redirect_uris: ["https://app.example/cb"] };
    const bad: Record<string, unknown>[] = [
      { token_endpoint_auth_method: "private_key_jwt" },
      { token_endpoint_auth_method: "client_secret_jwt" },
      { token_endpoint_auth_method: 1 },
      { grant_types: ["implicit"] },
      { grant_types: ["authorization_code", "client_credentials"] },
      { grant_types: ["refresh_token"] },
      { grant_types: [] },
      { grant_types: "authorization_code" },
      { response_types: ["token"] },
      { response_types: ["code", "id_token"] },
      { scope: "posts:read admin" },
      { scope: "openid" },
      { scope: 7 },
      { client_name: "x".repeat(101) },
      { client_name: "" },
      { client_name: "   " },
      { client_name: "Good\u202eliamg" },
      { client_name: "Line\nbreak" },
      { client_name: 5 },
      { client_uri: "javascript:alert(1)" },
      { client_uri: "http://app.example" },
      { logo_uri: "data:image/png;base64,AAAA" },
      { logo_uri: "not a url" },
    ];
    for (const extra of bad) await expectRefusal({ ...ok, ...extra }, 400, "invalid_client_metadata");
  });

  it("a body that is not a JSON object: invalid_client_metadata", async () => {
    await expectRefusal(undefined, 400, "invalid_client_metadata", { rawBody: "{not json" });
    await expectRefusal(undefined, 400, "invalid_client_metadata", { rawBody: "" });
    await expectRefusal(["https://app.example/cb"], 400, "invalid_client_metadata");
    await expectRefusal(null, 400, "invalid_client_metadata", { rawBody: "null" });
    await expectRefusal("text", 400, "invalid_client_metadata");
  });

  it("a body above 32 KiB: 413 invalid_client_metadata, streamed or declared", async () => {
    const huge = JSON.stringify({ redirect_uris: ["https://app.example/cb"], pad: "x".repeat(33 * 1024) });
    await expectRefusal(undefined, 413, "invalid_client_metadata", { rawBody: huge });
  });

  it("a refused registration stores nothing", async () => {
    const before = await identityEnv.DB.prepare("SELECT COUNT(*) AS n FROM oauth_clients").first<{
      n: number;
    }>();
    await expectRefusal(
      { redirect_uris: ["javascript:alert(1)"], client_name: "nothing stored" },
      400,
      "invalid_redirect_uri",
    );
    const row = await identityEnv.DB.prepare("SELECT id FROM oauth_clients WHERE name = ?")
      .bind("nothing stored")
      .first();
    expect(row).toBeNull();
    expect(before?.n).toBeGreaterThanOrEqual(0);
  });

  it("only POST: GET is 405", async () => {
    const res = await call("GET", PATH);
    expect(res.status).toBe(405);
  });

  it("answers a browser's preflight for any origin", async () => {
    const res = await call("OPTIONS", PATH, {
      headers: { origin: "https://agent.example", "access-control-request-method": "POST" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-methods")).toContain("POST");
    expect(res.headers.get("access-control-allow-headers")).toContain("Content-Type");
  });
});

describe("POST /api/v1/auth/oauth/register: the per-IP quota", () => {
  const limit = REGISTRATION_QUOTA.limit;
  const valid = { redirect_uris: ["https://app.example/cb"], token_endpoint_auth_method: "none" };

  it(`${limit} registrations from one address pass; the next is 429 with Retry-After; another address is unaffected`, async () => {
    expect(limit).toBe(20);
    const ip = freshIp();
    for (let i = 0; i < limit - 1; i++) expect((await register(valid, ip)).status).toBe(201);
    // At the limit: the 20th still passes.
    expect((await register(valid, ip)).status).toBe(201);
    const over = await register(valid, ip);
    expect(over.status).toBe(429);
    expect(over.body.error).toBe("temporarily_unavailable");
    expect(Number(over.res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(over.res.headers.get("retry-after"))).toBeLessThanOrEqual(REGISTRATION_QUOTA.windowSeconds);
    expect(over.body.client_id).toBeUndefined();
    expect((await register(valid, freshIp())).status).toBe(201);
  });

  it("bad registrations count too (the quota is no free oracle of the rules)", async () => {
    const ip = freshIp();
    for (let i = 0; i < limit; i++) {
      expect((await register({ redirect_uris: ["javascript:x"] }, ip)).status).toBe(400);
    }
    expect((await register(valid, ip)).status).toBe(429);
  });

  it(`50 registrations at once from one address: exactly ${limit} clients are created`, async () => {
    const ip = freshIp();
    const name = `burst-${newId()}`;
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => register({ ...valid, client_name: name }, ip)),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(limit);
    expect(statuses.filter((s) => s === 429)).toHaveLength(50 - limit);
    const stored = await identityEnv.DB.prepare("SELECT COUNT(*) AS n FROM oauth_clients WHERE name = ?")
      .bind(name)
      .first<{ n: number }>();
    expect(stored?.n).toBe(limit);
  });
});

describe("resolveClient of a registration", () => {
  it("an unknown or malformed client_id is unknown_client", async () => {
    for (const id of [
      `mcp_${newId()}`,
      "mcp_short",
      "garbage",
      "",
      "MCP_01ARZ3NDEKTSV4RRFFQ69G5FAV",
      "ftp://x.example/c",
    ]) {
      const r = await resolveClient(identityEnv, identityServices(), id);
      expect(r.ok, id).toBe(false);
      if (!r.ok) expect(r.error, id).toBe("unknown_client");
    }
  });
});
