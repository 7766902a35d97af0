/**
 * Issue 35's MCP tools through `/v1/mcp`, with the MCP SDK client as an agent uses it: `upload_media` takes
 * the image's bytes (base64, at most 8 MiB decoded: larger is a tool error naming the limit), its message
 * may pass the 2 MiB cap every other message keeps (up to 12 MiB), the URL form keeps working, and
 * `delete_post` answers what it deleted.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { MCP_UPLOAD_MESSAGE_MAX_BYTES } from "../../src/lib/body-caps";
import { BASE, call, content, countRows, createKey, createPost, tenant } from "../support/content-helpers";
import { pngHeader, pngImage } from "../support/png";

const MCP_URL = `${BASE}/v1/mcp`;
const MIB = 1024 * 1024;

async function agent(key: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
    fetch: (url, init) => content.fetch(new Request(url, init)),
  });
  const client = new Client({ name: "test-agent", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

type Result = CallToolResult & { structuredContent?: Record<string, unknown> };

async function tool(client: Client, name: string, args: Record<string, unknown>): Promise<Result> {
  return (await client.callTool({ name, arguments: args })) as Result;
}

async function refused(client: Client, name: string, args: Record<string, unknown>) {
  const result = await tool(client, name, args);
  expect(result.isError, JSON.stringify(result.content).slice(0, 500)).toBe(true);
  return result.structuredContent as { status: number; code: string; detail?: string; details?: unknown };
}

function base64(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(text);
}

/** A PNG of `size` bytes: a sound header, then filler (the upload judges the type from the header). */
function bigPng(size: number): Uint8Array {
  const header = pngHeader(64, 64);
  const out = new Uint8Array(size);
  out.set(header);
  for (let i = header.length; i < size; i++) out[i] = (i * 7919) & 0xff;
  return out;
}

/** A raw MCP POST (no SDK) with this JSON-RPC body. */
function rawMcp(key: string, body: string): Promise<Response> {
  return content.fetch(
    new Request(MCP_URL, {
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body,
    }),
  );
}

function toolsCall(name: string, args: Record<string, unknown>, id = 1) {
  return { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } };
}

describe("MCP upload_media: an image as bytes", () => {
  it("uploads base64 bytes as POST /v1/media would; the URL form still works beside it", async () => {
    const t = await tenant();
    const key = await createKey(t.site, { scopes: ["media:write", "media:read"] });
    const client = await agent(key.key);
    const { tools } = await client.listTools();
    const upload = tools.find((x) => x.name === "upload_media");
    expect(upload?.inputSchema.required).toEqual(["data"]);
    expect(upload?.inputSchema.properties?.data).toMatchObject({
      type: "string",
      contentEncoding: "base64",
      maxLength: Math.ceil((8 * MIB) / 3) * 4,
    });

    const result = await tool(client, "upload_media", {
      data: base64(await pngImage(16, 12)),
      alt: "A gradient square",
    });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(result._meta).toMatchObject({ http_status: 202 });
    const asset = result.structuredContent as { id: string; status: string; content_type: string };
    // The form's other fields go with the bytes, as on POST /v1/media.
    expect(asset).toMatchObject({
      status: "processing",
      content_type: "image/png",
      alt: "A gradient square",
    });
    expect((await call("GET", `/v1/media/${asset.id}`, { key: key.key })).status).toBe(200);

    const fromUrl = await tool(client, "upload_media_from_url", { url: "https://img.test/ok.png" });
    expect(fromUrl.isError, JSON.stringify(fromUrl.content)).toBeFalsy();
    expect(await countRows("media", t.site.id)).toBe(2);
    await client.close();
  });

  it("a message above 2 MiB passes for one upload_media call (a 3 MiB image)", async () => {
    const t = await tenant();
    const key = await createKey(t.site, { scopes: ["media:write", "media:read"] });
    const client = await agent(key.key);
    const result = await tool(client, "upload_media", { data: base64(bigPng(3 * MIB)) });
    expect(result.isError, JSON.stringify(result.content).slice(0, 500)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ content_type: "image/png", size_bytes: 3 * MIB });
    await client.close();
  });

  it("above 8 MiB decoded: a tool error naming the limit, nothing stored", async () => {
    const t = await tenant();
    const key = await createKey(t.site, { scopes: ["media:write", "media:read"] });
    const client = await agent(key.key);
    // 8 MiB + 4 bytes decoded; refused by its length, never decoded.
    const problem = await refused(client, "upload_media", {
      data: "A".repeat(Math.ceil((8 * MIB) / 3) * 4 + 4),
    });
    expect(problem).toMatchObject({ status: 413, code: "PAYLOAD_TOO_LARGE" });
    expect(problem.detail).toContain(String(8 * MIB));
    expect(problem.detail).toContain("8 MiB");
    expect(await countRows("media", t.site.id)).toBe(0);
    await client.close();
  });

  it("bad base64, a file that is no image, a key without media:write: the API's refusals as tool errors", async () => {
    const t = await tenant();
    const key = await createKey(t.site, { scopes: ["media:write", "media:read"] });
    const client = await agent(key.key);
    expect(await refused(client, "upload_media", { data: "not base64!" })).toMatchObject({
      status: 400,
      code: "BAD_REQUEST",
      details: { path: "data" },
    });
    expect(await refused(client, "upload_media", { data: "iVBORw0KGgo=\n" })).toMatchObject({ status: 400 });
    expect(await refused(client, "upload_media", {})).toMatchObject({ status: 400 });
    expect(await refused(client, "upload_media", { data: btoa("plain text") })).toMatchObject({
      status: 415,
      code: "UNSUPPORTED_MEDIA_TYPE",
    });
    const noMedia = await agent(t.ck);
    expect(await refused(noMedia, "upload_media", { data: base64(await pngImage(4, 4)) })).toMatchObject({
      status: 403,
      code: "INSUFFICIENT_SCOPE",
      details: { missing_scopes: ["media:write"] },
    });
    expect(await countRows("media", t.site.id)).toBe(0);
    await client.close();
    await noMedia.close();
  });
});

