import { describe, expect, it } from "vitest";
import { decodeEntities } from "../../src/content/posts/render/html-entities";
import {
  escapeHtml as escapeHtmlInline,
  inlineText,
  safeLinkHref,
  sanitizeInlineHtml,
  tokenizeHtml,
} from "../../src/content/posts/render/inline-html";
import {
  escapeHtml,
  parseBlocksDocument,
  type RenderOptions,
  renderBlocks,
  safeHttpUrl,
} from "../../src/content/posts/render/render-blocks";
import { findUnsafeHtml } from "../support/html-safety";

function render(blocks: unknown[], options?: RenderOptions): string {
  return renderBlocks({ time: 1, version: "2.30.0", blocks }, options);
}

const block = (type: string, data: Record<string, unknown>) => ({ id: "b1", type, data });

describe("escapeHtml", () => {
  it("escapes the five markup characters and nothing else", () => {
    expect(escapeHtml(`<a href="x" title='y'>&amp; é</a>`)).toBe(
      "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp; é&lt;/a&gt;",
    );
  });

  it("is the same function the inline sanitizer uses", () => {
    expect(escapeHtml).toBe(escapeHtmlInline);
  });
});

describe("parseBlocksDocument: shape {blocks:[{id?, type, data}]}", () => {
  it("accepts an Editor.js document and keeps id, type and data", () => {
    const doc = { time: 1, blocks: [block("paragraph", { text: "a" }), { type: "delimiter", data: {} }] };
    expect(parseBlocksDocument(doc)).toEqual({
      ok: true,
      blocks: [
        { id: "b1", type: "paragraph", data: { text: "a" } },
        { type: "delimiter", data: {} },
      ],
    });
  });

  it("accepts the same document as a JSON string (as stored)", () => {
    expect(parseBlocksDocument(JSON.stringify({ blocks: [block("code", { code: "x" })] }))).toEqual({
      ok: true,
      blocks: [{ id: "b1", type: "code", data: { code: "x" } }],
    });
  });

  it("accepts an empty document and unknown block types", () => {
    expect(parseBlocksDocument({ blocks: [] })).toEqual({ ok: true, blocks: [] });
    expect(parseBlocksDocument({ blocks: [block("someday-block", {})] }).ok).toBe(true);
  });

  it.each([
    ["null", null],
    ["undefined", undefined],
    ["a number", 42],
    ["a non-JSON string", "<p>html</p>"],
    ["a JSON string of an array", "[]"],
    ["an array", [block("paragraph", { text: "a" })]],
    ["no blocks", { time: 1 }],
    ["blocks not an array", { blocks: { 0: block("paragraph", { text: "a" }) } }],
    ["a null block", { blocks: [null] }],
    ["a string block", { blocks: ["paragraph"] }],
    ["a block without type", { blocks: [{ data: {} }] }],
    ["an empty type", { blocks: [{ type: "", data: {} }] }],
    ["a numeric type", { blocks: [{ type: 1, data: {} }] }],
    ["a block without data", { blocks: [{ type: "delimiter" }] }],
    ["data as an array", { blocks: [{ type: "list", data: ["a"] }] }],
    ["data as a string", { blocks: [{ type: "paragraph", data: "text" }] }],
    ["a numeric id", { blocks: [{ id: 7, type: "paragraph", data: { text: "a" } }] }],
    ["one bad block among good ones", { blocks: [block("paragraph", { text: "a" }), { type: "x" }] }],
  ])("rejects %s", (_name, doc) => {
    expect(parseBlocksDocument(doc)).toEqual({ ok: false });
  });
});

