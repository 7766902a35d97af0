/**
 * `/v1/mcp` with the official MCP TypeScript SDK client (`Client` + `StreamableHTTPClientTransport`) whose
 * fetch is the content worker's own: an agent with a ck_ key works within its scopes, and every refusal
 * is the API's.
 */
import { OpenAPIHono, z } from "@hono/zod-openapi";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { AuthorsQuery, CreateAuthorSchema, UpdateAuthorSchema } from "../../src/content/authors/routes";
import { ExportQuery } from "../../src/content/bulk/routes";
import { SCOPES } from "../../src/content/keys/scopes";
import { MediaIdParam, MediaListQuery, UpdateMediaSchema, UploadForm } from "../../src/content/media/routes";
import { BlocksDocumentSchema } from "../../src/content/posts/blocks/catalogue";
import { CreatePostSchema, UpdatePostSchema } from "../../src/content/posts/input";
import { ListQuery } from "../../src/content/posts/list-routes";
import {
  IdempotencyHeaders,
  IfMatchHeaders,
  LanguageQuery,
  PublicReadQuery,
  RefParam,
} from "../../src/content/posts/routes";
import { PostSeoSchema } from "../../src/content/posts/shapes";
import { RevisionParam, RevisionsQuery } from "../../src/content/revisions/routes";
import { SearchQuery } from "../../src/content/search/routes";
import { SiteSeoSchema } from "../../src/content/site/settings";
import { TermSlugParam, TermsQuery, UpdateTermSchema } from "../../src/content/taxonomy/routes";
import { newId } from "../../src/lib/ids";
import { unknownFieldDetail } from "../../src/lib/input-issues";
import {
  BASE,
  call,
  content,
  countRows,
  createKey,
  createPost,
  ORIGIN,
  ownerHeaders,
  paragraph,
  tenant,
} from "../support/content-helpers";
import { settingsTenant } from "../support/settings-through-sites";

const MCP_URL = `${BASE}/v1/mcp`;

/** Every scope but `leads:read` (personal data, opt-in per key). */
const ALL_SCOPES = SCOPES.filter((scope) => scope !== "leads:read");

