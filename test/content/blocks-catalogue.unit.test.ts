/**
 * The block catalogue and the checks of a write (src/content/posts/blocks/): every type accepted in its
 * standard form, each limit at, below and above its bound, unknown types refused by writes and kept by an
 * import, undeclared fields kept with a warning (the plugins' declared and free-form fields without).
 */
import { describe, expect, it } from "vitest";
import {
  BLOCK_SCHEMAS,
  BLOCK_TYPES,
  BlocksDocumentSchema,
  MAX_BLOCK_ID,
  MAX_BLOCK_TEXT,
  MAX_LIST_LEVELS,
} from "../../src/content/posts/blocks/catalogue";
import { inspectBlocks } from "../../src/content/posts/blocks/check";
import { checkBlocks } from "../../src/content/posts/blocks/write";
import { platformMediaId } from "../../src/content/posts/render/media-url";
import { ApiError } from "../../src/lib/problem";

/** One valid block of each type, in its Editor.js standard form with the official plugins' fields. */
const STANDARD: Record<string, { type: string; data: Record<string, unknown> }> = {
  paragraph: { type: "paragraph", data: { text: "Hello <b>world</b>" } },
  header: { type: "header", data: { text: "Title", level: 2 } },
  list: {
    type: "list",
    data: {
      style: "ordered",
      meta: { start: 2, counterType: "upper-roman" },
      items: [{ content: "a", meta: {}, items: [{ content: "b", meta: {}, items: [] }] }],
    },
  },
  quote: { type: "quote", data: { text: "Q", caption: "A", alignment: "left" } },
  code: { type: "code", data: { code: "<x>" } },
  delimiter: { type: "delimiter", data: {} },
  image: {
    type: "image",
    data: {
      file: { url: "https://img.test/a.jpg" },
      caption: "C",
      withBorder: false,
      stretched: true,
      withBackground: false,
    },
  },
  embed: {
    type: "embed",
    data: {
      service: "youtube",
      source: "https://youtube.com/watch?v=x",
      embed: "https://youtube.com/embed/x",
      width: 580,
      height: 320,
      caption: "",
    },
  },
  table: {
    type: "table",
    data: {
      withHeadings: true,
      stretched: false,
      content: [
        ["a", "b"],
        ["1", 2],
      ],
    },
  },
  ad: { type: "ad", data: { slot: "top" } },
  product_card: { type: "product_card", data: { sku: "1" } },
  story_page: { type: "story_page", data: {} },
  related_articles: { type: "related_articles", data: { ids: ["x"] } },
};

function doc(...blocks: unknown[]) {
  return { blocks };
}

