/**
 * Client ID Metadata Documents (issue 37, docs/decisions/oauth-agents.md "Clients"): `resolveClient` with the
 * identity Worker's real bindings fetches the document through the outbound guard from the fake internet
 * (test/support/fakes/oauth-clients.ts; DNS from the fake DoH server), so every refusal is the guard's or the
 * document rules', never a missing host: the private hosts serve documents too, and their hit counters prove
 * no request went out. Then the cache: no refetch within the lifetime, a refetch after it, the last good copy
 * kept through a failure that may pass, never through a definitive refusal.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../src/identity/core/worker-env";
import {
  CLIENT_DOCUMENT_MAX_BYTES,
  CLIENT_DOCUMENT_TIMEOUT_MS,
  documentGuardOptions,
  documentLifetime,
} from "../../src/identity/oauth/client-metadata";
import { type ClientResolution, resolveClient, verifyClientSecret } from "../../src/identity/oauth/clients";
import {
  clientDocument,
  defineDocumentHosts,
  documentUrl,
  hitsOf,
  identityEnv,
  identityServices,
  lastAcceptOf,
  publish,
  publishDocument,
} from "../support/oauth-client-helpers";

beforeAll(defineDocumentHosts);

/**
 * Identity as deployed: the tests' bindings come from `.dev.vars`, which turns the development flag of local
 * parties on; a deploy refuses every DEV_ var, so the refusals are proven without it.
 */
const production: Env = { ...identityEnv, DEV_SSO_LOCAL_ISSUERS: undefined };
const development: Env = { ...identityEnv, DEV_SSO_LOCAL_ISSUERS: "true" };

const resolve = (clientId: string, withEnv: Env = production) =>
  resolveClient(withEnv, identityServices("203.0.113.20", withEnv), clientId);

function refusal(r: ClientResolution): { error: string; reason: string } {
  if (r.ok) throw new Error(`expected a refusal, got client ${r.client.id}`);
  return { error: r.error, reason: r.reason };
}

/** Moves a cached document's last good fetch `seconds` into the past. */
async function age(clientId: string, seconds: number) {
  const at = new Date(Date.now() - seconds * 1000).toISOString();
  const res = await identityEnv.DB.prepare("UPDATE oauth_clients SET fetched_at = ? WHERE id = ?")
    .bind(at, clientId)
    .run();
  expect(res.meta.changes).toBe(1);
}

describe("resolveClient: a valid document", () => {
  it("is fetched, checked and cached as a metadata_document client with no secret", async () => {
    const url = documentUrl();
    await publishDocument(
      url,
      clientDocument(url, { logo_uri: "https://agent.example/logo.png", scope: "posts:read" }),
    );
    const r = await resolve(url);
    if (!r.ok) throw new Error(`${r.error}: ${r.reason}`);
    expect(r.client).toEqual({
      id: url,
      kind: "metadata_document",
      name: "Example Agent",
      clientUri: "https://agent.example",
      logoUri: "https://agent.example/logo.png",
      redirectUris: ["https://agent.example/callback", "http://127.0.0.1:33418/callback"],
      authMethod: "none",
      secretHash: null,
      grantTypes: ["authorization_code", "refresh_token"],
      scope: "posts:read",
    });
    const row = await identityEnv.DB.prepare(
      "SELECT kind, name, secret_hash, fetched_at, metadata_json FROM oauth_clients WHERE id = ?",
    )
      .bind(url)
      .first<Record<string, string | null>>();
    expect(row?.kind).toBe("metadata_document");
    expect(row?.secret_hash).toBeNull();
    expect(row?.fetched_at).not.toBeNull();
    expect(JSON.parse(String(row?.metadata_json)).document.client_id).toBe(url);
    expect(await hitsOf(url)).toBe(1);
  });

  it("asks for JSON, and unknown members are allowed (the draft says so)", async () => {
    const url = documentUrl();
    await publishDocument(
      url,
      clientDocument(url, { software_id: "x", tos_uri: "https://agent.example/tos", x_custom: { a: 1 } }),
    );
    expect((await resolve(url)).ok).toBe(true);
    expect(await lastAcceptOf(url)).toBe("application/json");
  });

  it("absent token_endpoint_auth_method, grant_types and response_types take the public defaults", async () => {
    const url = documentUrl();
    await publishDocument(url, {
      client_id: url,
      client_name: "Minimal",
      redirect_uris: ["https://m.example/cb"],
    });
    const r = await resolve(url);
    expect(r.ok && r.client.authMethod).toBe("none");
    expect(r.ok && r.client.grantTypes).toEqual(["authorization_code"]);
  });

  it("a document's unknown scopes are dropped, not refused (a generic client may list others)", async () => {
    const url = documentUrl();
    await publishDocument(url, clientDocument(url, { scope: "openid profile posts:write" }));
    const r = await resolve(url);
    expect(r.ok && r.client.scope).toBe("posts:write");
  });
});