/** An agent: the SDK client over Streamable HTTP, its requests answered by the content worker. */
async function agent(key: string, headers: Record<string, string> = {}): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
    requestInit: { headers: { authorization: `Bearer ${key}`, ...headers } },
    fetch: (url, init) => content.fetch(new Request(url, init)),
  });
  const client = new Client({ name: "test-agent", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

async function tool(client: Client, name: string, args: Record<string, unknown> = {}) {
  return (await client.callTool({ name, arguments: args })) as CallToolResult & {
    structuredContent?: Record<string, unknown>;
  };
}

async function ok(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await tool(client, name, args);
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return result;
}

async function refused(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await tool(client, name, args);
  expect(result.isError, JSON.stringify(result.content)).toBe(true);
  const problem = result.structuredContent as {
    status: number;
    code: string;
    detail?: string;
    details?: unknown;
  };
  // The agent reads the same problem in the text content.
  const text = result.content[0];
  expect(text?.type === "text" && JSON.parse(text.text)).toEqual(problem);
  return problem;
}

function initializeMessage() {
  return {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  };
}

function rawMcp(headers: Record<string, string>, method = "POST"): Promise<Response> {
  return content.fetch(
    new Request(MCP_URL, {
      method,
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...headers,
      },
      body: method === "POST" ? JSON.stringify(initializeMessage()) : undefined,
    }),
  );
}

describe("MCP: an agent with a ck_ key", () => {
  it("lists its tools, creates a post, publishes it, reads it back (also via GET /v1/posts), updates its SEO", async () => {
    const t = await tenant();
    const client = await agent(t.ck);
    expect(client.getServerVersion()?.name).toBe("content");

    const { tools } = await client.listTools();
    const names = tools.map((x) => x.name).sort();
    expect(names).toEqual(
      [
        "create_author",
        "create_post",
        "delete_post",
        "get_post",
        "get_post_seo",
        "get_post_source",
        "get_site",
        "get_site_seo",
        "list_authors",
        "list_categories",
        "list_post_types",
        "list_tags",
        "list_post_revisions",
        "list_posts",
        "restore_post_revision",
        "search_posts",
        "unpublish_post",
        "update_author",
        "update_category",
        "update_post",
        "update_post_seo",
        "update_site_seo",
        "update_tag",
      ].sort(),
    );
    expect(tools.find((x) => x.name === "get_post")?.annotations?.readOnlyHint).toBe(true);

    const created = await ok(client, "create_post", {
      post: { title: "Written by an agent", blocks_json: paragraph("Hello from MCP"), status: "draft" },
      idempotency_key: "agent-1",
    });
    const post = created.structuredContent as { id: string; slug: string; status: string };
    expect(post.status).toBe("draft");
    expect(created._meta).toMatchObject({ http_status: 201 });

    // A retry with the same Idempotency-Key replays the 201: one post.
    const replay = await ok(client, "create_post", {
      post: { title: "Written by an agent", blocks_json: paragraph("Hello from MCP"), status: "draft" },
      idempotency_key: "agent-1",
    });
    expect((replay.structuredContent as { id: string }).id).toBe(post.id);
    expect(replay._meta).toMatchObject({ http_headers: { "idempotency-replayed": "true" } });
    expect(await countRows("posts", t.site.id)).toBe(1);

    // A draft is not public: the public read answers like a missing post; the source reads it.
    expect(await refused(client, "get_post", { reference: post.id })).toMatchObject({
      status: 404,
      code: "NOT_FOUND",
    });
    const source = await ok(client, "get_post_source", { reference: post.slug });
    expect(source.structuredContent).toMatchObject({ id: post.id, status: "draft" });
    // The revision's ETag comes with the result, for update_post's if_match.
    const etag = (source._meta as { http_headers: { etag: string } }).http_headers.etag;
    expect(etag).toMatch(/^"rev-\d+"$/);
    expect(
      await refused(client, "update_post", {
        reference: post.id,
        if_match: '"rev-99"',
        changes: { status: "published" },
      }),
    ).toMatchObject({
      status: 412,
      code: "PRECONDITION_FAILED",
    });

    const published = await ok(client, "update_post", {
      reference: post.id,
      if_match: etag,
      changes: { status: "published" },
    });
    expect(published.structuredContent).toMatchObject({ id: post.id, status: "published" });

    const read = await ok(client, "get_post", { reference: post.slug });
    expect(read.structuredContent).toMatchObject({ id: post.id, title: "Written by an agent" });
    expect(String((read.structuredContent as { content_html: string }).content_html)).toContain(
      "Hello from MCP",
    );

    const listed = await call("GET", "/v1/posts", { key: t.ck });
    expect(listed.status).toBe(200);
    const items = ((await listed.json()) as { items: { id: string }[] }).items;
    expect(items.map((i) => i.id)).toContain(post.id);
    const viaTool = await ok(client, "list_posts", { limit: 10 });
    expect((viaTool.structuredContent as { items: { id: string }[] }).items.map((i) => i.id)).toEqual([
      post.id,
    ]);

    const seo = await ok(client, "update_post_seo", {
      reference: post.id,
      seo: { meta_title: "Agent SEO", noindex: false },
    });
    expect(seo.structuredContent).toMatchObject({ meta_title: "Agent SEO", noindex: false });
    const seoRead = await call("GET", `/v1/posts/${post.id}/seo`, { key: t.ck });
    expect(await seoRead.json()).toMatchObject({ meta_title: "Agent SEO" });

    const unpublished = await ok(client, "unpublish_post", { reference: post.id });
    expect(unpublished.structuredContent).toMatchObject({ status: "archived" });
    expect(await refused(client, "unpublish_post", { reference: post.id })).toMatchObject({
      status: 409,
      code: "POST_NOT_PUBLISHED",
    });
    await client.close();
  });

  it("a key without posts:write sees no write tools and is refused create_post naming the scope; nothing is created", async () => {
    const t = await tenant();
    const reader = await createKey(t.site, { scopes: ["posts:read", "seo:read"] });
    const client = await agent(reader.key);
    const names = (await client.listTools()).tools.map((x) => x.name);
    expect(names.sort()).toEqual(
      [
        "get_post",
        "get_post_seo",
        "get_site",
        "get_site_seo",
        "list_authors",
        "list_categories",
        "list_posts",
        "list_tags",
        "search_posts",
      ].sort(),
    );
    for (const hidden of [
      "create_post",
      "update_post",
      "unpublish_post",
      "get_post_source",
      "update_post_seo",
    ]) {
      expect(names).not.toContain(hidden);
    }

    const problem = await refused(client, "create_post", {
      post: { title: "Not allowed", status: "published" },
    });
    expect(problem).toMatchObject({
      status: 403,
      code: "INSUFFICIENT_SCOPE",
      details: { missing_scopes: ["posts:write"] },
    });
    expect(problem.detail).toContain("posts:write");
    const mine = await createPost(t.ck, { title: "Existing", status: "published" });
    expect(
      await refused(client, "update_post", { reference: mine.id, changes: { title: "x" } }),
    ).toMatchObject({
      status: 403,
      code: "INSUFFICIENT_SCOPE",
    });
    expect(await countRows("posts", t.site.id)).toBe(1);
    await client.close();
  });

  it("an unknown field inside a tool's body is refused and named, as its operation refuses it (issue 33)", async () => {
    const t = await tenant();
    const client = await agent(t.ck);
    // The tool schemas are the operations' strict bodies: they say so to the agent.
    const { tools } = await client.listTools();
    const bodyOf = (name: string, argument: string) => {
      const properties = tools.find((x) => x.name === name)?.inputSchema.properties ?? {};
      return (properties as Record<string, Record<string, unknown>>)[argument];
    };
    expect(bodyOf("create_post", "post")?.additionalProperties).toBe(false);
    expect(bodyOf("update_post", "changes")?.additionalProperties).toBe(false);
    expect(bodyOf("update_post_seo", "seo")?.additionalProperties).toBe(false);
    // create_post: POST /v1/posts's answer, 422 UNKNOWN_FIELD with the field's path; nothing created.
    expect(
      await refused(client, "create_post", {
        post: { title: "Agent", body_markdown: "# Hi", status: "draft" },
      }),
    ).toMatchObject({
      status: 422,
      code: "UNKNOWN_FIELD",
      detail: unknownFieldDetail("body_markdown", ["body_markdown"]),
      details: { path: "body_markdown", unknown: ["body_markdown"] },
    });
    // An argument the tool does not take (the body's fields sent flat): named the same way.
    expect(await refused(client, "create_post", { title: "Flat", post: { title: "Nested" } })).toMatchObject({
      status: 400,
      code: "BAD_REQUEST",
      details: { path: "title", unknown: ["title"] },
    });
    expect(await countRows("posts", t.site.id)).toBe(0);
    // The edits: 400 BAD_REQUEST naming it, before the post is looked up.
    const post = await createPost(t.ck, { title: "Mine", status: "published" });
    for (const reference of [post.id, newId()]) {
      expect(
        await refused(client, "update_post", { reference, changes: { title: "New", subtitle: "x" } }),
      ).toMatchObject({
        status: 400,
        code: "BAD_REQUEST",
        details: { path: "subtitle", unknown: ["subtitle"] },
      });
      expect(
        await refused(client, "update_post_seo", { reference, seo: { meta_title: "M", keywords: ["a"] } }),
      ).toMatchObject({
        status: 400,
        code: "BAD_REQUEST",
        details: { path: "keywords", unknown: ["keywords"] },
      });
    }
  });

  it("bad input is the API's validation code as a tool error, never a crash", async () => {
    const t = await tenant();
    const client = await agent(t.ck);
    expect(await refused(client, "list_posts", { limit: "999" })).toMatchObject({
      status: 400,
      code: "INVALID_LIMIT",
    });
    expect(await refused(client, "list_posts", { cursor: "garbage" })).toMatchObject({
      status: 400,
      code: "INVALID_CURSOR",
    });
    expect(await refused(client, "list_posts", { status: "deleted" })).toMatchObject({
      status: 400,
      code: "INVALID_STATUS",
    });
    expect(await refused(client, "create_post", { post: { title: "" } })).toMatchObject({
      status: 400,
      code: "BAD_REQUEST",
    });
    expect(await refused(client, "create_post", { post: { title: "x", status: "live" } })).toMatchObject({
      status: 400,
      code: "BAD_REQUEST",
    });
    expect(
      await refused(client, "create_post", { post: { title: "x", language: "not a tag!" } }),
    ).toMatchObject({
      status: 400,
      code: "INVALID_LANGUAGE",
    });
    expect(await refused(client, "create_post", { post: "a string" })).toMatchObject({ status: 400 });
    expect(await refused(client, "create_post", {})).toMatchObject({ status: 400 });
    expect(await refused(client, "create_post", { title: "flat" })).toMatchObject({
      status: 400,
      code: "BAD_REQUEST",
    });
    expect(await refused(client, "get_post", {})).toMatchObject({ status: 400, code: "BAD_REQUEST" });
    expect(await refused(client, "get_post", { reference: { id: 1 } })).toMatchObject({ status: 400 });
    expect(
      await refused(client, "update_post_seo", { reference: "..", seo: { meta_title: "x" } }),
    ).toMatchObject({
      status: 404,
      code: "NOT_FOUND",
    });
    expect(
      await refused(client, "update_post_seo", { reference: "a/b", seo: { meta_title: "x" } }),
    ).toMatchObject({
      status: 404,
    });
    const mine = await createPost(t.ck, { title: "Mine", status: "published" });
    expect(
      await refused(client, "update_post_seo", {
        reference: mine.id,
        seo: { canonical_url: "javascript:x" },
      }),
    ).toMatchObject({
      status: 400,
    });
    expect(await refused(client, "update_post_seo", { reference: mine.id, seo: {} })).toMatchObject({
      status: 400,
      code: "NOTHING_EDITABLE",
    });
    const unknown = await refused(client, "drop_database");
    expect(unknown).toMatchObject({ status: 404, code: "NOT_FOUND" });
    expect(unknown.detail).toContain("Unknown tool: drop_database");
    expect(await countRows("posts", t.site.id)).toBe(1);
    await client.close();
  });

  it("tenant wall: another site's post answers exactly like a missing one, and is not changed", async () => {
    const a = await tenant();
    const b = await tenant();
    const theirs = await createPost(b.ck, { title: "B's post", status: "published" });
    const client = await agent(a.ck);
    const missing = await refused(client, "get_post", { reference: newId() });
    expect(missing).toMatchObject({ status: 404, code: "NOT_FOUND" });
    for (const name of ["get_post", "get_post_seo", "get_post_source", "unpublish_post"]) {
      expect(await refused(client, name, { reference: theirs.id }), name).toEqual(
        await refused(client, name, { reference: newId() }),
      );
    }
    expect(
      await refused(client, "update_post", { reference: theirs.id, changes: { title: "hijack" } }),
    ).toEqual(await refused(client, "update_post", { reference: newId(), changes: { title: "hijack" } }));
    const still = await call("GET", `/v1/posts/${theirs.id}`, { key: b.ck });
    expect(await still.json()).toMatchObject({ id: theirs.id, title: "B's post" });
    await client.close();
  });

  it("site data, settings and SEO, and the posts export, within the key's scopes", async () => {
    // A site the sites service knows (it owns the settings document), with a key of these scopes.
    const t = await settingsTenant(["site:read", "seo:read", "export", "posts:write"]);
    const client = await agent(t.ck);
    const site = await ok(client, "get_site");
    expect(site.structuredContent).toMatchObject({ id: t.site.id });
    const settings = await ok(client, "get_site_settings");
    expect(settings.structuredContent).toEqual(
      await (await call("GET", "/v1/site/settings", { key: t.ck })).json(),
    );
    const seo = await ok(client, "get_site_seo");
    expect(seo.structuredContent).toEqual(await (await call("GET", "/v1/site/seo", { key: t.ck })).json());
    await createPost(t.ck, { title: "Exported", status: "draft" });
    const exported = await ok(client, "export", { resource: "posts" });
    const text = exported.content[0];
    expect(text?.type).toBe("text");
    const lines = (text as { text: string }).text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { title: string });
    expect(lines.map((l) => l.title)).toEqual(["Exported"]);
    expect(await refused(client, "export", { resource: "posts", format: "csv" })).toMatchObject({
      status: 400,
    });
    expect(await refused(client, "export", { resource: "leads" })).toMatchObject({
      status: 403,
      code: "INSUFFICIENT_SCOPE",
    });
    await client.close();
  });

  it("an answer above 8 MiB is refused (413 as a tool error), pointing at the HTTP API", async () => {
    const t = await tenant();
    const key = await createKey(t.site, { scopes: ["export", "posts:write"] });
    const text = "x".repeat(950 * 1024);
    for (let i = 0; i < 9; i++) await createPost(t.ck, { title: `Big ${i}`, blocks_json: paragraph(text) });
    const client = await agent(key.key);
    const problem = await refused(client, "export", { resource: "posts" });
    expect(problem).toMatchObject({ status: 413, code: "PAYLOAD_TOO_LARGE" });
    expect(problem.detail).toContain("/v1/export");
    await client.close();
  });

  it("upload_media_from_url goes through image ingest, then the upload: the API's asset, refusals as tool errors", async () => {
    const t = await tenant();
    const key = await createKey(t.site, { scopes: ["media:write", "media:read"] });
    const client = await agent(key.key);
    const uploaded = await ok(client, "upload_media_from_url", { url: "https://img.test/ok.png" });
    expect(uploaded._meta).toMatchObject({ http_status: 202 });
    const asset = uploaded.structuredContent as { id: string; status: string; content_type: string };
    expect(asset).toMatchObject({ status: "processing", content_type: "image/png" });
    const read = await call("GET", `/v1/media/${asset.id}`, { key: key.key });
    expect(read.status).toBe(200);

    expect(
      await refused(client, "upload_media_from_url", { url: "http://private.test/x.png" }),
    ).toMatchObject({
      status: 422,
      code: "MEDIA_URL_REFUSED",
    });
    expect(
      await refused(client, "upload_media_from_url", { url: "https://img.test/evil.svg" }),
    ).toMatchObject({
      status: 422,
      code: "MEDIA_URL_REFUSED",
      details: { reason: "hostile_svg" },
    });
    expect(
      await refused(client, "upload_media_from_url", { url: "https://img.test/error.png" }),
    ).toMatchObject({
      status: 502,
      code: "MEDIA_URL_UNAVAILABLE",
    });
    expect(await refused(client, "upload_media_from_url", { folder_id: "x" })).toMatchObject({ status: 400 });
    expect(await countRows("media", t.site.id)).toBe(1);

    // A key without media:write: refused before anything is fetched.
    const noMedia = await agent(t.ck);
    expect(await refused(noMedia, "upload_media_from_url", { url: "https://img.test/ok.png" })).toMatchObject(
      {
        status: 403,
        code: "INSUFFICIENT_SCOPE",
        details: { missing_scopes: ["media:write"] },
      },
    );
    expect(await countRows("media", t.site.id)).toBe(1);
    await client.close();
    await noMedia.close();
  });
});