describe("renderBlocks: malformed documents render as an empty string, never throw", () => {
  it.each([
    ["null", null],
    ["undefined", undefined],
    ["a number", 42],
    ["raw HTML instead of a document", "<p>hi</p><script>alert(1)</script>"],
    ["an array", []],
    ["blocks not an array", { blocks: "x" }],
    ["a block without data", { blocks: [{ type: "paragraph" }] }],
  ])("%s", (_name, doc) => {
    expect(renderBlocks(doc)).toBe("");
  });

  it("a document whose property access throws", () => {
    const hostile = {
      get blocks(): unknown {
        throw new Error("boom");
      },
    };
    expect(() => renderBlocks(hostile)).not.toThrow();
    expect(renderBlocks(hostile)).toBe("");
  });

  it("a block that throws is skipped, the others still render", () => {
    const data = {
      get text(): unknown {
        throw new Error("boom");
      },
    };
    expect(
      render([block("paragraph", { text: "one" }), { type: "paragraph", data }, block("delimiter", {})]),
    ).toBe("<p>one</p><hr>");
  });

  it("a throwing media resolver falls back to the file URL", () => {
    const mediaUrl = () => {
      throw new Error("boom");
    };
    const html = render([block("image", { media_id: "m1", file: { url: "https://img.test/a.png" } })], {
      mediaUrl,
    });
    expect(html).toContain('src="https://img.test/a.png"');
  });

  it("renders a document given as a JSON string", () => {
    expect(renderBlocks(JSON.stringify({ blocks: [block("paragraph", { text: "<b>x</b>" })] }))).toBe(
      "<p><b>x</b></p>",
    );
  });
});

describe("paragraph", () => {
  it("renders sanitized inline HTML in <p>", () => {
    expect(
      render([block("paragraph", { text: 'Hello <b>bold</b> <a href="https://x.test/">link</a>' })]),
    ).toBe('<p>Hello <b>bold</b> <a href="https://x.test/">link</a></p>');
  });

  it("keeps an empty paragraph and skips one without text", () => {
    expect(
      render([block("paragraph", { text: "" }), block("paragraph", { text: 5 }), block("paragraph", {})]),
    ).toBe("<p></p>");
  });
});

describe("header", () => {
  it.each([1, 2, 3, 4, 5, 6])("level %i renders <h%i>", (level) => {
    expect(render([block("header", { text: "T", level })])).toBe(`<h${level}>T</h${level}>`);
  });

  it.each([
    ["0", 0],
    ["7", 7],
    ["2.5", 2.5],
    ["a string", "3"],
    ["missing", undefined],
    ["negative", -1],
  ])("level %s falls back to h2", (_name, level) => {
    expect(render([block("header", { text: "T", level })])).toBe("<h2>T</h2>");
  });

  it("sanitizes the text and skips a header without text", () => {
    expect(
      render([block("header", { text: "<h1>x</h1><i onclick=y>i</i>", level: 1 }), block("header", {})]),
    ).toBe("<h1>x<i>i</i></h1>");
  });
});

describe("list", () => {
  it("unordered list of strings (Editor.js v1)", () => {
    expect(render([block("list", { style: "unordered", items: ["a", "<b>b</b>"] })])).toBe(
      "<ul><li>a</li><li><b>b</b></li></ul>",
    );
  });

  it("ordered list v2 with items as objects and meta.start / counterType", () => {
    const data = {
      style: "ordered",
      meta: { start: 3, counterType: "lower-roman" },
      items: [
        { content: "one", meta: {}, items: [] },
        { content: "two", meta: {}, items: [{ content: "two.a", meta: {}, items: [] }] },
      ],
    };
    expect(render([block("list", data)])).toBe(
      '<ol start="3" type="i"><li>one</li><li>two<ol><li>two.a</li></ol></li></ol>',
    );
  });

  it("ordered list starting at 1 with numeric counters has no attributes", () => {
    const data = { style: "ordered", meta: { start: 1, counterType: "numeric" }, items: ["a"] };
    expect(render([block("list", data)])).toBe("<ol><li>a</li></ol>");
  });

  it("ignores unknown counter types and non-integer starts", () => {
    const data = { style: "ordered", meta: { start: "5", counterType: 'evil" onclick="x' }, items: ["a"] };
    expect(render([block("list", data)])).toBe("<ol><li>a</li></ol>");
  });

  it("nested-list format {content, items} without meta", () => {
    const data = { style: "unordered", items: [{ content: "a", items: [{ content: "b", items: [] }] }] };
    expect(render([block("list", data)])).toBe("<ul><li>a<ul><li>b</li></ul></li></ul>");
  });

  it("checklist renders as a list with the checked state as a mark, no form controls", () => {
    const data = {
      style: "checklist",
      items: [
        { content: "done", meta: { checked: true }, items: [] },
        { content: "todo", meta: { checked: false }, items: [] },
      ],
    };
    expect(render([block("list", data)])).toBe("<ul><li>\u2611 done</li><li>\u2610 todo</li></ul>");
  });

  it("an unknown style is unordered", () => {
    expect(render([block("list", { style: "fancy", items: ["a"] })])).toBe("<ul><li>a</li></ul>");
  });

  it("skips items that are neither strings nor objects, and empty lists", () => {
    expect(render([block("list", { style: "unordered", items: [1, null, ["x"], "ok"] })])).toBe(
      "<ul><li>ok</li></ul>",
    );
    expect(render([block("list", { style: "unordered", items: [] }), block("list", { items: "a" })])).toBe(
      "",
    );
  });

  it("cuts off hostile nesting depth", () => {
    let item: Record<string, unknown> = { content: "leaf", items: [] };
    for (let i = 0; i < 5000; i++) item = { content: `l${i}`, items: [item] };
    const html = render([block("list", { style: "unordered", items: [item] })]);
    expect(html.match(/<ul>/g)?.length).toBe(10);
    expect(findUnsafeHtml(html)).toEqual([]);
  });
});

