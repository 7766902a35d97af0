/**
 * Bodies in HTML and Markdown (issue 33): `POST /v1/posts` takes one of blocks_json, html or markdown,
 * PATCH at most one, import lines and the MCP tools too; the server converts (parse5 and markdown-it, in
 * the Workers runtime), stores blocks and answers with a `conversion` note.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { MAX_SOURCE_LENGTH } from "../../src/content/posts/convert/body";
import { contentDbOf } from "../support/content-groups";
import {
  BASE,
  call,
  content,
  createKey,
  makeSite,
  ORIGIN,
  problem,
  tenant,
  testEnv,
} from "../support/content-helpers";

interface WriteAnswer {
  id: string;
  slug: string;
  conversion?: { from: string; lost: { what: string; count: number; example?: string }[] };
}

async function source(key: string, id: string): Promise<{ blocks_json: { blocks: unknown[] } }> {
  const res = await call("GET", `/v1/posts/${id}/source`, { key });
  expect(res.status).toBe(200);
  return (await res.json()) as { blocks_json: { blocks: unknown[] } };
}

describe("POST /v1/posts with an html or markdown body", () => {
  it("html is stored as blocks, rendered sanitized, and the answer lists what was lost", async () => {
    const t = await tenant();
    const res = await call("POST", "/v1/posts", {
      key: t.ck,
      body: {
        title: "From HTML",
        status: "published",
        html: '<h2 class="x">Hi</h2><p>Some <strong>bold</strong> text<script>alert(1)</script></p><iframe src="https://www.youtube.com/embed/a1"></iframe>',
      },
    });
    expect(res.status).toBe(201);
    const post = (await res.json()) as WriteAnswer;
    expect(post.conversion).toEqual({
      from: "html",
      lost: [
        {
          what: "attributes (class, style, id and the like; the page's own styling applies)",
          count: 1,
          example: 'class="x"',
        },
        { what: "<script> (removed with its content)", count: 1, example: "alert(1)" },
        {
          what: "<iframe> (kept as a link to its source)",
          count: 1,
          example: "https://www.youtube.com/embed/a1",
        },
      ],
    });
    expect((await source(t.ck, post.id)).blocks_json).toEqual({
      blocks: [
        { type: "header", data: { text: "Hi", level: 2 } },
        { type: "paragraph", data: { text: "Some <strong>bold</strong> text" } },
        {
          type: "paragraph",
          data: { text: '<a href="https://www.youtube.com/embed/a1">https://www.youtube.com/embed/a1</a>' },
        },
      ],
    });
    const read = await call("GET", `/v1/posts/${post.id}`, { key: t.pk, origin: ORIGIN });
    const detail = (await read.json()) as { content_html: string };
    expect(detail.content_html).toBe(
      '<h2>Hi</h2><p>Some <strong>bold</strong> text</p><p><a href="https://www.youtube.com/embed/a1">https://www.youtube.com/embed/a1</a></p>',
    );
  });

  it("markdown with GFM tables and platform media paths; nothing lost gives an empty list", async () => {
    const t = await tenant();
    const res = await call("POST", "/v1/posts", {
      key: t.ck,
      body: {
        title: "From Markdown",
        markdown:
          "# Title\n\n![A diagram](/media/sites/s1/m1/original.png)\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
      },
    });
    expect(res.status).toBe(201);
    const post = (await res.json()) as WriteAnswer;
    expect(post.conversion).toEqual({ from: "markdown", lost: [] });
    const { blocks } = (await source(t.ck, post.id)).blocks_json;
    expect(blocks).toEqual([
      { type: "header", data: { text: "Title", level: 1 } },
      {
        type: "image",
        data: {
          file: { url: `${testEnv.MEDIA_PUBLIC_BASE}/sites/s1/m1/original.png` },
          caption: "A diagram",
          withBorder: false,
          withBackground: false,
          stretched: false,
        },
      },
      {
        type: "table",
        data: {
          withHeadings: true,
          stretched: false,
          content: [
            ["a", "b"],
            ["1", "2"],
          ],
        },
      },
    ]);
  });

  it("a blocks_json body has no conversion member", async () => {
    const t = await tenant();
    const res = await call("POST", "/v1/posts", {
      key: t.ck,
      body: { title: "Blocks", blocks_json: { blocks: [{ type: "paragraph", data: { text: "x" } }] } },
    });
    expect(res.status).toBe(201);
    expect(await res.json()).not.toHaveProperty("conversion");
  });

  it("more than one body field is refused, naming them; nothing is created", async () => {
    const t = await tenant();
    const res = await call("POST", "/v1/posts", {
      key: t.ck,
      body: { title: "Two bodies", blocks_json: { blocks: [] }, markdown: "# x" },
    });
    expect(res.status).toBe(400);
    const body = (await problem(res)) as { code: string; detail?: string; details?: unknown };
    expect(body.code).toBe("BAD_REQUEST");
    expect(body.detail).toContain("blocks_json and markdown");
    expect(body.details).toEqual({ path: "markdown", fields: ["blocks_json", "markdown"] });
    const count = await (await contentDbOf(t.site.id))
      .prepare("SELECT COUNT(*) AS n FROM posts WHERE site_id = ?")
      .bind(t.site.id)
      .first<{ n: number }>();
    expect(count?.n).toBe(0);
  });

  it("the OpenAPI document declares html, markdown and the answer's conversion", async () => {
    const doc = (await (await call("GET", "/openapi.json")).json()) as {
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    };
    expect(doc.components.schemas.CreatePost?.properties).toHaveProperty("html");
    expect(doc.components.schemas.CreatePost?.properties).toHaveProperty("markdown");
    expect(doc.components.schemas.UpdatePost?.properties).toHaveProperty("markdown");
    // PostWriteAnswer extends PostSummary (allOf): its own members are in the second part.
    expect(JSON.stringify(doc.components.schemas.PostWriteAnswer)).toContain(
      '"conversion":{"$ref":"#/components/schemas/Conversion"}',
    );
    expect(doc.components.schemas).toHaveProperty("Conversion");
  });
});

describe("PATCH /v1/posts/{reference} with an html or markdown body", () => {
  it("replaces the body from markdown and answers the conversion; a title-only PATCH stays valid", async () => {
    const t = await tenant();
    const created = (await (
      await call("POST", "/v1/posts", { key: t.ck, body: { title: "Edit me", markdown: "old" } })
    ).json()) as WriteAnswer;
    const res = await call("PATCH", `/v1/posts/${created.id}`, {
      key: t.ck,
      body: { markdown: "new *text*\n\n<video></video>" },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as WriteAnswer).conversion).toEqual({
      from: "markdown",
      lost: [{ what: "<video> without an http(s) source (removed)", count: 1 }],
    });
    expect((await source(t.ck, created.id)).blocks_json).toEqual({
      blocks: [{ type: "paragraph", data: { text: "new <em>text</em>" } }],
    });
    const titleOnly = await call("PATCH", `/v1/posts/${created.id}`, {
      key: t.ck,
      body: { title: "Renamed" },
    });
    expect(titleOnly.status).toBe(200);
    expect(await titleOnly.json()).not.toHaveProperty("conversion");
  });

  it("html and markdown together are refused naming both", async () => {
    const t = await tenant();
    const created = (await (
      await call("POST", "/v1/posts", { key: t.ck, body: { title: "Both" } })
    ).json()) as WriteAnswer;
    const res = await call("PATCH", `/v1/posts/${created.id}`, {
      key: t.ck,
      body: { html: "<p>a</p>", markdown: "a" },
    });
    expect(res.status).toBe(400);
    expect(await problem(res)).toMatchObject({
      code: "BAD_REQUEST",
      details: { fields: ["html", "markdown"] },
    });
  });
});

describe("POST /v1/import with html and markdown lines", () => {
  it("converts each line's body and reports its conversion on the line", async () => {
    const site = await makeSite();
    const key = await createKey(site, { scopes: ["import", "posts:write", "posts:read"] });
    const lines = [
      { title: "Imported HTML", html: "<p>one<style>p{}</style></p>" },
      { title: "Imported Markdown", markdown: "- [x] two" },
      { title: "Both", html: "<p>x</p>", markdown: "x" },
    ];
    const res = await content.fetch(
      new Request(`${BASE}/v1/import`, {
        method: "POST",
        headers: { authorization: `Bearer ${key.key}`, "content-type": "application/x-ndjson" },
        body: `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`,
      }),
    );
    expect(res.status).toBe(200);
    const result = (await res.json()) as {
      lines: { status: string; id?: string; conversion?: unknown; error?: { code: string } }[];
    };
    expect(result.lines[0]).toMatchObject({
      status: "created",
      conversion: { from: "html", lost: [{ what: "<style> (removed with its content)", count: 1 }] },
    });
    expect(result.lines[1]).toMatchObject({ status: "created", conversion: { from: "markdown", lost: [] } });
    expect(result.lines[2]).toMatchObject({ status: "failed", error: { code: "BAD_REQUEST" } });
    const stored = await source(key.key, result.lines[1]!.id!);
    expect(stored.blocks_json.blocks).toEqual([
      {
        type: "list",
        data: {
          style: "checklist",
          meta: {},
          items: [{ content: "two", meta: { checked: true }, items: [] }],
        },
      },
    ]);
  });
});

describe("MCP create_post with markdown", () => {
  it("an agent writes Markdown and reads the conversion note in the tool's result", async () => {
    const t = await tenant();
    const transport = new StreamableHTTPClientTransport(new URL(`${BASE}/v1/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${t.ck}` } },
      fetch: (url, init) => content.fetch(new Request(url, init)),
    });
    const client = new Client({ name: "test-agent", version: "1.0.0" });
    await client.connect(transport);
    const { tools } = await client.listTools();
    const createPost = tools.find((tool) => tool.name === "create_post");
    const properties = createPost?.inputSchema.properties as Record<string, { properties?: object }>;
    const postSchema = properties.post;
    expect(postSchema?.properties).toHaveProperty("markdown");
    const result = (await client.callTool({
      name: "create_post",
      arguments: { post: { title: "By an agent", markdown: "## Hello\n\n**Markdown** from an agent" } },
    })) as CallToolResult & { structuredContent?: WriteAnswer };
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(result.structuredContent?.conversion).toEqual({ from: "markdown", lost: [] });
    const { blocks } = (await source(t.ck, result.structuredContent!.id)).blocks_json;
    expect(blocks).toEqual([
      { type: "header", data: { text: "Hello", level: 2 } },
      { type: "paragraph", data: { text: "<strong>Markdown</strong> from an agent" } },
    ]);
    await client.close();
  });
});

describe("the size bound of an html or markdown body", () => {
  it("takes a body of exactly 512 KiB and refuses one character more, naming the field", async () => {
    const t = await tenant();
    // One long paragraph: its blocks stay under the stored document's 1 MiB.
    const text = "lorem ipsum ".repeat(MAX_SOURCE_LENGTH).slice(0, MAX_SOURCE_LENGTH - 7);
    const exact = `<p>${text}</p>`;
    expect(exact.length).toBe(MAX_SOURCE_LENGTH);
    const ok = await call("POST", "/v1/posts", { key: t.ck, body: { title: "At the bound", html: exact } });
    expect(ok.status).toBe(201);
    const over = await call("POST", "/v1/posts", {
      key: t.ck,
      body: { title: "Over the bound", markdown: `${exact}x` },
    });
    expect(over.status).toBe(400);
    const body = (await over.json()) as { code: string; details?: { path?: string } };
    expect(body.code).toBe("BAD_REQUEST");
    expect(body.details?.path).toBe("markdown");
  }, 60_000);
});