/** The refusal `run` throws (an ApiError), or fails the test. */
function refusal(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

function nestedList(levels: number): unknown {
  let items: unknown[] = [];
  for (let i = levels; i >= 1; i--) items = [{ content: `level ${i}`, meta: {}, items }];
  return { type: "list", data: { style: "unordered", items } };
}

describe("the catalogue", () => {
  it("knows the renderer's standard blocks and the platform blocks, in one union on type", () => {
    expect(BLOCK_TYPES).toEqual(Object.keys(STANDARD));
    const all = doc(...Object.values(STANDARD));
    expect(BlocksDocumentSchema.safeParse(all).success).toBe(true);
    expect(BlocksDocumentSchema.safeParse(doc({ type: "heading", data: {} })).success).toBe(false);
  });

  it.each(Object.keys(STANDARD))("%s: the standard form is accepted without warnings", (type) => {
    const inspection = inspectBlocks(doc({ id: "b1", ...STANDARD[type], tunes: { anchor: "x" } }));
    expect(inspection).toEqual({ shape: null, unknownTypes: [], invalid: [], warnings: [] });
    expect(BLOCK_SCHEMAS[type as keyof typeof BLOCK_SCHEMAS].safeParse(STANDARD[type]).success).toBe(true);
  });

  it("accepts the list v1 form (strings) and the older checklist items ({text, checked in meta})", () => {
    const v1 = { type: "list", data: { style: "unordered", items: ["a", "b <i>c</i>"] } };
    const checklist = {
      type: "list",
      data: { style: "checklist", items: [{ text: "done", meta: { checked: true } }, { content: "todo" }] },
    };
    expect(inspectBlocks(doc(v1, checklist))).toEqual({
      shape: null,
      unknownTypes: [],
      invalid: [],
      warnings: [],
    });
  });

  it("image: file.url, url or media_id, one of them required; file's own fields are free-form", () => {
    const image = (data: Record<string, unknown>) => inspectBlocks(doc({ type: "image", data }));
    expect(image({ media_id: "01HZZZZZZZZZZZZZZZZZZZZZZZ" }).invalid).toEqual([]);
    expect(image({ url: "https://img.test/a.jpg" }).invalid).toEqual([]);
    expect(image({ file: { url: "https://img.test/a.jpg", size: 10, name: "a.jpg" } })).toEqual({
      shape: null,
      unknownTypes: [],
      invalid: [],
      warnings: [],
    });
    expect(image({ caption: "no source" }).invalid).toEqual([
      { path: "blocks_json.blocks.0.data", message: "an image needs file.url, url or media_id" },
    ]);
  });
});

describe("limits, at, below and above", () => {
  const invalidPaths = (block: unknown) => inspectBlocks(doc(block)).invalid.map((i) => i.path);

  it("header level 1..6", () => {
    for (const level of [1, 6])
      expect(invalidPaths({ type: "header", data: { text: "h", level } })).toEqual([]);
    for (const level of [0, 7, 2.5])
      expect(invalidPaths({ type: "header", data: { text: "h", level } })).toEqual([
        "blocks_json.blocks.0.data.level",
      ]);
  });

  it(`text at most ${MAX_BLOCK_TEXT} characters`, () => {
    const paragraph = (n: number) => ({ type: "paragraph", data: { text: "x".repeat(n) } });
    expect(invalidPaths(paragraph(MAX_BLOCK_TEXT - 1))).toEqual([]);
    expect(invalidPaths(paragraph(MAX_BLOCK_TEXT))).toEqual([]);
    expect(invalidPaths(paragraph(MAX_BLOCK_TEXT + 1))).toEqual(["blocks_json.blocks.0.data.text"]);
  });

  it(`block id at most ${MAX_BLOCK_ID} characters`, () => {
    const block = (n: number) => ({ id: "i".repeat(n), type: "delimiter", data: {} });
    expect(invalidPaths(block(MAX_BLOCK_ID))).toEqual([]);
    expect(invalidPaths(block(MAX_BLOCK_ID + 1))).toEqual(["blocks_json.blocks.0.id"]);
  });

  it(`lists nest at most ${MAX_LIST_LEVELS} levels`, () => {
    expect(invalidPaths(nestedList(MAX_LIST_LEVELS - 1))).toEqual([]);
    expect(invalidPaths(nestedList(MAX_LIST_LEVELS))).toEqual([]);
    expect(invalidPaths(nestedList(MAX_LIST_LEVELS + 1))).toHaveLength(1);
  });

  it("dimensions are positive (an image's may be digit strings), counterType one of five", () => {
    const image = (width: unknown) => ({
      type: "image",
      data: { url: "https://a.test/x.png", width, height: 1 },
    });
    expect(invalidPaths(image(1))).toEqual([]);
    expect(invalidPaths(image("640"))).toEqual([]);
    expect(invalidPaths(image(0))).toEqual(["blocks_json.blocks.0.data.width"]);
    expect(invalidPaths(image("64px"))).toEqual(["blocks_json.blocks.0.data.width"]);
    const list = (counterType: string) => ({
      type: "list",
      data: { style: "ordered", meta: { counterType }, items: [] },
    });
    expect(invalidPaths(list("lower-alpha"))).toEqual([]);
    expect(invalidPaths(list("greek"))).toEqual(["blocks_json.blocks.0.data.meta.counterType"]);
  });
});

describe("what a write does", () => {
  const wrong = doc(STANDARD.paragraph, { type: "heading", data: { text: "T" } }, { type: "text", data: {} });

  it("create: an unknown type is 422 UNKNOWN_FIELD with its path and the known types", () => {
    const error = refusal(() => checkBlocks(wrong, "create"));
    expect([error.status, error.code]).toEqual([422, "UNKNOWN_FIELD"]);
    expect(error.details).toEqual({ path: "blocks_json.blocks.1.type", known_types: BLOCK_TYPES });
    expect(error.detail).toContain('did you mean "header"');
  });

  it("update: the same refusal as 400 BAD_REQUEST", () => {
    const error = refusal(() => checkBlocks(wrong, "update"));
    expect([error.status, error.code]).toEqual([400, "BAD_REQUEST"]);
    expect(error.details).toEqual({ path: "blocks_json.blocks.1.type", known_types: BLOCK_TYPES });
  });

  it("the first offending block decides: a malformed known block before an unknown type is INVALID_BLOCKS", () => {
    const error = refusal(() =>
      checkBlocks(
        doc({ type: "header", data: { text: "h", level: 9 } }, { type: "text", data: {} }),
        "create",
      ),
    );
    expect([error.status, error.code, error.details]).toEqual([
      400,
      "INVALID_BLOCKS",
      { path: "blocks_json.blocks.0.data.level" },
    ]);
  });

  it("not a document is INVALID_BLOCKS with the place, whatever the write", () => {
    for (const write of ["create", "update", "import"] as const) {
      for (const [value, path] of [
        [[], "blocks_json"],
        [{ blocks: {} }, "blocks_json.blocks"],
        [{ blocks: [{ type: "", data: {} }] }, "blocks_json.blocks.0.type"],
        [{ blocks: [{ type: "paragraph", data: [] }] }, "blocks_json.blocks.0.data"],
      ] as const) {
        const error = refusal(() => checkBlocks(value, write));
        expect([error.code, error.details], `${write} ${path}`).toEqual(["INVALID_BLOCKS", { path }]);
      }
    }
  });

  it("import: unknown types and malformed known blocks are kept and reported; the text is the document as sent", () => {
    const sent = doc(
      { type: "heading", data: {} },
      { type: "header", data: { text: "h", level: 9 } },
      { type: "paragraph", data: { text: "p", colour: "red" } },
    );
    const checked = checkBlocks(sent, "import");
    expect(checked.text).toBe(JSON.stringify(sent));
    expect(checked.unknownTypes).toEqual([{ path: "blocks_json.blocks.0.type", type: "heading" }]);
    expect(checked.invalid.map((i) => i.path)).toEqual(["blocks_json.blocks.1.data.level"]);
    expect(checked.warnings.map((w) => w.path)).toEqual(["blocks_json.blocks.2.data.colour"]);
  });

  it("undeclared fields anywhere in a known block (and the document) are warnings, in nested objects too", () => {
    const checked = checkBlocks(
      {
        blocks: [
          { type: "paragraph", data: { text: "p" }, extra: 1 },
          {
            type: "list",
            data: {
              style: "ordered",
              meta: { start: 1, reversed: true },
              items: [{ content: "a", colour: "b" }],
            },
          },
        ],
        editor: "x",
      },
      "create",
    );
    expect(checked.warnings.map((w) => w.path)).toEqual([
      "blocks_json.editor",
      "blocks_json.blocks.0.extra",
      "blocks_json.blocks.1.data.meta.reversed",
      "blocks_json.blocks.1.data.items.0.colour",
    ]);
  });

  it("absent or null: nothing to store, nothing to tell", () => {
    expect(checkBlocks(undefined, "create")).toEqual({
      text: null,
      warnings: [],
      unknownTypes: [],
      invalid: [],
    });
    expect(checkBlocks(null, "update").text).toBeNull();
  });
});

describe("the platform's own media URLs (render/media-url.ts)", () => {
  const base = "https://media.example.test";
  const id = "01HZZZZZZZZZZZZZZZZZZZZZZZ";

  it("the original and a variant of the site's asset name its id", () => {
    expect(platformMediaId(base, "site1", `${base}/sites/site1/${id}.png`)).toBe(id);
    expect(platformMediaId(`${base}/`, "site1", `${base}/sites/site1/${id}/640.webp`)).toBe(id);
  });

  it("another origin, another site, a query, or a path that is no media key is foreign", () => {
    for (const url of [
      `https://elsewhere.test/sites/site1/${id}.png`,
      `${base}/sites/site2/${id}.png`,
      `${base}/sites/site1/${id}.png?x=1`,
      `${base}/sites/site1/${id}`,
      `${base}/sites/site1/not-an-id-at-all-not-an-id.png`,
      `${base}/sites/site1/${id}/640/x.png`,
    ])
      expect(platformMediaId(base, "site1", url), url).toBeNull();
  });
});