describe("resolveClient: races and secrets", () => {
  it("ten resolutions at once of a new document: each gets the client, one row is kept", async () => {
    const url = documentUrl();
    await publishDocument(url, clientDocument(url));
    const all = await Promise.all(Array.from({ length: 10 }, () => resolve(url)));
    expect(all.every((r) => r.ok && r.client.id === url)).toBe(true);
    const rows = await identityEnv.DB.prepare("SELECT COUNT(*) AS n FROM oauth_clients WHERE id = ?")
      .bind(url)
      .first<{ n: number }>();
    expect(rows?.n).toBe(1);
  });

  it("a document client holds no secret: no presented secret ever verifies it", async () => {
    const url = documentUrl();
    await publishDocument(url, clientDocument(url));
    const r = await resolve(url);
    if (!r.ok) throw new Error(r.reason);
    expect(r.client.secretHash).toBeNull();
    for (const secret of ["", "x", url, "null"])
      expect(await verifyClientSecret(r.client, secret)).toBe(false);
  });
});

describe("resolveClient: refused documents", () => {
  it("a client_id that is not the document's URL exactly", async () => {
    const url = documentUrl();
    for (const other of [documentUrl(), `${url}/`, url.replace("https:", "http:"), url.toUpperCase()]) {
      await publishDocument(url, clientDocument(url, { client_id: other }));
      expect(refusal(await resolve(url)), other).toEqual({
        error: "invalid_metadata_document",
        reason: "client_id_mismatch",
      });
    }
    await publishDocument(url, clientDocument(url, { client_id: undefined }));
    expect(refusal(await resolve(url)).reason).toBe("client_id_mismatch");
  });

  it(`a document above ${CLIENT_DOCUMENT_MAX_BYTES / 1024} KiB, declared or streamed`, async () => {
    const url = documentUrl();
    const big = JSON.stringify(clientDocument(url, { pad: "x".repeat(CLIENT_DOCUMENT_MAX_BYTES) }));
    await publish(url, { body: big });
    expect(refusal(await resolve(url))).toEqual({
      error: "invalid_metadata_document",
      reason: "document_too_large",
    });
    await publish(url, { body: big, chunked: true });
    expect(refusal(await resolve(url))).toEqual({
      error: "invalid_metadata_document",
      reason: "document_too_large",
    });
    // Just under the cap passes.
    const fits = JSON.stringify(clientDocument(url, { pad: "" }));
    const padded = JSON.stringify(
      clientDocument(url, { pad: "x".repeat(CLIENT_DOCUMENT_MAX_BYTES - fits.length) }),
    );
    expect(new TextEncoder().encode(padded).byteLength).toBe(CLIENT_DOCUMENT_MAX_BYTES);
    await publish(url, { body: padded, chunked: true });
    expect((await resolve(url)).ok).toBe(true);
  });

  it("a host that answers too slowly: fetch_failed at the 5 s deadline", async () => {
    // At the production deadline: the test projects' TEST_OUTBOUND_DEADLINE_MS (30 s) is taken away.
    const deployed: Env = { ...production, TEST_OUTBOUND_DEADLINE_MS: undefined };
    expect(documentGuardOptions(production).timeoutMs).toBe(30_000);
    expect(documentGuardOptions(deployed).timeoutMs).toBe(CLIENT_DOCUMENT_TIMEOUT_MS);
    const url = documentUrl();
    await publish(url, {
      body: JSON.stringify(clientDocument(url)),
      delayMs: CLIENT_DOCUMENT_TIMEOUT_MS + 3000,
    });
    const started = Date.now();
    expect(refusal(await resolve(url, deployed))).toEqual({ error: "fetch_failed", reason: "timeout" });
    expect(Date.now() - started).toBeLessThan(CLIENT_DOCUMENT_TIMEOUT_MS + 2500);
  }, 20_000);

  it("a redirect is never followed, even to a valid document", async () => {
    const url = documentUrl();
    const target = documentUrl();
    await publishDocument(target, clientDocument(url));
    for (const status of [301, 302, 303, 307, 308]) {
      await publish(url, { status, headers: { location: target }, body: "" });
      expect(refusal(await resolve(url))).toEqual({
        error: "invalid_metadata_document",
        reason: "redirect_not_followed",
      });
    }
    expect(await hitsOf(target)).toBe(0);
  });

  it("a host on a private address is refused before any request (DNS checked, every address)", async () => {
    for (const host of ["cimd-private.test", "cimd-metadata.test", "cimd-v6.test"]) {
      const url = documentUrl(host);
      await publishDocument(url, clientDocument(url));
      expect(refusal(await resolve(url)), host).toEqual({
        error: "invalid_metadata_document",
        reason: "non_public_host",
      });
      expect(await hitsOf(url), host).toBe(0);
    }
  });

  it("private and loopback literals and private names are refused without DNS", async () => {
    for (const url of [
      "https://127.0.0.1/client.json",
      "https://10.0.0.8/client.json",
      "https://169.254.169.254/latest/meta-data",
      "https://[::1]/client.json",
      "https://[fd00::1]/client.json",
      "https://[::ffff:127.0.0.1]/client.json",
      "https://localhost/client.json",
      "https://agent.internal/client.json",
    ]) {
      expect(refusal(await resolve(url)).error, url).toBe("invalid_metadata_document");
    }
  });

  it("a body that is not JSON, or JSON that is not an object", async () => {
    const url = documentUrl();
    for (const [body, reason] of [
      ["<!doctype html><title>Agent</title>", "not_json"],
      ['{"client_id":', "not_json"],
      ["", "not_json"],
      ["[1,2]", "not_a_json_object"],
      ["null", "not_a_json_object"],
      ['"text"', "not_a_json_object"],
    ] as const) {
      await publish(url, { body });
      expect(refusal(await resolve(url)), body).toEqual({ error: "invalid_metadata_document", reason });
    }
  });

  it("missing or unsafe redirect_uris", async () => {
    const url = documentUrl();
    for (const redirect_uris of [
      undefined,
      [],
      ["javascript:alert(1)"],
      ["https://a.example/cb#x"],
      ["http://evil.example/cb"],
    ]) {
      await publishDocument(url, clientDocument(url, { redirect_uris }));
      const r = refusal(await resolve(url));
      expect(r.error).toBe("invalid_metadata_document");
      expect(r.reason, JSON.stringify(redirect_uris)).toMatch(/^invalid_redirect_uri: /);
    }
  });

  it("a secret-based or private_key_jwt method, or a client_secret, is refused clearly", async () => {
    const url = documentUrl();
    for (const method of ["private_key_jwt", "client_secret_basic", "client_secret_post"]) {
      await publishDocument(url, clientDocument(url, { token_endpoint_auth_method: method }));
      const r = refusal(await resolve(url));
      expect(r.error).toBe("invalid_metadata_document");
      expect(r.reason).toContain(`must be "none"`);
    }
    await publishDocument(url, clientDocument(url, { client_secret: "s3cret" }));
    expect(refusal(await resolve(url)).reason).toContain("client secret");
  });

  it("a missing or unsafe client_name", async () => {
    const url = documentUrl();
    for (const client_name of [undefined, "", "x".repeat(101), "Agent\u202egnp.exe"]) {
      await publishDocument(url, clientDocument(url, { client_name }));
      expect(refusal(await resolve(url)).reason).toMatch(/^invalid_client_metadata: client_name/);
    }
  });

  it("a 404 or 410 refuses; a 5xx is a fetch failure", async () => {
    const url = documentUrl();
    await publish(url, { status: 404, body: "gone" });
    expect(refusal(await resolve(url))).toEqual({ error: "invalid_metadata_document", reason: "status_404" });
    await publish(url, { status: 410, body: "gone" });
    expect(refusal(await resolve(url)).reason).toBe("status_410");
    await publish(url, { status: 503, body: "down" });
    expect(refusal(await resolve(url))).toEqual({ error: "fetch_failed", reason: "status_503" });
  });
});

