/** The HTML and Markdown converters' rules one by one: mapping, losses, hostile input. */
import { describe, expect, it } from "vitest";
import { htmlToBlocks } from "../../src/content/posts/convert/html";
import { markdownToBlocks } from "../../src/content/posts/convert/markdown";
import { platformImageUrl } from "../../src/content/posts/convert/platform";

const lostKinds = (html: string) => htmlToBlocks(html).conversion.lost.map((l) => l.what);

describe("htmlToBlocks", () => {
  it("keeps text outside any block as paragraphs, split by the blocks between", () => {
    const { blocks } = htmlToBlocks("intro <b>bold</b><h2>Title</h2>outro");
    expect(blocks).toEqual([
      { type: "paragraph", data: { text: "intro <b>bold</b>" } },
      { type: "header", data: { text: "Title", level: 2 } },
      { type: "paragraph", data: { text: "outro" } },
    ]);
  });

  it("an image inside formatting ends the paragraph and reopens the formatting after it", () => {
    const { blocks, conversion } = htmlToBlocks('<p><em>a <img src="https://x.test/i.png"> b</em></p>');
    expect(blocks.map((b) => [b.type, b.data.text])).toEqual([
      ["paragraph", "<em>a</em>"],
      ["image", undefined],
      ["paragraph", "<em>b</em>"],
    ]);
    expect(conversion.lost[0]?.what).toMatch(/around a block/);
  });

  it("an ordered list keeps its start and counter type; nested items are v2 items", () => {
    const { blocks } = htmlToBlocks('<ol start="3" type="a"><li><p>one</p><ul><li>sub</li></ul></li></ol>');
    expect(blocks[0]).toEqual({
      type: "list",
      data: {
        style: "ordered",
        meta: { start: 3, counterType: "lower-alpha" },
        items: [{ content: "one", meta: {}, items: [{ content: "sub", meta: {}, items: [] }] }],
      },
    });
  });

  it("links to unsafe URLs keep their text only, and say so", () => {
    const { blocks, conversion } = htmlToBlocks('<p><a href="javascript:alert(1)">click</a></p>');
    expect(blocks).toEqual([{ type: "paragraph", data: { text: "click" } }]);
    expect(conversion.lost).toEqual([
      {
        what: "link to an unsafe or unsupported URL (its text kept)",
        count: 1,
        example: "javascript:alert(1)",
      },
    ]);
  });

  it("scripts, styles and forms are removed with their content; unknown elements keep their text", () => {
    const { blocks } = htmlToBlocks(
      "<style>p{}</style><p>a<script>x()</script> <abbr>b</abbr> <my-widget>c</my-widget></p><form><input></form>",
    );
    expect(blocks).toEqual([{ type: "paragraph", data: { text: "a b c" } }]);
    expect(lostKinds("<style>p{}</style><abbr>b</abbr><my-widget>c</my-widget>")).toEqual([
      "<style> (removed with its content)",
      "<abbr> (element dropped, its text kept)",
      "<my-widget> (element dropped, its text kept)",
    ]);
  });

  it("a video becomes a paragraph with a link to its source; one without a source is removed", () => {
    const { blocks } = htmlToBlocks(
      '<video controls><source src="https://cdn.test/v.mp4">old browser</video><video></video>',
    );
    expect(blocks).toEqual([
      { type: "paragraph", data: { text: '<a href="https://cdn.test/v.mp4">https://cdn.test/v.mp4</a>' } },
    ]);
    expect(lostKinds("<video></video>")).toEqual(["<video> without an http(s) source (removed)"]);
  });

  it("an image without an absolute URL is removed unless it is platform media", () => {
    expect(lostKinds('<img src="pics/a.png">')).toEqual([
      "image without an absolute http(s) or platform media URL (removed)",
    ]);
    const { blocks } = htmlToBlocks('<img src="/media/sites/s/a.png">', {
      imageUrl: platformImageUrl("https://media.test/"),
    });
    expect(blocks[0]?.data.file).toEqual({ url: "https://media.test/sites/s/a.png" });
  });

  it("a table caption is a paragraph before the table; headings come from thead", () => {
    const { blocks } = htmlToBlocks(
      "<table><caption>Prices</caption><thead><tr><th>a</th></tr></thead><tr><td>1</td></tr></table>",
    );
    expect(blocks).toEqual([
      { type: "paragraph", data: { text: "Prices" } },
      { type: "table", data: { withHeadings: true, stretched: false, content: [["a"], ["1"]] } },
    ]);
  });

  it("a whole document gives its body", () => {
    const { blocks, conversion } = htmlToBlocks(
      "<!doctype html><html><head><title>T</title></head><body><p>hi</p></body></html>",
    );
    expect(blocks).toEqual([{ type: "paragraph", data: { text: "hi" } }]);
    expect(conversion.lost).toEqual([]);
  });

  it("markup nested thousands of levels deep keeps its text without overflowing the stack", () => {
    const depth = 20_000;
    const { blocks, conversion } = htmlToBlocks(`${"<div>".repeat(depth)}deep${"</div>".repeat(depth)}`);
    expect(blocks).toEqual([{ type: "paragraph", data: { text: "deep" } }]);
    expect(conversion.lost[0]?.what).toMatch(/nested deeper/);
  });
});

describe("markdownToBlocks", () => {
  it("GFM task lists become checklists", () => {
    const { blocks } = markdownToBlocks("- [ ] todo\n- [x] done\n");
    expect(blocks[0]?.data).toEqual({
      style: "checklist",
      meta: {},
      items: [
        { content: "todo", meta: { checked: false }, items: [] },
        { content: "done", meta: { checked: true }, items: [] },
      ],
    });
  });

  it("raw HTML in Markdown goes through the same walk", () => {
    const { blocks, conversion } = markdownToBlocks("Hello <script>x()</script>*you*\n");
    expect(blocks).toEqual([{ type: "paragraph", data: { text: "Hello <em>you</em>" } }]);
    expect(conversion.lost.map((l) => l.what)).toEqual(["<script> (removed with its content)"]);
  });
});

describe("list depth", () => {
  it("lists nested deeper than the catalogue's 10 levels keep the deeper items as text", () => {
    const html = `${"<ul><li>x".repeat(12)}${"</li></ul>".repeat(12)}`;
    const { blocks, conversion } = htmlToBlocks(html);
    let levels = 0;
    let items = blocks[0]?.data.items as { content: string; items: unknown[] }[];
    let last = "";
    while (items.length > 0) {
      levels++;
      last = items[0]!.content;
      items = items[0]!.items as typeof items;
    }
    expect(levels).toBe(10);
    expect(last).toBe("x<br>x<br>x");
    expect(conversion.lost.map((l) => l.what)).toEqual(["<ul> inside a list item (flattened to text)"]);
  });
});
