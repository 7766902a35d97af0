/**
 * The block catalogue through the worker (issue 33, "Blocks"): writes refuse block types outside it (POST
 * 422 UNKNOWN_FIELD, PATCH 400 BAD_REQUEST, the MCP tools the same), keep undeclared data fields with
 * `warnings`, refuse malformed known blocks (400 INVALID_BLOCKS); an import keeps unknown types and reports
 * them; stored unknown types still render (skipped); the standard image form on the platform's own media
 * renders like `media_id`.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { BLOCK_TYPES } from "../../src/content/posts/blocks/catalogue";
import { newId } from "../../src/lib/ids";
import { contentDbOf } from "../support/content-groups";
import {
  BASE,
  call,
  content,
  countRows,
  createKey,
  createPost,
  makeSite,
  ORIGIN,
  tenant,
  testEnv,
} from "../support/content-helpers";

interface Problem {
  status: number;
  code: string;
  detail?: string;
  details?: { path?: string; known_types?: string[] };
}

const HEADING_AND_TEXT = {
  blocks: [
    { type: "header", data: { text: "Fine", level: 2 } },
    { type: "paragraph", data: { text: "Fine too" } },
    { type: "delimiter", data: {} },
    { type: "heading", data: { text: "Title", level: 2 } },
    { type: "text", data: { text: "Body" } },
  ],
};

async function json<T>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

describe("writes refuse block types outside the catalogue", () => {
  it("POST /v1/posts with `heading` and `text` blocks is 422 UNKNOWN_FIELD naming the block and the known types; nothing is stored", async () => {
    const t = await tenant();
    const res = await call("POST", "/v1/posts", {
      key: t.ck,
      body: { title: "Wrong types", blocks_json: HEADING_AND_TEXT },
    });
    expect(res.status).toBe(422);
    const body = await json<Problem>(res);
    expect(body.code).toBe("UNKNOWN_FIELD");
    expect(body.details).toEqual({ path: "blocks_json.blocks.3.type", known_types: BLOCK_TYPES });
    expect(body.detail).toContain('"heading"');
    expect(body.detail).toContain('did you mean "header"');
    expect(await countRows("posts", t.site.id)).toBe(0);
  });

  it("PATCH /v1/posts/{reference} with an unknown type is 400 BAD_REQUEST with the same details; the post is unchanged", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "Patched", blocks_json: { blocks: [] } });
    const res = await call("PATCH", `/v1/posts/${post.id}`, {
      key: t.ck,
      body: {
        blocks_json: {
          blocks: [
            { type: "paragraph", data: { text: "a" } },
            { type: "text", data: {} },
          ],
        },
      },
    });
    expect(res.status).toBe(400);
    const body = await json<Problem>(res);
    expect(body.code).toBe("BAD_REQUEST");
    expect(body.details).toEqual({ path: "blocks_json.blocks.1.type", known_types: BLOCK_TYPES });
    expect(body.detail).toContain('did you mean "paragraph"');
    const source = await json<{ blocks_json: unknown }>(
      await call("GET", `/v1/posts/${post.id}/source`, { key: t.ck }),
    );
    expect(source.blocks_json).toEqual({ blocks: [] });
    // The read-modify-write path (a visibility field sent too) refuses the same way.
    const both = await call("PATCH", `/v1/posts/${post.id}`, {
      key: t.ck,
      body: { status: "published", blocks_json: { blocks: [{ type: "heading", data: {} }] } },
    });
    expect(both.status).toBe(400);
    expect((await json<Problem>(both)).details?.path).toBe("blocks_json.blocks.0.type");
  });

  it("a malformed known block is 400 INVALID_BLOCKS with its path (create and PATCH)", async () => {
    const t = await tenant();
    const bad = {
      blocks: [
        { type: "paragraph", data: { text: "ok" } },
        { type: "header", data: { text: "H", level: 7 } },
      ],
    };
    const created = await call("POST", "/v1/posts", { key: t.ck, body: { title: "Bad", blocks_json: bad } });
    expect(created.status).toBe(400);
    const body = await json<Problem>(created);
    expect(body.code).toBe("INVALID_BLOCKS");
    expect(body.details?.path).toBe("blocks_json.blocks.1.data.level");
    const notADocument = await call("POST", "/v1/posts", {
      key: t.ck,
      body: { title: "Bad", blocks_json: { blocks: [{ type: "paragraph" }] } },
    });
    expect(notADocument.status).toBe(400);
    expect((await json<Problem>(notADocument)).details?.path).toBe("blocks_json.blocks.0.data");
    const post = await createPost(t.ck, { title: "Good" });
    const patched = await call("PATCH", `/v1/posts/${post.id}`, { key: t.ck, body: { blocks_json: bad } });
    expect(patched.status).toBe(400);
    expect((await json<Problem>(patched)).code).toBe("INVALID_BLOCKS");
  });
});

describe("undeclared data fields are kept and reported", () => {
  it("201 lists them in `warnings` and stores the document as sent; the plugins' declared fields warn nothing", async () => {
    const t = await tenant();
    const blocks = {
      time: 1,
      version: "2.30.0",
      blocks: [
        { id: "a", type: "paragraph", data: { text: "Hi", colour: "red" } },
        {
          id: "b",
          type: "image",
          data: {
            file: { url: "https://img.test/a.jpg", size: 1234 },
            caption: "C",
            withBorder: true,
            stretched: false,
            withBackground: false,
          },
          tunes: { anchor: { id: "x" } },
        },
        {
          type: "list",
          data: {
            style: "ordered",
            meta: { start: 3, counterType: "lower-roman" },
            items: [{ content: "one", meta: {}, items: [{ content: "nested", meta: {}, items: [] }] }],
          },
        },
        { type: "table", data: { withHeadings: true, stretched: true, content: [["a"], ["b"]] } },
        {
          type: "embed",
          data: {
            service: "youtube",
            source: "https://youtube.com/watch?v=1",
            embed: "https://youtube.com/embed/1",
            width: 580,
            height: 320,
            caption: "V",
          },
        },
        { type: "quote", data: { text: "Q", caption: "A", alignment: "center" } },
        { type: "ad", data: { slot: "top", anything: [1] } },
      ],
    };
    const res = await call("POST", "/v1/posts", {
      key: t.ck,
      body: { title: "Warned", blocks_json: blocks },
    });
    expect(res.status).toBe(201);
    const body = await json<{ id: string; warnings?: { path: string; message: string }[] }>(res);
    expect(body.warnings).toEqual([
      { path: "blocks_json.blocks.0.data.colour", message: expect.stringContaining('"colour"') },
    ]);
    const source = await json<{ blocks_json: unknown }>(
      await call("GET", `/v1/posts/${body.id}/source`, { key: t.ck }),
    );
    expect(source.blocks_json).toEqual(blocks);

    const clean = await createPost(t.ck, { title: "Clean", blocks_json: { blocks: [blocks.blocks[1]] } });
    expect(clean).not.toHaveProperty("warnings");

    const patched = await call("PATCH", `/v1/posts/${clean.id}`, {
      key: t.ck,
      body: { blocks_json: { blocks: [{ type: "header", data: { text: "H", level: 2, anchor: "h" } }] } },
    });
    expect(patched.status).toBe(200);
    expect((await json<{ warnings?: unknown }>(patched)).warnings).toEqual([
      { path: "blocks_json.blocks.0.data.anchor", message: expect.any(String) },
    ]);
  });
});

describe("import keeps unknown block types", () => {
  it("imports the line, stores the blocks as they are, reports the unknown types; the post renders without them", async () => {
    const t = await tenant();
    const importer = await createKey(t.site, { scopes: ["import", "posts:write"] });
    const line = {
      title: "Old export",
      status: "published",
      blocks_json: {
        blocks: [
          { type: "paragraph", data: { text: "Kept" } },
          { type: "mystery_widget", data: { anything: [1, { deep: true }] } },
          { type: "header", data: { text: "Too deep", level: 9 } },
          { type: "text", data: { text: "other tool" } },
          { type: "mystery_widget", data: {} },
        ],
      },
    };
    const res = await call("POST", "/v1/import", {
      key: importer.key,
      body: `${JSON.stringify(line)}\n`,
      headers: { "content-type": "application/x-ndjson" },
    });
    expect(res.status).toBe(200);
    const report = await json<{
      summary: { created: number };
      lines: {
        status: string;
        id: string;
        unknown_block_types?: string[];
        warnings?: { field: string; code: string }[];
      }[];
    }>(res);
    expect(report.summary.created).toBe(1);
    const [result] = report.lines;
    expect(result!.status).toBe("created");
    expect(result!.unknown_block_types).toEqual(["mystery_widget", "text"]);
    expect(result!.warnings?.map((w) => [w.field, w.code])).toEqual([
      ["blocks_json.blocks.1.type", "UNKNOWN_BLOCK_TYPE"],
      ["blocks_json.blocks.3.type", "UNKNOWN_BLOCK_TYPE"],
      ["blocks_json.blocks.4.type", "UNKNOWN_BLOCK_TYPE"],
      ["blocks_json.blocks.2.data.level", "INVALID_BLOCK"],
    ]);
    const source = await json<{ blocks_json: unknown }>(
      await call("GET", `/v1/posts/${result!.id}/source`, { key: t.ck }),
    );
    expect(source.blocks_json).toEqual(line.blocks_json);
    const detail = await json<{ content_html: string }>(
      await call("GET", `/v1/posts/${result!.id}`, { key: t.pk, origin: ORIGIN }),
    );
    expect(detail.content_html).toBe("<p>Kept</p><h2>Too deep</h2>");
  });
});

/** A ready PNG asset with a WebP and a PNG rendition, written straight to D1. */
async function seedAssetWithVariants(siteId: string): Promise<string> {
  const id = newId();
  await (await contentDbOf(siteId))
    .prepare(
      `INSERT INTO media (id, site_id, r2_key, content_type, size_bytes, status, width, height, variants_json, created_at)
     VALUES (?, ?, ?, 'image/png', 10, 'ready', 1600, 900, ?, ?)`,
    )
    .bind(
      id,
      siteId,
      `sites/${siteId}/${id}.png`,
      JSON.stringify([{ name: "640w-webp" }, { name: "640w-png" }]),
      new Date().toISOString(),
    )
    .run();
  return id;
}