describe("quote", () => {
  it("text and caption", () => {
    expect(
      render([block("quote", { text: "To <i>be</i>", caption: "<b>W.</b> S.", alignment: "left" })]),
    ).toBe("<blockquote><p>To <i>be</i></p><cite><b>W.</b> S.</cite></blockquote>");
  });

  it("without caption, and skipped without text", () => {
    expect(render([block("quote", { text: "q" }), block("quote", { caption: "c" })])).toBe(
      "<blockquote><p>q</p></blockquote>",
    );
  });
});

describe("code", () => {
  it("renders escaped in <pre><code>, never as markup", () => {
    expect(render([block("code", { code: "<script>alert('x')</script>\n  a && b" })])).toBe(
      "<pre><code>&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;\n  a &amp;&amp; b</code></pre>",
    );
  });

  it("is skipped without a code string", () => {
    expect(render([block("code", { code: 1 })])).toBe("");
  });
});

describe("delimiter", () => {
  it("renders <hr>", () => {
    expect(render([block("delimiter", {})])).toBe("<hr>");
  });
});

describe("table", () => {
  it("withHeadings puts the first row in <thead> as <th>", () => {
    const data = {
      withHeadings: true,
      content: [
        ["Name", "<b>Age</b>"],
        ["Ann", "30"],
      ],
    };
    expect(render([block("table", data)])).toBe(
      "<table><thead><tr><th>Name</th><th><b>Age</b></th></tr></thead><tbody><tr><td>Ann</td><td>30</td></tr></tbody></table>",
    );
  });

  it("without headings every row is a body row; numbers are text, other cells empty", () => {
    const data = {
      content: [
        ["a", 1],
        [null, "<script>x</script>b"],
      ],
    };
    expect(render([block("table", data)])).toBe(
      "<table><tbody><tr><td>a</td><td>1</td></tr><tr><td></td><td>b</td></tr></tbody></table>",
    );
  });

  it("only a heading row", () => {
    expect(render([block("table", { withHeadings: true, content: [["h"]] })])).toBe(
      "<table><thead><tr><th>h</th></tr></thead></table>",
    );
  });

  it("skips rows that are not arrays and tables without rows", () => {
    expect(render([block("table", { content: ["x", ["a"]] })])).toBe(
      "<table><tbody><tr><td>a</td></tr></tbody></table>",
    );
    expect(render([block("table", { content: [] }), block("table", { content: "x" })])).toBe("");
  });
});