describe("resolveClient: the client_id URL itself (refused before any request)", () => {
  it("must be https with a path, no fragment, no credentials, no dot segments, canonical", async () => {
    const base = documentUrl();
    const u = new URL(base);
    for (const id of [
      base.replace("https:", "http:"),
      "https://cimd.test",
      "https://cimd.test/",
      `${base}#frag`,
      `https://user:pw@cimd.test${u.pathname}`,
      `https://cimd.test/agents/../${u.pathname.slice(1)}`,
      `https://cimd.test/agents/./x/client.json`,
      `https://CIMD.test${u.pathname}`,
      `https://cimd.test:443${u.pathname}`,
      `https://cimd.test/${"a".repeat(1100)}`,
    ]) {
      expect(refusal(await resolve(id)).error, id).toBe("invalid_metadata_document");
    }
    expect(await hitsOf(base)).toBe(0);
  });

  it("http://localhost only with the development flag (DEV_SSO_LOCAL_ISSUERS), never otherwise", async () => {
    const local = "http://localhost:9797/oauth/client.json";
    expect(refusal(await resolve(local))).toEqual({
      error: "invalid_metadata_document",
      reason: "the client_id URL must be https",
    });
    // With the flag the URL is allowed and requested (the fake internet has no localhost: a 599, a failure).
    expect(refusal(await resolve(local, development))).toEqual({
      error: "fetch_failed",
      reason: "status_599",
    });
    // The flag opens loopback only: a private host stays refused.
    const priv = documentUrl("cimd-private.test");
    expect(refusal(await resolve(priv, development)).reason).toBe("non_public_host");
  });
});

