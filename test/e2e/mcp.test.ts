import { exports } from "cloudflare:workers";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { BASE, call, createOrg, createSite, verifiedUser } from "../support/platform";

/**
 * An AI agent through the edge only: the official MCP SDK client against `/v1/mcp` at the gateway, with
 * a ck_ key the site owner made; it publishes a post that the API then lists, and a read-only key is
 * refused the write tool.
 */
async function agent(key: string): Promise<Client> {
  const gateway = (exports as unknown as { default: Fetcher }).default;
  const transport = new StreamableHTTPClientTransport(new URL(`${BASE}/v1/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
    fetch: (url, init) => gateway.fetch(new Request(url, init)),
  });
  const client = new Client({ name: "e2e-agent", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

describe("MCP through the gateway", () => {
  it("an agent with a ck_ key publishes a post; a read-only key is refused create_post", async () => {
    const session = await verifiedUser();
    const org = await createOrg(session.access_token);
    const site = await createSite(session.access_token, org.id);
    const makeKey = async (scopes: string[]) => {
      const res = await call<{ key: string }>("POST", `/api/v1/sites/${site.id}/api-keys`, {
        token: session.access_token,
        body: { name: "agent", kind: "secret", scopes },
      });
      expect(res.status).toBe(201);
      return res.body.key;
    };
    const writer = await agent(await makeKey(["posts:write", "posts:read"]));
    const created = await writer.callTool({
      name: "create_post",
      arguments: { post: { title: "Published by an agent", status: "published" } },
    });
    expect(created.isError).toBeFalsy();
    const post = created.structuredContent as { id: string; status: string };
    expect(post.status).toBe("published");
    const listed = await call<{ items: { id: string }[] }>("GET", "/v1/posts", {
      token: await makeKey(["posts:read"]),
    });
    expect(listed.body.items.map((i) => i.id)).toEqual([post.id]);

    const reader = await agent(await makeKey(["posts:read"]));
    expect((await reader.listTools()).tools.map((t) => t.name)).not.toContain("create_post");
    const refused = await reader.callTool({ name: "create_post", arguments: { post: { title: "No" } } });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({ status: 403, code: "INSUFFICIENT_SCOPE" });
    await writer.close();
    await reader.close();
  });
});