describe("the standard image form on the platform's own media", () => {
  it("file.url of the site's own media renders the same <picture>/srcset as media_id; a foreign URL stays a plain <img>", async () => {
    const t = await tenant();
    const id = await seedAssetWithVariants(t.site.id);
    const base = testEnv.MEDIA_PUBLIC_BASE;
    const publish = async (data: Record<string, unknown>) => {
      const post = await createPost(t.ck, {
        title: `Image ${newId()}`,
        status: "published",
        blocks_json: { blocks: [{ type: "image", data: { caption: "Cap", ...data } }] },
      });
      const res = await call("GET", `/v1/posts/${post.id}`, { key: t.pk, origin: ORIGIN });
      expect(res.status).toBe(200);
      return (await json<{ content_html: string }>(res)).content_html;
    };
    const byId = await publish({ media_id: id });
    expect(byId).toContain("<picture>");
    expect(byId).toContain("srcset=");
    const byOriginal = await publish({ file: { url: `${base}/sites/${t.site.id}/${id}.png` } });
    expect(byOriginal).toBe(byId);
    const byVariant = await publish({ file: { url: `${base}/sites/${t.site.id}/${id}/640.webp` } });
    expect(byVariant).toBe(byId);

    const foreign = await publish({ file: { url: "https://img.test/a.jpg" } });
    expect(foreign).toBe(
      '<figure><img src="https://img.test/a.jpg" alt="Cap"><figcaption>Cap</figcaption></figure>',
    );
    // Another site's path on the same origin is not this site's media (its asset in its own group).
    const another = (await makeSite()).id;
    const other = await seedAssetWithVariants(another);
    const elsewhere = await publish({ file: { url: `${base}/sites/${another}/${other}.png` } });
    expect(elsewhere).not.toContain("srcset");
    expect(elsewhere).toContain(`<img src="${base}/sites/${another}/${other}.png"`);
  });
});

