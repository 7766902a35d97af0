/**
 * `/v1/mcp` on the MCP 2026-07-28 transport beside 2025-11-25 (docs/decisions/oauth-agents.md, "Transport"):
 * the v2 client SDK negotiating the 2026-07-28 revision lists and calls tools with no `initialize`; the
 * revision's transport rules (headers mirrored from the body, the protocol version, no sessions, no
 * batches) are answered with the errors it names; the limits of the 2025 path hold on the 2026 one.
 * (The v1 client of 2025-11-25 is test/content/mcp.integration.test.ts and test/e2e/mcp.test.ts, unchanged.)
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { SCOPES } from "../../src/content/keys/scopes";
import { MIB } from "../../src/lib/body-caps";
import { BASE, content, countRows, createKey, tenant } from "../support/content-helpers";

const MCP_URL = `${BASE}/v1/mcp`;
const MODERN = "2026-07-28";

interface Sent {
  method: string;
  headers: Headers;
  body: unknown;
}

interface Seen {
  sent: Sent[];
  sessionIds: (string | null)[];
}

/** A 2026-07-28 agent: the v2 client SDK negotiating (`auto`: server/discover, no initialize). */
async function modernAgent(key: string): Promise<{ client: Client; seen: Seen }> {
  const seen: Seen = { sent: [], sessionIds: [] };
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
    fetch: async (url, init) => {
      const request = new Request(url, init);
      const text = await request.clone().text();
      const body = text ? (JSON.parse(text) as unknown) : undefined;
      seen.sent.push({ method: request.method, headers: request.headers, body });
      const response = await content.fetch(request);
      seen.sessionIds.push(response.headers.get("mcp-session-id"));
      return response;
    },
  });
  const client = new Client(
    { name: "modern-agent", version: "1.0.0" },
    { versionNegotiation: { mode: "auto" } },
  );
  await client.connect(transport);
  return { client, seen };
}

type ToolResult = {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
};

function methodOf(sent: Sent): unknown {
  return (sent.body as { method?: unknown } | undefined)?.method;
}