describe("resolveClient: the cache", () => {
  it("within its lifetime a document is not fetched again; after it, it is, and the new one replaces it", async () => {
    const url = documentUrl();
    await publishDocument(url, clientDocument(url, { client_name: "First" }), {
      "cache-control": "public, max-age=600",
    });
    expect((await resolve(url)).ok).toBe(true);
    await publishDocument(url, clientDocument(url, { client_name: "Second" }), {
      "cache-control": "max-age=600",
    });
    const cached = await resolve(url);
    expect(cached.ok && cached.client.name).toBe("First");
    expect(await hitsOf(url)).toBe(1);
    await age(url, 590);
    expect((await resolve(url)).ok && (await hitsOf(url))).toBe(1);
    await age(url, 601);
    const refetched = await resolve(url);
    expect(refetched.ok && refetched.client.name).toBe("Second");
    expect(await hitsOf(url)).toBe(2);
    const again = await resolve(url);
    expect(again.ok && again.client.name).toBe("Second");
    expect(await hitsOf(url)).toBe(2);
  });

  it("a lifetime below 5 minutes counts as 5 minutes (no refetch on every request)", async () => {
    const url = documentUrl();
    await publishDocument(url, clientDocument(url), { "cache-control": "no-store" });
    await resolve(url);
    await age(url, 200);
    await resolve(url);
    expect(await hitsOf(url)).toBe(1);
    await age(url, 301);
    await resolve(url);
    expect(await hitsOf(url)).toBe(2);
  });

  it("a lifetime above 24 hours counts as 24 hours", async () => {
    const url = documentUrl();
    await publishDocument(url, clientDocument(url), { "cache-control": "max-age=31536000" });
    await resolve(url);
    await age(url, 23 * 3600);
    await resolve(url);
    expect(await hitsOf(url)).toBe(1);
    await age(url, 24 * 3600 + 1);
    await resolve(url);
    expect(await hitsOf(url)).toBe(2);
  });

  it("a refetch that may pass (5xx, timeout) keeps the last good copy up to 24 h past its lifetime", async () => {
    const url = documentUrl();
    await publishDocument(url, clientDocument(url, { client_name: "Good" }), {
      "cache-control": "max-age=300",
    });
    await resolve(url);
    await publish(url, { status: 503, body: "down" });
    await age(url, 301);
    const stale = await resolve(url);
    expect(stale.ok && stale.client.name).toBe("Good");
    expect(await hitsOf(url)).toBe(2);
    await age(url, 300 + 24 * 3600 - 60);
    expect((await resolve(url)).ok).toBe(true);
    await age(url, 300 + 24 * 3600 + 1);
    expect(refusal(await resolve(url))).toEqual({ error: "fetch_failed", reason: "status_503" });
  });

  it("a refetch that refuses the document (mismatch, private, redirect) drops the cached copy at once", async () => {
    const url = documentUrl();
    await publishDocument(url, clientDocument(url), { "cache-control": "max-age=300" });
    expect((await resolve(url)).ok).toBe(true);
    await publishDocument(url, clientDocument(url, { client_id: documentUrl() }));
    await age(url, 301);
    expect(refusal(await resolve(url))).toEqual({
      error: "invalid_metadata_document",
      reason: "client_id_mismatch",
    });
    await publish(url, { status: 302, headers: { location: "https://cimd.test/elsewhere" }, body: "" });
    expect(refusal(await resolve(url)).reason).toBe("redirect_not_followed");
    // Published right again: the client is back.
    await publishDocument(url, clientDocument(url, { client_name: "Back" }));
    const back = await resolve(url);
    expect(back.ok && back.client.name).toBe("Back");
  });

  it("the lifetime: max-age, else Expires against Date, bounded to [5 min, 24 h]", () => {
    const h = (entries: Record<string, string>) => new Headers(entries);
    expect(documentLifetime(h({ "cache-control": "max-age=3600" }))).toBe(3600);
    expect(documentLifetime(h({ "cache-control": "public, max-age=10" }))).toBe(300);
    expect(documentLifetime(h({ "cache-control": "max-age=999999" }))).toBe(86400);
    expect(documentLifetime(h({ "cache-control": "no-cache, max-age=3600" }))).toBe(300);
    expect(documentLifetime(h({}))).toBe(300);
    const date = "Sun, 29 Nov 2026 00:00:00 GMT";
    expect(documentLifetime(h({ date, expires: "Sun, 29 Nov 2026 02:00:00 GMT" }))).toBe(7200);
    expect(documentLifetime(h({ date, expires: "garbage" }))).toBe(300);
  });
});