describe("image", () => {
  const url = "https://img.test/a.png";

  it("file.url with caption: figure, img with alt from the caption text, figcaption (the first image eager)", () => {
    const data = { file: { url }, caption: 'A <b>"cat"</b> &amp; dog', withBorder: false };
    expect(render([block("image", data)])).toBe(
      `<figure><img src="${url}" alt="A &quot;cat&quot; &amp; dog">` +
        "<figcaption>A <b>&quot;cat&quot;</b> &amp; dog</figcaption></figure>",
    );
  });

  it("url (simple image) when there is no file, empty alt without caption", () => {
    expect(render([block("image", { url })])).toBe(`<figure><img src="${url}" alt=""></figure>`);
  });

  it.each([
    ["javascript:", "javascript:alert(1)"],
    ["data:", "data:image/svg+xml;base64,PHN2Zz4="],
    ["relative", "/a.png"],
    ["protocol-relative", "//img.test/a.png"],
    ["ftp:", "ftp://img.test/a.png"],
    ["not a string", 42],
    ["unparseable", "https://"],
  ])("a %s URL skips the block", (_name, bad) => {
    expect(render([block("image", { file: { url: bad }, caption: "c" })])).toBe("");
    expect(render([block("image", { url: bad })])).toBe("");
  });

  it("no URL at all skips the block", () => {
    expect(render([block("image", { caption: "c" })])).toBe("");
  });

  it("the src is escaped and normalized by the URL parser", () => {
    const html = render([block("image", { url: 'https://img.test/a b.png?x="y"&z=<1>' })]);
    expect(html).toContain('src="https://img.test/a%20b.png?x=%22y%22&amp;z=%3C1%3E"');
  });

  describe("width and height only when both are known positive integers", () => {
    const size = (data: Record<string, unknown>) => {
      const html = render([block("image", { file: { url }, ...data })]);
      return { width: /width="(\d+)"/.exec(html)?.[1], height: /height="(\d+)"/.exec(html)?.[1] };
    };

    it("both on data", () => {
      expect(size({ width: 800, height: 600 })).toEqual({ width: "800", height: "600" });
    });

    it("both on file", () => {
      expect(size({ file: { url, width: 1024, height: 768 } })).toEqual({ width: "1024", height: "768" });
    });

    it("data wins over file when data has both", () => {
      expect(size({ width: 10, height: 20, file: { url, width: 1, height: 2 } })).toEqual({
        width: "10",
        height: "20",
      });
    });

    it("digit strings count as integers", () => {
      expect(size({ width: "800", height: "600" })).toEqual({ width: "800", height: "600" });
    });

    it.each([
      ["only width", { width: 800 }],
      ["only height", { height: 600 }],
      ["none", {}],
      ["non-integer width", { width: 800.5, height: 600 }],
      ["non-integer height string", { width: 800, height: "600.5" }],
      ["unit suffix", { width: "800px", height: "600px" }],
      ["zero", { width: 0, height: 600 }],
      ["negative", { width: 800, height: -600 }],
      ["NaN", { width: Number.NaN, height: 600 }],
      ["Infinity", { width: Number.POSITIVE_INFINITY, height: 600 }],
      ["width on data, height on file (not one known pair)", { width: 800, file: { url, height: 600 } }],
    ])("%s: no width and no height", (_name, data) => {
      expect(size(data)).toEqual({ width: undefined, height: undefined });
    });
  });

  describe("media_id resolved through options.mediaUrl", () => {
    const data = { media_id: "01J0000000000000000000000A", file: { url }, caption: "c" };

    it("uses the resolved URL over file.url", () => {
      const html = render([block("image", data)], { mediaUrl: (id) => `https://cdn.test/media/${id}.webp` });
      expect(html).toContain('src="https://cdn.test/media/01J0000000000000000000000A.webp"');
    });

    it("accepts a root-relative path from the resolver", () => {
      const html = render([block("image", data)], { mediaUrl: (id) => `/media/${id}` });
      expect(html).toContain('src="/media/01J0000000000000000000000A"');
    });

    it.each([
      ["null", null],
      ["javascript:", "javascript:alert(1)"],
      ["protocol-relative", "//evil.test/x.png"],
      ["backslash", "/\\evil.test/x.png"],
    ])("falls back to file.url when the resolver answers %s", (_name, answer) => {
      const html = render([block("image", data)], { mediaUrl: () => answer });
      expect(html).toContain(`src="${url}"`);
    });

    it("without a resolver the media_id is ignored", () => {
      expect(render([block("image", data)])).toContain(`src="${url}"`);
    });

    it("a media_id alone renders when the resolver knows it and is skipped when it does not", () => {
      const only = { media_id: "m1" };
      expect(render([block("image", only)], { mediaUrl: () => "https://cdn.test/m1" })).toContain(
        'src="https://cdn.test/m1"',
      );
      expect(render([block("image", only)], { mediaUrl: () => null })).toBe("");
    });
  });
});

