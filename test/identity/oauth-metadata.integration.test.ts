/**
 * RFC 8414 authorization server metadata of identity (issue 37, docs/decisions/oauth-agents.md "Clients"),
 * through the real identity Worker: every field, the issuer equal to ISSUER (checked by oauth4webapi's own
 * discovery, as an MCP client's library checks it), CORS open to any origin, the path-suffixed form of an
 * issuer with a path, and the OpenID discovery left as it was.
 */
import { env } from "cloudflare:workers";
import * as oauth from "oauth4webapi";
import { describe, expect, it } from "vitest";
import { SCOPES } from "../../src/lib/key-scopes";
import { call, json, ORIGIN, request, worker } from "../support/identity-helpers";

const issuer = (env as unknown as { ISSUER: string }).ISSUER;
const PATH = "/.well-known/oauth-authorization-server";

/** The identity app with another ISSUER (an issuer with a path). */
async function callWithIssuer(issuerValue: string, path: string): Promise<Response> {
  const { app } = await import("../../src/identity/core/app");
  const { createExecutionContext, waitOnExecutionContext } = await import("cloudflare:test");
  const ctx = createExecutionContext();
  const res = await app.fetch(request("GET", path), { ...env, ISSUER: issuerValue }, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

describe("GET /.well-known/oauth-authorization-server", () => {
  it("names the issuer exactly and every endpoint, method and capability of the agent flow", async () => {
    const res = await call("GET", PATH);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await json(res)).toEqual({
      issuer,
      authorization_endpoint: `${issuer}/auth/authorize`,
      token_endpoint: `${issuer}/api/v1/auth/oauth/token`,
      registration_endpoint: `${issuer}/api/v1/auth/oauth/register`,
      revocation_endpoint: `${issuer}/api/v1/auth/oauth/revoke`,
      jwks_uri: `${issuer}/.well-known/jwks.json`,
      scopes_supported: [...SCOPES],
      response_types_supported: ["code"],
      response_modes_supported: ["query"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none", "client_secret_post", "client_secret_basic"],
      revocation_endpoint_auth_methods_supported: ["none", "client_secret_post", "client_secret_basic"],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
      service_documentation: `${issuer}/docs/identity`,
    });
  });

  it("never offers plain PKCE, the implicit flow or a password grant", async () => {
    const doc = await json<Record<string, string[]>>(await call("GET", PATH));
    expect(doc.code_challenge_methods_supported).not.toContain("plain");
    expect(doc.response_types_supported).not.toContain("token");
    expect(doc.grant_types_supported).not.toContain("implicit");
    expect(doc.grant_types_supported).not.toContain("password");
  });

  it("is public and cacheable: any origin may read it, for 5 minutes", async () => {
    const res = await call("GET", PATH, { headers: { origin: "https://agent.example" } });
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
    expect(res.headers.get("cache-control")).toBe("public, max-age=300");
  });

  it("answers a browser's preflight (an MCP client sends MCP-Protocol-Version)", async () => {
    const res = await call("OPTIONS", PATH, {
      headers: {
        origin: "https://agent.example",
        "access-control-request-method": "GET",
        "access-control-request-headers": "mcp-protocol-version",
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-methods")).toContain("GET");
    expect(res.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("mcp-protocol-version");
  });

  it("passes oauth4webapi's discovery: the issuer it asked is the issuer the document names", async () => {
    const asked = new URL(issuer);
    const res = await oauth.discoveryRequest(asked, {
      algorithm: "oauth2",
      [oauth.allowInsecureRequests]: true,
      [oauth.customFetch]: (url, options) =>
        worker.fetch(
          new Request(`${ORIGIN}${new URL(url).pathname}`, {
            method: options.method,
            headers: options.headers,
          }),
        ),
    });
    const as = await oauth.processDiscoveryResponse(asked, res);
    expect(as.issuer).toBe(issuer);
    expect(as.code_challenge_methods_supported).toEqual(["S256"]);
  });

  it("the issuer has no path, so a suffixed form names another issuer: 404", async () => {
    for (const suffix of ["/v1/mcp", "/", "/tenant"]) {
      const res = await call("GET", `${PATH}${suffix}`);
      expect(res.status, suffix).toBe(404);
    }
  });

  it("an issuer with a path is served at the suffixed form only (RFC 8414 §3.1)", async () => {
    const pathIssuer = "https://id.example.com/tenant-a";
    const suffixed = await callWithIssuer(pathIssuer, `${PATH}/tenant-a`);
    expect(suffixed.status).toBe(200);
    const doc = await json<Record<string, string>>(suffixed);
    expect(doc.issuer).toBe(pathIssuer);
    expect(doc.token_endpoint).toBe(`${pathIssuer}/api/v1/auth/oauth/token`);
    expect((await callWithIssuer(pathIssuer, PATH)).status).toBe(404);
    expect((await callWithIssuer(pathIssuer, `${PATH}/tenant-b`)).status).toBe(404);
  });

  it("only GET: another method is 405 with Allow", async () => {
    const res = await call("POST", PATH, { body: {} });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toContain("GET");
  });
});

describe("GET /.well-known/openid-configuration beside it", () => {
  it("still describes only the staff session's tokens (no authorization endpoint, no code flow)", async () => {
    const doc = await json<Record<string, unknown>>(await call("GET", "/.well-known/openid-configuration"));
    expect(doc.issuer).toBe(issuer);
    expect(doc.authorization_endpoint).toBeUndefined();
    expect(doc.response_types_supported).toEqual(["token"]);
    expect(doc.grant_types_supported).toEqual(["refresh_token"]);
  });
});
