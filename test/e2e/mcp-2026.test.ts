import { exports } from "cloudflare:workers";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { BASE, call, createOrg, createSite, verifiedUser } from "../support/platform";

/**
 * A 2026-07-28 agent through the edge only: the v2 MCP client SDK negotiating the revision (no
 * initialize) against `/v1/mcp` at the gateway, which passes the revision's mirrored headers
 * (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`) through to content, where they are checked.
 */
const gateway = (exports as unknown as { default: Fetcher }).default;

describe("MCP 2026-07-28 through the gateway", () => {
  it("the v2 client lists and calls tools with no initialize; a header that disagrees with the body is 400 -32020", async () => {
    const session = await verifiedUser();
    const org = await createOrg(session.access_token);
    const site = await createSite(session.access_token, org.id);
    const made = await call<{ key: string }>("POST", `/api/v1/sites/${site.id}/api-keys`, {
      token: session.access_token,
      body: { name: "agent", kind: "secret", scopes: ["posts:write", "posts:read"] },
    });
    expect(made.status).toBe(201);
    const key = made.body.key;

    const methods: unknown[] = [];
    const transport = new StreamableHTTPClientTransport(new URL(`${BASE}/v1/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
      fetch: async (url, init) => {
        const request = new Request(url, init);
        methods.push(((await request.clone().json()) as { method?: unknown }).method);
        return gateway.fetch(request);
      },
    });
    const client = new Client(
      { name: "e2e-2026-agent", version: "1.0.0" },
      { versionNegotiation: { mode: "auto" } },
    );
    await client.connect(transport);
    expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("create_post");
    const created = await client.callTool({
      name: "create_post",
      arguments: { post: { title: "Published by a 2026 agent", status: "published" } },
    });
    expect(created.isError).toBeFalsy();
    expect(created.structuredContent).toMatchObject({ status: "published" });
    expect(methods).not.toContain("initialize");
    await client.close();

    const smuggled = await gateway.fetch(
      new Request(`${BASE}/v1/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${key}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/call",
          "mcp-name": "list_posts",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 9,
          method: "tools/call",
          params: {
            name: "create_post",
            arguments: { post: { title: "smuggled" } },
            _meta: {
              "io.modelcontextprotocol/protocolVersion": "2026-07-28",
              "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
              "io.modelcontextprotocol/clientCapabilities": {},
            },
          },
        }),
      }),
    );
    expect(smuggled.status).toBe(400);
    expect(await smuggled.json()).toMatchObject({ id: 9, error: { code: -32020 } });
    expect(smuggled.headers.get("mcp-session-id")).toBeNull();
    const listed = await call<{ items: { title: string }[] }>("GET", "/v1/posts", { token: key });
    expect(listed.body.items.map((i) => i.title)).toEqual(["Published by a 2026 agent"]);
  });
});