describe("embed: rendered as a link, never a frame", () => {
  const youtube = {
    service: "youtube",
    source: "https://www.youtube.com/watch?v=abc",
    embed: "https://www.youtube.com/embed/abc",
    width: 580,
    height: 320,
  };

  it("links the source with the service as text", () => {
    expect(render([block("embed", youtube)])).toBe(
      '<p><a href="https://www.youtube.com/watch?v=abc" target="_blank" rel="noopener noreferrer nofollow">youtube</a></p>',
    );
  });

  it("uses the caption as text when it has any, without nested links", () => {
    const html = render([
      block("embed", { ...youtube, caption: '<b>Talk</b> <a href="https://x.test/">x</a>' }),
    ]);
    expect(html).toContain(">" + "<b>Talk</b> x</a>");
    expect(html.match(/<a /g)?.length).toBe(1);
  });

  it("falls back to the URL when there is neither caption nor service", () => {
    expect(render([block("embed", { source: "https://vimeo.com/1", caption: "<b></b>" })])).toContain(
      ">https://vimeo.com/1</a>",
    );
  });

  it("never emits the embed URL or an iframe", () => {
    const html = render([block("embed", youtube)]);
    expect(html).not.toContain("/embed/");
    expect(html).not.toContain("iframe");
  });

  it.each([
    ["javascript:", "javascript:alert(1)"],
    ["data:", "data:text/html,<script>alert(1)</script>"],
    ["relative", "/watch"],
    ["missing", undefined],
  ])("a %s source skips the block", (_name, source) => {
    expect(render([block("embed", { ...youtube, source })])).toBe("");
  });
});

describe("omitted and unknown blocks", () => {
  it.each(["ad", "product_card", "story_page", "related_articles", "raw", "warning", "someday-block"])(
    "%s is omitted",
    (type) => {
      const html = render([
        block("paragraph", { text: "before" }),
        block(type, { html: "<script>alert(1)</script>", text: "secret", product_id: "p1" }),
        block("paragraph", { text: "after" }),
      ]);
      expect(html).toBe("<p>before</p><p>after</p>");
    },
  );
});

describe("sanitizeInlineHtml: allowlist", () => {
  it("keeps allowed tags without their attributes", () => {
    expect(
      sanitizeInlineHtml(
        '<b class="x">b</b><strong>s</strong><i>i</i><em>e</em><u>u</u><s>s</s><mark class="cdx-marker">m</mark>' +
          '<code class="inline-code">c</code><sub>1</sub><sup>2</sup><span style="color:red">sp</span><small>sm</small>',
      ),
    ).toBe(
      "<b>b</b><strong>s</strong><i>i</i><em>e</em><u>u</u><s>s</s><mark>m</mark><code>c</code><sub>1</sub>" +
        "<sup>2</sup><span>sp</span><small>sm</small>",
    );
  });

  it("drops disallowed tags but keeps their text", () => {
    expect(
      sanitizeInlineHtml("<div><p>para</p><h1>head</h1><img src=x>img<table><td>cell</td></table></div>"),
    ).toBe("paraheadimgcell");
  });

  it.each([
    "script",
    "style",
    "iframe",
    "object",
    "form",
    "template",
    "noscript",
    "svg",
    "math",
    "textarea",
    "title",
    "xmp",
    "noembed",
    "noframes",
  ])("drops <%s> with its content", (tag) => {
    expect(sanitizeInlineHtml(`a<${tag}><b>inside</b> text</${tag}>b`)).toBe("ab");
  });

  it("drops <embed> (void) and <plaintext> (runs to the end)", () => {
    expect(sanitizeInlineHtml("a<embed src=x>b")).toBe("ab");
    expect(sanitizeInlineHtml("a<plaintext>b</plaintext>c")).toBe("a");
  });

  it("dropped content runs to the end when never closed, and counts nesting", () => {
    expect(sanitizeInlineHtml("a<svg><g>b")).toBe("a");
    expect(sanitizeInlineHtml("a<svg><svg></svg>b</svg>c")).toBe("ac");
    expect(sanitizeInlineHtml("a<svg/>b")).toBe("ab");
  });

  it("raw-text elements end only at their own end tag", () => {
    expect(sanitizeInlineHtml("<script><script></script>after")).toBe("after");
    expect(sanitizeInlineHtml("<title><title></title>after")).toBe("after");
    expect(sanitizeInlineHtml("<script>x</b>y</p>z</script>after")).toBe("after");
    expect(sanitizeInlineHtml("<style>a</stylex></style >b")).toBe("b");
  });

  it("closes what it opens and ignores stray end tags", () => {
    expect(sanitizeInlineHtml("<b><i>x")).toBe("<b><i>x</i></b>");
    expect(sanitizeInlineHtml("x</b></i>y")).toBe("xy");
    expect(sanitizeInlineHtml("<b><i>x</b>y</i>")).toBe("<b><i>x</i></b>y");
  });

  it("line breaks: <br>, <br/>, </br>", () => {
    expect(sanitizeInlineHtml("a<br>b<br/>c</br>d<BR >e")).toBe("a<br>b<br>c<br>d<br>e");
  });

  it("escapes stray < and >, keeps entities as text", () => {
    expect(sanitizeInlineHtml("1 < 2 > 0 <3 &lt;b&gt; &copy; &amp;amp; &unknown; &#169; &#x1F600;")).toBe(
      "1 &lt; 2 &gt; 0 &lt;3 &lt;b&gt; \u00a9 &amp;amp; &amp;unknown; \u00a9 \u{1F600}",
    );
  });

  it("removes comments, doctypes, CDATA and processing instructions", () => {
    expect(sanitizeInlineHtml("a<!-- c -->b<!DOCTYPE html>c<![CDATA[x]]>d<?php echo 1 ?>e")).toBe("abcde");
    // In HTML content CDATA is a bogus comment that ends at the first ">", as in the browser.
    expect(sanitizeInlineHtml("a<![CDATA[<b>]]>b")).toBe("a]]&gt;b");
    expect(sanitizeInlineHtml("a<!-->b<!--->c")).toBe("abc");
    expect(sanitizeInlineHtml("a<!-- never closed <b>x</b>")).toBe("a");
  });

  it("an unfinished tag at the end is dropped with the rest", () => {
    expect(sanitizeInlineHtml('ok<b title="x>rest')).toBe("ok");
    expect(sanitizeInlineHtml("ok<b")).toBe("ok");
  });

  it("NUL bytes are removed before tokenizing, so <scr\\0ipt> is judged as the script it spells", () => {
    expect(sanitizeInlineHtml("a<scr\u0000ipt>alert(1)</scr\u0000ipt>b")).toBe("ab");
  });

  it("removes NUL and control characters from text", () => {
    expect(sanitizeInlineHtml("a\u0000b\u0007c\td\ne")).toBe("abc\td\ne");
  });

  it("bounds nesting depth and stays well-formed", () => {
    const html = sanitizeInlineHtml(`${"<b>".repeat(1000)}x`);
    expect(html.match(/<b>/g)?.length).toBe(32);
    expect(findUnsafeHtml(html)).toEqual([]);
  });
});