const MCP_URL = `${BASE}/v1/mcp`;

async function agent(key: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
    fetch: (url, init) => content.fetch(new Request(url, init)),
  });
  const client = new Client({ name: "blocks-agent", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

describe("MCP: the catalogue in the tool schemas, the same refusals", () => {
  it("create_post and update_post show the block union; an unknown type is refused as by REST", async () => {
    const t = await tenant();
    const client = await agent(t.ck);
    const tools = new Map((await client.listTools()).tools.map((x) => [x.name, x.inputSchema]));
    for (const [name, arg] of [
      ["create_post", "post"],
      ["update_post", "changes"],
    ] as const) {
      const schema = tools.get(name) as {
        properties: Record<
          string,
          {
            properties: Record<
              string,
              {
                allOf: {
                  properties: {
                    blocks: { items: { oneOf: { properties: { type: { enum: string[] } } }[] } };
                  };
                }[];
              }
            >;
          }
        >;
      };
      const blocks = schema.properties[arg]!.properties.blocks_json!.allOf[0]!.properties.blocks;
      expect(
        blocks.items.oneOf.map((o) => o.properties.type.enum[0]),
        name,
      ).toEqual(BLOCK_TYPES);
    }
    const result = (await client.callTool({
      name: "create_post",
      arguments: { post: { title: "Agent", blocks_json: HEADING_AND_TEXT } },
    })) as CallToolResult & { structuredContent?: Problem };
    expect(result.isError).toBe(true);
    expect(result.structuredContent?.status).toBe(422);
    expect(result.structuredContent?.code).toBe("UNKNOWN_FIELD");
    expect(result.structuredContent?.details?.path).toBe("blocks_json.blocks.3.type");
    expect(await countRows("posts", t.site.id)).toBe(0);
  });
});