describe("MCP: no valid key is 401 before any MCP processing", () => {
  it("no key, a malformed key, an unknown key: 401 problem+json; the SDK client cannot connect", async () => {
    const cases: Record<string, string>[] = [
      {},
      { authorization: "Basic abc" },
      { authorization: `Bearer ck_${"x".repeat(43)}` },
    ];
    for (const headers of cases) {
      const res = await rawMcp(headers);
      expect(res.status).toBe(401);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      expect(res.headers.get("www-authenticate")).toContain("Bearer");
      expect(await res.json()).toMatchObject({ status: 401, code: "UNAUTHENTICATED" });
    }
    await expect(agent(`ck_${"y".repeat(43)}`)).rejects.toThrow();
  });

  it("a revoked key: 401 at once, also for a client connected before the revocation", async () => {
    const t = await tenant();
    const key = await createKey(t.site, { scopes: ["posts:write", "posts:read"] });
    const client = await agent(key.key);
    await ok(client, "list_posts");
    const revoked = await call("DELETE", `/api/v1/sites/${t.site.id}/api-keys/${key.id}`, {
      headers: ownerHeaders(t.site),
    });
    expect(revoked.status).toBe(204);
    await expect(
      client.callTool({ name: "create_post", arguments: { post: { title: "late" } } }),
    ).rejects.toThrow(/401/);
    const res = await rawMcp({ authorization: `Bearer ${key.key}` });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: "UNAUTHENTICATED" });
    await expect(agent(key.key)).rejects.toThrow();
    expect(await countRows("posts", t.site.id)).toBe(0);
  });

  it("a pk_ key is refused (403): public keys are browser keys", async () => {
    const t = await tenant();
    const res = await rawMcp({ authorization: `Bearer ${t.pk}`, origin: ORIGIN });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: "SECRET_KEY_REQUIRED" });
    const noOrigin = await rawMcp({ authorization: `Bearer ${t.pk}` });
    expect(noOrigin.status).toBe(403);
  });

  it("a body that is not JSON-RPC, or a batch above 20 messages, is a JSON-RPC error, never a crash", async () => {
    const t = await tenant();
    const post = (body: string) =>
      content.fetch(
        new Request(MCP_URL, {
          method: "POST",
          headers: {
            authorization: `Bearer ${t.ck}`,
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
          body,
        }),
      );
    // Stateless: any request stands alone (no initialize first, no session id).
    const list = await post(JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list" }));
    expect(list.status).toBe(200);
    expect(list.headers.get("mcp-session-id")).toBeNull();
    const listed = (await list.json()) as { id: number; result: { tools: { name: string }[] } };
    expect(listed.id).toBe(7);
    expect(listed.result.tools.map((x) => x.name)).toContain("create_post");
    for (const body of ["{not json", JSON.stringify({ hello: "world" })]) {
      const res = await post(body);
      expect(res.status, body).toBe(400);
      expect(await res.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32700 } });
    }
    const huge = await post(
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { x: "a".repeat(2 * 1024 * 1024) } }),
    );
    expect(huge.status).toBe(413);
    expect(await huge.json()).toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
    const batch = Array.from({ length: 21 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "tools/list" }));
    const res = await post(JSON.stringify(batch));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: -32600 } });
    expect(await countRows("posts", t.site.id)).toBe(0);
  });

  it("GET and DELETE are 405 (stateless: no stream, no session), after the key check", async () => {
    const t = await tenant();
    expect((await rawMcp({}, "GET")).status).toBe(401);
    for (const method of ["GET", "DELETE"]) {
      const res = await rawMcp({ authorization: `Bearer ${t.ck}` }, method);
      expect(res.status, method).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
    }
  });
});