describe("sanitizeInlineHtml: links", () => {
  it.each([
    ["https", "https://example.test/a?b=1&c=2#d", "https://example.test/a?b=1&amp;c=2#d"],
    ["http", "http://example.test/", "http://example.test/"],
    ["mailto", "mailto:a@example.test", "mailto:a@example.test"],
    ["relative path", "/posts/a", "/posts/a"],
    ["relative file", "page.html", "page.html"],
    ["fragment", "#top", "#top"],
    ["query", "?q=1", "?q=1"],
    ["upper-case scheme", "HTTPS://EXAMPLE.TEST/", "HTTPS://EXAMPLE.TEST/"],
    ["entity-encoded ampersand", "https://x.test/?a=1&amp;b=2", "https://x.test/?a=1&amp;b=2"],
    ["colon after a slash", "/a:b", "/a:b"],
  ])("keeps a %s href", (_name, href, emitted) => {
    expect(sanitizeInlineHtml(`<a href="${href}">x</a>`)).toBe(`<a href="${emitted}">x</a>`);
  });

  it.each([
    ["javascript:", "javascript:alert(1)"],
    ["upper-case", "JAVASCRIPT:alert(1)"],
    ["vbscript:", "vbscript:x"],
    ["data:", "data:text/html,x"],
    ["hex entities", "&#x6a;avascript:alert(1)"],
    ["decimal entities without ;", "&#106&#97&#118&#97&#115&#99&#114&#105&#112&#116&#58alert(1)"],
    ["&colon;", "javascript&colon;alert(1)"],
    ["&Tab; in the scheme", "java&Tab;script:alert(1)"],
    ["&NewLine; in the scheme", "java&NewLine;script:alert(1)"],
    ["leading spaces", "   javascript:alert(1)"],
    ["leading control char entity", "&#1;javascript:alert(1)"],
    ["raw tab", "java\tscript:alert(1)"],
    ["control char inside", "java\u0001script:alert(1)"],
    ["NUL inside", "java\u0000script:alert(1)"],
    ["zero-width space first", "\u200bjavascript:alert(1)"],
    ["no-break space first", "&nbsp;javascript:alert(1)"],
    ["soft hyphen inside", "java&shy;script:alert(1)"],
    ["other scheme", "tel:123"],
    ["relative with a control character", "/a\u0001b"],
  ])("refuses a %s href (the anchor stays, without href)", (_name, href) => {
    expect(sanitizeInlineHtml(`<a href="${href}">x</a>`)).toBe("<a>x</a>");
  });

  it("target becomes _blank with our rel; rel and events from the input are dropped", () => {
    expect(
      sanitizeInlineHtml(
        '<a href="https://x.test/" target="top" rel="opener" onclick="alert(1)" style="x">x</a>',
      ),
    ).toBe('<a href="https://x.test/" target="_blank" rel="noopener noreferrer nofollow">x</a>');
  });

  it("the first of duplicate attributes counts, as in the browser", () => {
    expect(sanitizeInlineHtml('<a href="https://a.test/" href="javascript:x">x</a>')).toBe(
      '<a href="https://a.test/">x</a>',
    );
  });

  it("unquoted and single-quoted values", () => {
    expect(sanitizeInlineHtml("<a href=https://a.test/x>1</a><a href='/y'>2</a>")).toBe(
      '<a href="https://a.test/x">1</a><a href="/y">2</a>',
    );
  });

  it("a quote inside the value cannot add an attribute", () => {
    expect(sanitizeInlineHtml(`<a href='/x" onclick="alert(1)'>x</a>`)).toBe(
      '<a href="/x&quot; onclick=&quot;alert(1)">x</a>',
    );
  });

  it("anchors do not nest", () => {
    expect(sanitizeInlineHtml('<a href="/1">a<a href="/2">b</a>c</a>')).toBe(
      '<a href="/1">a</a><a href="/2">b</a>c',
    );
  });

  it("allowLinks: false drops anchors and keeps their text", () => {
    expect(sanitizeInlineHtml('<b>x</b><a href="/1">link</a>', { allowLinks: false })).toBe("<b>x</b>link");
  });
});