describe("MCP body caps: raised for upload_media only", () => {
  it("another tool's message above 2 MiB is 413, as is an upload_media call inside a batch", async () => {
    const t = await tenant();
    const big = "x".repeat(2 * MIB + 1);
    const create = await rawMcp(t.ck, JSON.stringify(toolsCall("create_post", { post: { title: big } })));
    expect(create.status).toBe(413);
    expect(await create.json()).toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
    const batch = JSON.stringify([toolsCall("upload_media", { data: big.replace(/x/g, "A") })]);
    expect((await rawMcp(t.ck, batch)).status).toBe(413);
    expect(await countRows("posts", t.site.id)).toBe(0);
  });

  it("an upload_media message above 12 MiB is 413 before any MCP processing", async () => {
    const t = await tenant();
    const key = await createKey(t.site, { scopes: ["media:write"] });
    const data = "A".repeat(MCP_UPLOAD_MESSAGE_MAX_BYTES);
    const response = await rawMcp(key.key, JSON.stringify(toolsCall("upload_media", { data })));
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
    expect(await countRows("media", t.site.id)).toBe(0);
  });
});

describe("MCP delete_post answers what it deleted", () => {
  it("id, slug, title, language and the status before; by slug too; the post is gone", async () => {
    const t = await tenant();
    const client = await agent(t.ck);
    const published = await createPost(t.ck, { title: "Going away", status: "published" });
    const draft = await createPost(t.ck, { title: "Never shown", slug: "never-shown" });

    const first = await tool(client, "delete_post", { reference: published.id });
    expect(first.isError, JSON.stringify(first.content)).toBeFalsy();
    const answer = {
      id: published.id,
      slug: published.slug,
      title: "Going away",
      language: published.language,
      status_before: "published",
    };
    expect(first.structuredContent).toEqual(answer);
    expect(JSON.parse((first.content[0] as { text: string }).text)).toEqual(answer);
    expect(first._meta).toMatchObject({ http_status: 204 });
    expect((await call("GET", `/v1/posts/${published.id}`, { key: t.ck })).status).toBe(404);

    const second = await tool(client, "delete_post", { reference: "never-shown" });
    expect(second.structuredContent).toMatchObject({
      id: draft.id,
      slug: "never-shown",
      title: "Never shown",
      status_before: "draft",
    });
    expect(await refused(client, "delete_post", { reference: published.id })).toMatchObject({
      status: 404,
    });

    // A key that may not delete is refused (the read first: nothing read, nothing deleted).
    const reader = await createKey(t.site, { scopes: ["posts:read"] });
    const kept = await createPost(t.ck, { title: "Kept", status: "published" });
    const readOnly = await agent(reader.key);
    expect(await refused(readOnly, "delete_post", { reference: kept.id })).toMatchObject({
      status: 403,
      code: "INSUFFICIENT_SCOPE",
    });
    expect((await call("GET", `/v1/posts/${kept.id}`, { key: t.ck })).status).toBe(200);
    await client.close();
    await readOnly.close();
  });
});