/** The JSON Schema of a zod schema as the OpenAPI generator writes it, named components inlined. */
function jsonSchemaOf(schema: z.ZodType): unknown {
  const scratch = new OpenAPIHono();
  scratch.openAPIRegistry.register("Expected", schema);
  // blocks_json refers to the block catalogue by name (registered by the posts routes).
  scratch.openAPIRegistry.register("BlocksDocument", BlocksDocumentSchema);
  const doc = scratch.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "t", version: "0" } });
  const components = (doc.components?.schemas ?? {}) as Record<string, unknown>;
  const inline = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(inline);
    if (node === null || typeof node !== "object") return node;
    const { $ref, ...rest } = node as Record<string, unknown>;
    const base = typeof $ref === "string" ? (inline(components[$ref.split("/").pop()!]) as object) : {};
    return { ...base, ...Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, inline(v)])) };
  };
  return inline(components.Expected);
}

/** The API reads `limit`, `offset` and `days` as digits; a tool types them as integers (issue 22). */
function numbersTyped(schema: unknown): unknown {
  const s = schema as { properties?: Record<string, { description?: string }> };
  if (!s.properties) return s;
  const properties = Object.fromEntries(
    Object.entries(s.properties).map(([name, p]) =>
      ["limit", "offset", "days"].includes(name)
        ? [name, { type: "integer", ...(p.description ? { description: p.description } : {}) }]
        : [name, p],
    ),
  );
  return { ...s, properties };
}