describe("safeLinkHref and safeHttpUrl", () => {
  it("safeLinkHref strips what the URL parser strips and returns the value to emit", () => {
    expect(safeLinkHref("  https://a.test/\n ")).toBe("https://a.test/");
    expect(safeLinkHref("ht\ttps://a.test/")).toBe("https://a.test/");
    expect(safeLinkHref("javascript:x")).toBeNull();
    expect(safeLinkHref("")).toBe("");
  });

  it("safeHttpUrl accepts only absolute http(s) and returns the parsed href", () => {
    expect(safeHttpUrl(" https://A.test/x ")).toBe("https://a.test/x");
    expect(safeHttpUrl("http://a.test")).toBe("http://a.test/");
    expect(safeHttpUrl("javascript:alert(1)")).toBeNull();
    expect(safeHttpUrl("https:/a.test")).toBeNull();
    expect(safeHttpUrl("//a.test/")).toBeNull();
    expect(safeHttpUrl("https://a.test/\u0001x")).toBeNull();
    expect(safeHttpUrl("https://a.test/\u0001")).toBe("https://a.test/");
    expect(safeHttpUrl(null)).toBeNull();
  });
});

describe("inlineText", () => {
  it("visible text only: tags and dropped content gone, entities decoded, whitespace collapsed", () => {
    expect(inlineText("  A <b>bold</b>&nbsp;&amp;<br>line<script>x</script>\n\t end ")).toBe(
      "A bold & line end",
    );
  });
});

describe("decodeEntities", () => {
  it.each([
    ["&lt;&gt;&amp;&quot;&apos;", "<>&\"'"],
    ["&#106;&#x6A;&#X6a;", "jjj"],
    ["&#106&#x6A", "jj"],
    ["&#0;", "\ufffd"],
    ["&#x110000;", "\ufffd"],
    ["&#xD800;", "\ufffd"],
    ["&#0000000000106;", "j"],
    ["&#128;", "\u20ac"],
    ["&colon;&Tab;&NewLine;", ":\t\n"],
    ["&notit;", "\u00acit;"],
    ["&amp", "&"],
    ["&bogus;", "&bogus;"],
    ["& alone", "& alone"],
  ])("text: %s", (input, decoded) => {
    expect(decodeEntities(input, false)).toBe(decoded);
  });

  it("in an attribute, a legacy reference without ; before an alphanumeric or = stays literal", () => {
    expect(decodeEntities("?a=1&copy=2&notx", true)).toBe("?a=1&copy=2&notx");
    expect(decodeEntities("&copy 2", true)).toBe("\u00a9 2");
    expect(decodeEntities("&copy=2", false)).toBe("\u00a9=2");
  });
});