/** The envelope a 2026-07-28 request carries in `params._meta`. */
function envelope(version = MODERN): Record<string, unknown> {
  return {
    "io.modelcontextprotocol/protocolVersion": version,
    "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
}

function message(method: string, params: Record<string, unknown> = {}, version = MODERN, id: unknown = 1) {
  return { jsonrpc: "2.0", id, method, params: { ...params, _meta: envelope(version) } };
}

/** A raw POST with the headers a 2026-07-28 client mirrors from the body (overridable, removable). */
function post(key: string, body: unknown, headers: Record<string, string | null> = {}): Promise<Response> {
  const first = Array.isArray(body) ? body[0] : body;
  const { method, params } = (first ?? {}) as { method?: string; params?: { name?: string } };
  const mirrored: Record<string, string | null> = {
    authorization: `Bearer ${key}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": MODERN,
    "mcp-method": method ?? null,
    "mcp-name": params?.name ?? null,
    ...headers,
  };
  const sent = new Headers();
  for (const [name, value] of Object.entries(mirrored)) if (value !== null) sent.set(name, value);
  return content.fetch(
    new Request(MCP_URL, {
      method: "POST",
      headers: sent,
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
  );
}

interface RpcError {
  id: unknown;
  error: { code: number; message: string; data?: Record<string, unknown> };
}

describe("MCP 2026-07-28: the v2 client SDK", () => {
  it("negotiates 2026-07-28 with no initialize, lists the key's tools and creates a post; no session id ever", async () => {
    const t = await tenant();
    const { client, seen } = await modernAgent(t.ck);
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    const listed = await client.listTools();
    const names = listed.tools.map((tool) => tool.name);
    expect(names).toContain("create_post");
    expect(names).not.toContain("list_leads"); // outside the key's scopes
    const created = (await client.callTool({
      name: "create_post",
      arguments: { post: { title: "From a 2026 agent", status: "published" } },
    })) as ToolResult;
    expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
    expect(created.structuredContent).toMatchObject({ title: "From a 2026 agent", status: "published" });
    expect(await countRows("posts", t.site.id)).toBe(1);

    const methods = seen.sent.map(methodOf);
    expect(methods).not.toContain("initialize");
    expect(methods).not.toContain("notifications/initialized");
    expect(methods).toEqual(expect.arrayContaining(["server/discover", "tools/list", "tools/call"]));
    for (const sent of seen.sent) {
      expect(sent.method).toBe("POST");
      expect(sent.headers.get("mcp-protocol-version")).toBe(MODERN);
      expect(sent.headers.get("mcp-method")).toBe(methodOf(sent));
    }
    expect(seen.sessionIds.every((id) => id === null)).toBe(true);
    await client.close();
  });

  it("a refusal is the API's problem as a tool error: create_post without posts:write creates nothing", async () => {
    const t = await tenant();
    const reader = await createKey(t.site, { scopes: ["posts:read"] });
    const { client } = await modernAgent(reader.key);
    expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain("create_post");
    const result = (await client.callTool({
      name: "create_post",
      arguments: { post: { title: "Not mine to write" } },
    })) as ToolResult;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ status: 403, code: "INSUFFICIENT_SCOPE" });
    const unknown = (await client.callTool({ name: "no_such_tool", arguments: {} })) as ToolResult;
    expect(unknown.structuredContent).toMatchObject({ status: 404, code: "NOT_FOUND" });
    const invalid = (await client.callTool({
      name: "list_posts",
      arguments: { limit: "many" },
    })) as ToolResult;
    expect(invalid.isError).toBe(true);
    expect(invalid.structuredContent).toMatchObject({ status: 400 });
    expect(await countRows("posts", t.site.id)).toBe(0);
    await client.close();
  });

  it("the v2 client left at its default negotiation ('legacy') is a 2025-11-25 client: initialize, then served", async () => {
    const t = await tenant();
    const sent: unknown[] = [];
    const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
      requestInit: { headers: { authorization: `Bearer ${t.ck}` } },
      fetch: async (url, init) => {
        const request = new Request(url, init);
        sent.push(
          methodOf({ method: request.method, headers: request.headers, body: await request.clone().json() }),
        );
        return content.fetch(request);
      },
    });
    const client = new Client({ name: "default-agent", version: "1.0.0" });
    await client.connect(transport);
    expect(client.getNegotiatedProtocolVersion()).toBe("2025-11-25");
    expect(sent[0]).toBe("initialize");
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("create_post");
    await client.close();
  });

  it("server/discover names the revision, the server and its tools capability", async () => {
    const t = await tenant();
    const res = await post(t.ck, message("server/discover"));
    expect(res.status).toBe(200);
    expect(res.headers.get("mcp-session-id")).toBeNull();
    expect(res.headers.get("cache-control")).toBe("no-store");
    const { result } = (await res.json()) as { result: Record<string, unknown> };
    expect(result.supportedVersions).toEqual([MODERN]);
    expect(result).toMatchObject({ capabilities: { tools: {} } });
    expect(JSON.stringify(result)).toContain('"name":"content"');
  });
});

describe("MCP 2026-07-28: the transport's rules", () => {
  it("Mcp-Method or Mcp-Name that disagree with the body, or are missing: 400 HeaderMismatch (-32020), nothing runs", async () => {
    const t = await tenant();
    const create = message("tools/call", { name: "create_post", arguments: { post: { title: "smuggled" } } });
    const cases: Record<string, string | null>[] = [
      { "mcp-name": "list_posts" }, // routed as a read, runs a write
      { "mcp-method": "tools/list" },
      { "mcp-name": null },
      { "mcp-method": null },
      { "mcp-name": "Create_post" }, // values are case-sensitive
    ];
    for (const headers of cases) {
      const res = await post(t.ck, create, headers);
      expect(res.status, JSON.stringify(headers)).toBe(400);
      const body = (await res.json()) as RpcError;
      expect(body.error.code, JSON.stringify(headers)).toBe(-32020);
      expect(body.id).toBe(1);
    }
    expect(await countRows("posts", t.site.id)).toBe(0);
    // The Base64 sentinel form of Mcp-Name is decoded before it is compared: this one agrees.
    const encoded = `=?base64?${btoa("create_post")}?=`;
    const ok = await post(t.ck, create, { "mcp-name": encoded });
    expect(ok.status).toBe(200);
    expect(await countRows("posts", t.site.id)).toBe(1);
  });

  it("MCP-Protocol-Version must equal the body's _meta version: 400 HeaderMismatch", async () => {
    const t = await tenant();
    for (const header of ["2025-11-25", "2026-07-29", null]) {
      const res = await post(t.ck, message("tools/list"), { "mcp-protocol-version": header });
      expect(res.status, String(header)).toBe(400);
      expect(((await res.json()) as RpcError).error.code, String(header)).toBe(-32020);
    }
  });

  it("an unsupported revision: 400 UnsupportedProtocolVersion (-32022) naming every revision served", async () => {
    const t = await tenant();
    const res = await post(t.ck, message("tools/list", {}, "1900-01-01"), {
      "mcp-protocol-version": "1900-01-01",
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as RpcError;
    expect(body.error.code).toBe(-32022);
    expect(body.error.data?.requested).toBe("1900-01-01");
    expect(body.error.data?.supported).toEqual(expect.arrayContaining([MODERN, "2025-11-25"]));
    expect(body.id).toBe(1);
    // A 2025-style request (no envelope) naming an unknown revision in its header: refused as 2025 does.
    const legacy = await post(
      t.ck,
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      { "mcp-protocol-version": "1900-01-01", "mcp-method": null },
    );
    expect(legacy.status).toBe(400);
    expect(((await legacy.json()) as RpcError).error.message).toContain("Unsupported protocol version");
    // The modern header without the envelope it promises: invalid params, never served as 2025.
    const bare = await post(t.ck, { jsonrpc: "2.0", id: 3, method: "tools/list" });
    expect(bare.status).toBe(400);
    expect(((await bare.json()) as RpcError).error.code).toBe(-32602);
  });

  it("a batch is no 2026-07-28 message: 400 Invalid Request; a 2025 batch is still served, capped at 20", async () => {
    const t = await tenant();
    const create = (i: number) =>
      message("tools/call", { name: "create_post", arguments: { post: { title: `b${i}` } } }, MODERN, i);
    const res = await post(t.ck, [create(1), create(2)], { "mcp-name": "create_post" });
    expect(res.status).toBe(400);
    expect(((await res.json()) as RpcError).error.code).toBe(-32600);
    expect(await countRows("posts", t.site.id)).toBe(0);
    // 2025-era clients (no envelope, no modern header) keep the batches their revision had.
    const legacy = [1, 2].map((id) => ({ jsonrpc: "2.0", id, method: "tools/list" }));
    const served = await post(t.ck, legacy, { "mcp-protocol-version": null, "mcp-method": null });
    expect(served.status).toBe(200);
    const answers = (await served.json()) as { id: number; result: { tools: unknown[] } }[];
    expect(answers.map((a) => a.id).sort()).toEqual([1, 2]);
    const tooMany = Array.from({ length: 21 }, (_, id) => message("tools/list", {}, MODERN, id));
    const capped = await post(t.ck, tooMany);
    expect(capped.status).toBe(400);
    expect(((await capped.json()) as RpcError).error.code).toBe(-32600);
  });

  it("no sessions: an Mcp-Session-Id sent is ignored and none is issued; GET and DELETE are 405", async () => {
    const t = await tenant();
    const res = await post(t.ck, message("tools/list"), { "mcp-session-id": "made-up-session" });
    expect(res.status).toBe(200);
    expect(res.headers.get("mcp-session-id")).toBeNull();
    for (const method of ["GET", "DELETE"]) {
      const other = await content.fetch(
        new Request(MCP_URL, {
          method,
          headers: {
            authorization: `Bearer ${t.ck}`,
            "mcp-protocol-version": MODERN,
            accept: "text/event-stream",
          },
        }),
      );
      expect(other.status, method).toBe(405);
      expect(other.headers.get("allow")).toBe("POST");
      expect(other.headers.get("mcp-session-id")).toBeNull();
    }
  });

  it("subscriptions/listen: acknowledged with nothing honoured (a key's tools never change) and ended at once", async () => {
    const t = await tenant();
    const listen = message("subscriptions/listen", { notifications: { toolsListChanged: true } });
    const res = await post(t.ck, listen);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const text = await res.text(); // ends: the stream is not held open
    const frames = text
      .split("\n")
      .filter((line) => line.startsWith("data: "))
      .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
    expect(frames[0]).toMatchObject({
      method: "notifications/subscriptions/acknowledged",
      params: { notifications: {} },
    });
    expect(frames.at(-1)).toMatchObject({ id: 1, result: { resultType: "complete" } });
  });

  it("the limits hold: 2 MiB per message, one upload_media call may be larger, a body that is no JSON-RPC", async () => {
    const t = await tenant();
    const big = message("tools/call", {
      name: "create_post",
      arguments: { post: { title: "x".repeat(2 * MIB) } },
    });
    const uploader = await createKey(t.site, { scopes: SCOPES.filter((scope) => scope !== "leads:read") });
    const tooLarge = await post(uploader.key, big);
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
    // 3 MiB of data that is not base64: past the 2 MiB cap as the one exception, then refused by the tool.
    const upload = message("tools/call", {
      name: "upload_media",
      arguments: { data: `${"A".repeat(3 * MIB)}!!!!` },
    });
    const uploaded = await post(uploader.key, upload);
    expect(uploaded.status).toBe(200);
    const answer = (await uploaded.json()) as { result: ToolResult };
    expect(answer.result.isError).toBe(true);
    expect(answer.result.structuredContent).toMatchObject({ status: 400, code: "BAD_REQUEST" });
    expect(await countRows("media", t.site.id)).toBe(0);
    for (const body of ["{not json", JSON.stringify({ hello: "world" })]) {
      const res = await post(t.ck, body, { "mcp-method": null });
      expect(res.status, body).toBe(400);
      expect(((await res.json()) as RpcError).error.code, body).toBeLessThan(-32000);
    }
  });

  it("authentication comes first: no key is 401 problem+json before any MCP processing, in either era", async () => {
    const res = await content.fetch(
      new Request(MCP_URL, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "mcp-protocol-version": MODERN,
          "mcp-method": "server/discover",
        },
        body: JSON.stringify(message("server/discover")),
      }),
    );
    expect(res.status).toBe(401);
    expect(res.headers.get("content-type")).toContain("application/problem+json");
  });
});