function sortedRequired(schema: unknown): unknown {
  const s = schema as { required?: string[] };
  return s.required ? { ...s, required: [...s.required].sort() } : s;
}

describe("MCP tool schemas are the routes' zod schemas", () => {
  it("each tool's input schema equals the JSON Schema of the zod schemas its OpenAPI route uses", async () => {
    const t = await tenant();
    const key = await createKey(t.site, { scopes: ALL_SCOPES });
    const client = await agent(key.key);
    const tools = new Map((await client.listTools()).tools.map((x) => [x.name, x.inputSchema]));

    const reference = RefParam.shape;
    const none = z.object({}).strict();
    const expected: Record<string, z.ZodType> = {
      list_posts: ListQuery.omit({ key: true }).strict(),
      list_media: MediaListQuery.omit({ key: true }).strict(),
      update_site_seo: z.object({ seo: SiteSeoSchema }).strict(),
      search_posts: SearchQuery.omit({ key: true }).strict(),
      list_post_revisions: z.object({ ...reference, ...RevisionsQuery.shape }).strict(),
      restore_post_revision: z
        .object({
          ...RevisionParam.shape,
          ...LanguageQuery.shape,
          if_match: IfMatchHeaders.shape["if-match"],
        })
        .strict(),
      get_post: z.object({ ...reference, ...PublicReadQuery.omit({ key: true }).shape }).strict(),
      get_post_source: z.object({ ...reference, ...LanguageQuery.shape }).strict(),
      create_post: z
        .object({ idempotency_key: IdempotencyHeaders.shape["idempotency-key"], post: CreatePostSchema })
        .strict(),
      update_post: z
        .object({
          ...reference,
          ...LanguageQuery.shape,
          if_match: IfMatchHeaders.shape["if-match"],
          changes: UpdatePostSchema,
        })
        .strict(),
      unpublish_post: z.object({ ...reference, ...LanguageQuery.shape }).strict(),
      get_post_seo: z.object({ ...reference, ...PublicReadQuery.omit({ key: true }).shape }).strict(),
      update_post_seo: z.object({ ...reference, ...LanguageQuery.shape, seo: PostSeoSchema }).strict(),
      list_post_types: none,
      get_site: none,
      get_site_settings: none,
      get_site_seo: none,
      export: ExportQuery.strict(),
      delete_post: z.object({ ...reference, ...LanguageQuery.shape }).strict(),
      list_categories: TermsQuery.omit({ key: true }).strict(),
      list_tags: TermsQuery.omit({ key: true }).strict(),
      list_authors: AuthorsQuery.omit({ key: true }).strict(),
      create_author: z.object({ author: CreateAuthorSchema }).strict(),
      update_author: z.object({ slug: z.string().min(1), changes: UpdateAuthorSchema }).strict(),
      update_category: z.object({ ...TermSlugParam.shape, changes: UpdateTermSchema }).strict(),
      update_tag: z.object({ ...TermSlugParam.shape, changes: UpdateTermSchema }).strict(),
      update_media: z.object({ ...MediaIdParam.shape, changes: UpdateMediaSchema }).strict(),
    };
    expect([...tools.keys()].sort()).toEqual(
      [...Object.keys(expected), "upload_media_from_url", "upload_media"].sort(),
    );
    for (const [name, schema] of Object.entries(expected)) {
      expect(sortedRequired(tools.get(name)), name).toEqual(
        sortedRequired(numbersTyped(jsonSchemaOf(schema))),
      );
    }

    // upload_media_from_url: the upload form's fields, the file replaced by the image's URL.
    const upload = tools.get("upload_media_from_url") as {
      properties: Record<string, unknown>;
      required: string[];
    };
    const { url, ...fields } = upload.properties;
    const form = jsonSchemaOf(UploadForm.omit({ file: true })) as { properties: Record<string, unknown> };
    expect(fields).toEqual(form.properties);
    expect(url).toMatchObject({ type: "string", format: "uri" });
    expect(upload.required).toEqual(["url"]);
    // upload_media: the same fields, the file as base64 bytes.
    const bytes = tools.get("upload_media") as { properties: Record<string, unknown>; required: string[] };
    const { data, ...byteFields } = bytes.properties;
    expect(byteFields).toEqual(form.properties);
    expect(data).toMatchObject({ type: "string", contentEncoding: "base64" });
    expect(bytes.required).toEqual(["data"]);
    await client.close();
  });
});

