/**
 * CORS of the OAuth paths at the edge (issue 37): an MCP client running in a browser discovers, registers,
 * redeems and revokes from its own origin, with no cookie, so those paths reflect any origin without
 * credentials; the consent API and every other dashboard path keep the allowlist. `/v1/mcp` lets a browser
 * send the MCP transport's headers and read the 401's challenge.
 */
import { describe, expect, it } from "vitest";
import { call } from "../support/platform";

const ELSEWHERE = "https://agent.example";

const OAUTH_PATHS = [
  "/.well-known/oauth-authorization-server",
  "/.well-known/oauth-protected-resource",
  "/.well-known/oauth-protected-resource/v1/mcp",
  "/.well-known/jwks.json",
  "/api/v1/auth/oauth/register",
  "/api/v1/auth/oauth/token",
  "/api/v1/auth/oauth/revoke",
];

async function preflight(path: string, headers: string) {
  return call("OPTIONS", path, {
    headers: {
      origin: ELSEWHERE,
      "access-control-request-method": "POST",
      "access-control-request-headers": headers,
    },
  });
}

describe("OAuth paths: any origin, no credentials", () => {
  it.each(OAUTH_PATHS)("%s answers a preflight from any origin without credentials", async (path) => {
    const res = await preflight(path, "authorization, content-type");
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe(ELSEWHERE);
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
    expect(res.headers.get("access-control-allow-headers")).toMatch(/\bAuthorization\b/);
  });

  it("the keys are readable from any origin (a GET's answer carries the grant)", async () => {
    const res = await call("GET", "/.well-known/jwks.json", { headers: { origin: ELSEWHERE } });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe(ELSEWHERE);
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
  });

  it("the consent API and the rest of the dashboard keep the allowlist", async () => {
    for (const path of ["/api/v1/auth/oauth/consents", "/api/v1/auth/oauth/grants", "/api/v1/auth/me"]) {
      const res = await preflight(path, "authorization, content-type");
      expect(res.headers.get("access-control-allow-origin"), path).toBeNull();
    }
  });
});

describe("/v1/mcp from a browser", () => {
  it("a preflight allows the MCP transport's headers", async () => {
    const res = await preflight(
      "/v1/mcp",
      "authorization, content-type, mcp-protocol-version, mcp-method, mcp-name",
    );
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe(ELSEWHERE);
    const allowed = (res.headers.get("access-control-allow-headers") ?? "").toLowerCase();
    for (const header of ["mcp-protocol-version", "mcp-method", "mcp-name"])
      expect(allowed).toContain(header);
  });

  it("the 401 exposes its challenge", async () => {
    const res = await call("POST", "/v1/mcp", {
      headers: { origin: ELSEWHERE },
      body: { jsonrpc: "2.0", id: 1, method: "tools/list" },
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("access-control-expose-headers") ?? "").toMatch(/\bWWW-Authenticate\b/);
  });
});
