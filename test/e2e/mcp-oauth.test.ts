/**
 * `/v1/mcp` as an OAuth protected resource through the edge only (issue 37): the gateway routes the RFC 9728
 * metadata to content; an agent's access token works at `/v1/mcp` and nowhere else (the gateway's
 * dashboard routes, identity's API, content's other `/v1/*` routes), and a real staff access token is
 * refused at `/v1/mcp` with the challenge that names the metadata. The grant is a row of identity's
 * database and the token is signed with the workers' test key, as identity issues them
 * (test/support/agent-tokens.ts).
 */
import { env, exports } from "cloudflare:workers";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { agentToken, MCP_RESOURCE, RESOURCE_METADATA, seedGrant, TEST_ISSUER } from "../support/agent-tokens";
import { BASE, call, createOrg, createSite, verifiedUser } from "../support/platform";
import { agentWorks, connectAgent } from "./credential-matrix/agent-steps";

const e = env as unknown as { JWT_SIGNING_KEYS: string; TEST_IDENTITY_DB: D1Database };
const gateway = (exports as unknown as { default: Fetcher }).default;

async function agent(bearer: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${BASE}/v1/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${bearer}` } },
    fetch: (url, init) => gateway.fetch(new Request(url, init)),
  });
  const client = new Client({ name: "e2e-oauth-agent", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

function initializeAt(bearer: string): Promise<Response> {
  return gateway.fetch(
    new Request(`${BASE}/v1/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${bearer}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "raw", version: "1" },
        },
      }),
    }),
  );
}

/** A site owner with a display name, and their agent's grant and token on the site. */
async function ownerWithAgent(scopes: string[]) {
  const session = await verifiedUser();
  const named = await call("PATCH", "/api/v1/auth/me", {
    token: session.access_token,
    body: { display_name: "Grace Owner" },
  });
  expect(named.status).toBe(200);
  const org = await createOrg(session.access_token);
  const site = await createSite(session.access_token, org.id);
  const grant = await seedGrant(e.TEST_IDENTITY_DB, {
    userId: session.user.id,
    siteId: site.id,
    orgId: org.id,
    scopes,
  });
  return { session, site, grant, token: await agentToken(e.JWT_SIGNING_KEYS, grant) };
}

describe("the protected resource through the gateway", () => {
  it("the gateway serves content's RFC 9728 metadata at both paths; identity keeps its own well-known documents", async () => {
    for (const path of [
      "/.well-known/oauth-protected-resource/v1/mcp",
      "/.well-known/oauth-protected-resource",
    ]) {
      const res = await call<Record<string, unknown>>("GET", path);
      expect(res.status, path).toBe(200);
      expect(res.body).toMatchObject({ resource: MCP_RESOURCE, authorization_servers: [TEST_ISSUER] });
      expect(res.headers.get("cache-control")).toBe("public, max-age=300");
    }
    expect(RESOURCE_METADATA).toBe(`${TEST_ISSUER}/.well-known/oauth-protected-resource/v1/mcp`);
    const jwks = await call<{ keys: unknown[] }>("GET", "/.well-known/jwks.json");
    expect(jwks.status).toBe(200);
    expect(jwks.body.keys.length).toBeGreaterThan(0);
  });

  it("an agent's token lists its tools and writes a post as the person at /v1/mcp", async () => {
    const { session, token } = await ownerWithAgent(["posts:read", "posts:write"]);
    const client = await agent(token);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("create_post");
    expect(names).not.toContain("upload_media");
    const created = await client.callTool({
      name: "create_post",
      arguments: { post: { title: "Written by an OAuth agent", status: "published" } },
    });
    expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
    const post = created.structuredContent as { id: string; author?: { display_name: string } };
    const source = await client.callTool({ name: "get_post_source", arguments: { reference: post.id } });
    expect(source.structuredContent).toMatchObject({
      created_by: { kind: "person", id: session.user.id, name: "Grace Owner" },
    });
    await client.close();
  });

  it("audiences both ways: a staff token is 401 at /v1/mcp; the agent's token is 401 on the dashboard, identity and /v1 routes", async () => {
    const { session, site, token } = await ownerWithAgent(["posts:read", "posts:write", "site:read"]);
    // The staff access token of a real sign-in: refused at /v1/mcp, with the metadata to find the AS.
    const staff = await initializeAt(session.access_token);
    expect(staff.status).toBe(401);
    expect(staff.headers.get("www-authenticate")).toContain(`resource_metadata="${RESOURCE_METADATA}"`);
    expect(staff.headers.get("www-authenticate")).toContain('error="invalid_token"');
    // It still works where it belongs.
    expect((await call("GET", "/api/v1/auth/me", { token: session.access_token })).status).toBe(200);

    // The agent's token works at /v1/mcp...
    expect((await initializeAt(token)).status).toBe(200);
    // ...and nowhere else.
    for (const [method, path] of [
      ["GET", `/api/v1/sites/${site.id}/posts`],
      ["POST", `/api/v1/sites/${site.id}/posts`],
      ["GET", "/api/v1/auth/me"],
      ["GET", `/api/v1/sites/${site.id}`],
      ["GET", "/v1/posts"],
      ["GET", "/v1/site"],
      ["POST", "/v1/posts"],
    ] as const) {
      const res = await call(method, path, {
        token,
        ...(method === "POST" ? { body: { title: "x" } } : {}),
      });
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.body).toMatchObject({ status: 401 });
    }
  });

  it("a token identity really issued (registration, consent, code, PKCE) works at /v1/mcp, nowhere else, and stops at once when the person disconnects", async () => {
    const session = await verifiedUser();
    await call("PATCH", "/api/v1/auth/me", {
      token: session.access_token,
      body: { display_name: "Real Agent" },
    });
    const org = await createOrg(session.access_token);
    const site = await createSite(session.access_token, org.id);
    const connected = await connectAgent(
      { access_token: session.access_token, email: session.user.email },
      site.id,
    );
    expect(await agentWorks(connected)).toBe(200);
    for (const path of ["/api/v1/auth/me", `/api/v1/sites/${site.id}/posts`, "/v1/posts"]) {
      expect((await call("GET", path, { token: connected.access })).status, path).toBe(401);
    }
    const revoked = await call("DELETE", `/api/v1/auth/oauth/grants/${connected.grantId}`, {
      token: session.access_token,
    });
    expect(revoked.status).toBe(204);
    // The write asks identity afresh: refused at once, with the challenge that names the metadata.
    const write = await gateway.fetch(
      new Request(`${BASE}/v1/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${connected.access}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-06-18",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: "create_post", arguments: { post: { title: "After disconnect" } } },
        }),
      }),
    );
    expect(write.status).toBe(401);
    expect(write.headers.get("www-authenticate")).toContain(`resource_metadata="${RESOURCE_METADATA}"`);
  });
});