describe("MCP: issue 22 tools", () => {
  it("numbers are numbers, and every tool carries annotations; list_media, search_posts and a revision restore run", async () => {
    const t = await tenant();
    const key = await createKey(t.site, { scopes: ALL_SCOPES });
    const client = await agent(key.key);
    const { tools } = await client.listTools();
    for (const tool of tools) {
      expect(tool.annotations?.readOnlyHint, tool.name).toBeTypeOf("boolean");
      const limit = (tool.inputSchema.properties as Record<string, { type?: string }> | undefined)?.limit;
      if (limit) expect(limit.type, tool.name).toBe("integer");
    }
    const post = await createPost(key.key, { title: "Capybara", status: "published" });
    await call("PATCH", `/v1/posts/${post.id}`, { key: key.key, body: { title: "Capybara 2" } });
    const found = await ok(client, "search_posts", { q: "capybara", limit: 5 });
    expect((found.structuredContent as { items: { id: string }[] }).items.map((i) => i.id)).toEqual([
      post.id,
    ]);
    const media = await ok(client, "list_media", { limit: 10 });
    expect((media.structuredContent as { items: unknown[] }).items).toEqual([]);
    const revisions = await ok(client, "list_post_revisions", { reference: post.id, limit: 10 });
    const oldest = (revisions.structuredContent as { items: { id: number }[] }).items.at(-1)!;
    const restored = await ok(client, "restore_post_revision", { reference: post.id, id: String(oldest.id) });
    expect((restored.structuredContent as { title: string }).title).toBe("Capybara");
    await client.close();
  });

  it("categories, tags, authors and delete run as their operations: counts, a byline made and renamed, a post gone", async () => {
    const t = await tenant();
    const key = await createKey(t.site, { scopes: ALL_SCOPES });
    const client = await agent(key.key);
    const author = await ok(client, "create_author", {
      author: { name: "Ada Agent", bio: "Writes for bots" },
    });
    const slug = (author.structuredContent as { slug: string }).slug;
    const post = await createPost(key.key, {
      title: "Counted",
      status: "published",
      author_slug: slug,
      category_slugs: ["news"],
      tag_slugs: ["mcp", "agents"],
    });
    const categories = await ok(client, "list_categories", {});
    expect((categories.structuredContent as { items: unknown[] }).items).toEqual([
      expect.objectContaining({ slug: "news", count: 1 }),
    ]);
    const tags = await ok(client, "list_tags", {});
    expect((tags.structuredContent as { items: { slug: string }[] }).items.map((i) => i.slug).sort()).toEqual(
      ["agents", "mcp"],
    );
    const category = await ok(client, "update_category", {
      slug: "news",
      changes: { name: "News & notes", description: "What happened" },
    });
    expect(category.structuredContent).toMatchObject({ slug: "news", name: "News & notes" });
    const tag = await ok(client, "update_tag", { slug: "mcp", changes: { name: "MCP" } });
    expect(tag.structuredContent).toMatchObject({ slug: "mcp", name: "MCP" });
    expect(await refused(client, "update_tag", { slug: "absent", changes: { name: "X" } })).toMatchObject({
      status: 404,
    });
    const renamed = await ok(client, "update_author", {
      slug,
      changes: { display_name: "Ada Lovelace Agent" },
    });
    expect(renamed.structuredContent).toMatchObject({ display_name: "Ada Lovelace Agent" });
    const authors = await ok(client, "list_authors", {});
    const listed = (authors.structuredContent as { items: { display_name: string }[] }).items;
    expect(listed.map((a) => a.display_name)).toContain("Ada Lovelace Agent");
    const deleted = await client.callTool({ name: "delete_post", arguments: { reference: post.id } });
    expect(deleted.isError).toBeFalsy();
    expect((await call("GET", `/v1/posts/${post.id}`, { key: key.key })).status).toBe(404);
    expect(await refused(client, "delete_post", { reference: post.id })).toMatchObject({ status: 404 });
    await client.close();
  });
});