describe("tokenizeHtml", () => {
  it("reads tags, attributes and text like a browser", () => {
    expect([...tokenizeHtml(`a<A HREF='x' title=y =z/>b</a foo>`)]).toEqual([
      { kind: "text", text: "a" },
      {
        kind: "start",
        name: "a",
        attrs: new Map([
          ["href", "x"],
          ["title", "y"],
          ["=z", ""],
        ]),
        selfClosing: true,
      },
      { kind: "text", text: "b" },
      { kind: "end", name: "a" },
    ]);
  });

  it("treats `</>` as nothing and `</1` as a comment", () => {
    expect([...tokenizeHtml("a</>b</1 x>c")]).toEqual([{ kind: "text", text: "abc" }]);
  });
});

describe("hostile sizes", () => {
  const MiB = 1 << 20;
  it.each([
    ["many open tags", "<b>".repeat(MiB / 3)],
    ["many stray <", "<".repeat(MiB)],
    ["many comments (a --!> search per comment would be quadratic)", "<!---->".repeat(MiB / 7)],
    ["many unterminated-looking comments", "<!-- - -- ".repeat(MiB / 10)],
    ["many raw-text starts", "<script>".repeat(MiB / 8)],
    ["almost-closing raw text", `<script>${"</scrip".repeat(MiB / 7)}`],
    ["many attributes", `<a ${'x="1" '.repeat(MiB / 6)}>`],
    ["many anchors", '<a href="/x">'.repeat(MiB / 13)],
    ["many references", "&#x41;&notin".repeat(MiB / 12)],
  ])("1 MiB of %s renders in linear time", (_name, text) => {
    const started = Date.now();
    const html = renderBlocks({ blocks: [{ type: "paragraph", data: { text } }] });
    // Generous for a loaded CI machine; a quadratic scan of 1 MiB takes minutes.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(html.startsWith("<p>")).toBe(true);
  });
});

describe("a full post", () => {
  it("renders a realistic Editor.js document to well-formed allowlisted HTML", () => {
    const doc = {
      time: 1700000000000,
      version: "2.30.7",
      blocks: [
        block("header", { text: "Title", level: 1 }),
        block("paragraph", { text: 'Intro with <a href="https://x.test/" target="_blank">a link</a>.' }),
        block("image", { file: { url: "https://img.test/a.jpg", width: 1200, height: 800 }, caption: "Cap" }),
        block("list", { style: "ordered", meta: {}, items: [{ content: "a", meta: {}, items: [] }] }),
        block("ad", { slot: "top" }),
        block("quote", { text: "Q", caption: "A" }),
        block("code", { code: "x < y" }),
        block("delimiter", {}),
        block("table", { withHeadings: false, content: [["1", "2"]] }),
        block("embed", {
          service: "vimeo",
          source: "https://vimeo.com/1",
          embed: "https://player.vimeo.com/video/1",
        }),
        block("related_articles", { ids: ["x"] }),
      ],
    };
    const html = renderBlocks(doc, { mediaUrl: () => null });
    expect(findUnsafeHtml(html)).toEqual([]);
    expect(html).toBe(
      "<h1>Title</h1>" +
        '<p>Intro with <a href="https://x.test/" target="_blank" rel="noopener noreferrer nofollow">a link</a>.</p>' +
        '<figure><img src="https://img.test/a.jpg" alt="Cap" width="1200" height="800"><figcaption>Cap</figcaption></figure>' +
        "<ol><li>a</li></ol>" +
        "<blockquote><p>Q</p><cite>A</cite></blockquote>" +
        "<pre><code>x &lt; y</code></pre>" +
        "<hr>" +
        "<table><tbody><tr><td>1</td><td>2</td></tr></tbody></table>" +
        '<p><a href="https://vimeo.com/1" target="_blank" rel="noopener noreferrer nofollow">vimeo</a></p>',
    );
  });
});
