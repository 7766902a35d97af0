import { describe, expect, it } from "vitest";
import { sanitizeInlineHtml } from "../../src/content/posts/render/inline-html";
import { renderBlocks } from "../../src/content/posts/render/render-blocks";
import ownVectors from "../fixtures/xss-vectors.json";
import { call, createPost, ORIGIN, tenant } from "../support/content-helpers";
import { testCorpora } from "../support/corpora-binding";
import { findUnsafeHtml } from "../support/html-safety";

interface Vector {
  title: string;
  payload: string;
}

/** Each place of a post where an author's string ends up in `content_html`. */
const positions: Record<string, (payload: string) => unknown> = {
  "paragraph text": (p) => ({ type: "paragraph", data: { text: p } }),
  "header text": (p) => ({ type: "header", data: { text: p, level: 3 } }),
  "list item (string)": (p) => ({ type: "list", data: { style: "unordered", items: ["ok", p] } }),
  "list item (v2 object, nested)": (p) => ({
    type: "list",
    data: {
      style: "ordered",
      meta: { start: 2 },
      items: [{ content: p, meta: {}, items: [{ content: p, items: [] }] }],
    },
  }),
  "quote text": (p) => ({ type: "quote", data: { text: p, caption: "c" } }),
  "quote caption": (p) => ({ type: "quote", data: { text: "t", caption: p } }),
  "table cell": (p) => ({
    type: "table",
    data: {
      withHeadings: true,
      content: [
        [p, "h"],
        ["x", p],
      ],
    },
  }),
  "image caption": (p) => ({ type: "image", data: { file: { url: "https://img.test/a.png" }, caption: p } }),
  "image file.url": (p) => ({ type: "image", data: { file: { url: p }, caption: "c" } }),
  "image url (after a valid prefix)": (p) => ({
    type: "image",
    data: { url: `https://img.test/a.png?q=${p}` },
  }),
  "embed source": (p) => ({ type: "embed", data: { service: "youtube", source: p, embed: p } }),
  "embed source (after a valid prefix)": (p) => ({
    type: "embed",
    data: { service: "youtube", source: `https://www.youtube.com/watch?v=${p}`, embed: p },
  }),
  "embed caption and service": (p) => ({
    type: "embed",
    data: { service: p, source: "https://vimeo.com/1", embed: p, caption: p },
  }),
};

function render(block: unknown): string {
  return renderBlocks({ blocks: [block] }, { mediaUrl: () => null });
}

function auditVectors(vectors: Vector[], makeBlock: (payload: string) => unknown): string[] {
  const failures: string[] = [];
  for (const { title, payload } of vectors) {
    const html = render(makeBlock(payload));
    const findings = findUnsafeHtml(html);
    if (findings.length > 0) failures.push(`${title}: ${findings.join("; ")} in ${html.slice(0, 300)}`);
  }
  return failures;
}

describe("the safety checker itself", () => {
  it.each([
    ["<script>alert(1)</script>", "contains <script"],
    ['<img src="x" onerror="alert(1)">', "event handler onerror"],
    ['<a href="javascript:alert(1)">x</a>', "unsafe href"],
    ['<a href="java&#x73;cript&#x3a;alert(1)">x</a>', "unsafe href"],
    ['<a href=" &#14; javascript:alert(1)">x</a>', "unsafe href"],
    ['<img src="data:image/svg+xml,x" alt="">', "unsafe src"],
    ["<div>x</div>", "element <div> outside the allowlist"],
    ['<span style="x">a</span>', "attribute style on <span>"],
    ["<b>x", "unclosed <b>"],
    ["<b>x</i></b>", "does not close"],
    ["a < b", "not a well-formed tag"],
    ['<a href="/x" target="_blank">x</a>', "target without rel=noopener"],
    ["<svg/onload=alert(1)>", "contains <svg"],
  ])("flags %s", (html, finding) => {
    expect(findUnsafeHtml(html).join("\n")).toContain(finding);
  });

  it("accepts the renderer's own vocabulary", () => {
    const html =
      '<p><b>a</b> &amp; <a href="https://x.test/?a=1&amp;b=2" target="_blank" rel="noopener noreferrer nofollow">l</a></p>' +
      '<ol start="3" type="i"><li>x</li></ol><figure><img src="https://i.test/a.png" alt="&quot;q&quot;" ' +
      'width="2" height="1" loading="lazy"><figcaption>c</figcaption></figure><hr>';
    expect(findUnsafeHtml(html)).toEqual([]);
  });
});

describe("content_html never carries script: public corpus (DOMPurify fixtures)", () => {
  const corpus = () => testCorpora().xss;

  it("the corpus is loaded", () => {
    expect(corpus().length).toBeGreaterThan(200);
  });

  for (const [position, makeBlock] of Object.entries(positions)) {
    it(`every payload in ${position}`, () => {
      expect(auditVectors(corpus(), makeBlock)).toEqual([]);
    });
  }

  it("every payload, all positions in one document", () => {
    const failures: string[] = [];
    for (const { title, payload } of corpus()) {
      const html = renderBlocks({ blocks: Object.values(positions).map((make) => make(payload)) });
      const findings = findUnsafeHtml(html);
      if (findings.length > 0) failures.push(`${title}: ${findings.join("; ")}`);
    }
    expect(failures).toEqual([]);
  });

  it("malicious SVG files (svg-sanitizer corpus) pasted as text leave nothing executable", () => {
    const svgs = testCorpora().svgMalicious.map((f) => ({ title: f.name, payload: f.svg }));
    expect(svgs.length).toBeGreaterThan(10);
    expect(auditVectors(svgs, positions["paragraph text"]!)).toEqual([]);
    expect(auditVectors(svgs, positions["image caption"]!)).toEqual([]);
  });

  it("sanitized inline HTML is a fixed point (re-sanitizing changes nothing: no mutation on reparse)", () => {
    const changed = corpus().filter(({ payload }) => {
      const once = sanitizeInlineHtml(payload);
      return sanitizeInlineHtml(once) !== once;
    });
    expect(changed.map((v) => v.title)).toEqual([]);
  });
});

describe("content_html never carries script: own vectors (test/fixtures/xss-vectors.json)", () => {
  const vectors = ownVectors as Vector[];

  it("has at least 30 vectors", () => {
    expect(vectors.length).toBeGreaterThanOrEqual(30);
  });

  for (const [position, makeBlock] of Object.entries(positions)) {
    it(`every vector in ${position}`, () => {
      expect(auditVectors(vectors, makeBlock)).toEqual([]);
    });
  }

  it("re-sanitizing is a fixed point for every vector", () => {
    const changed = vectors.filter(({ payload }) => {
      const once = sanitizeInlineHtml(payload);
      return sanitizeInlineHtml(once) !== once;
    });
    expect(changed.map((v) => v.title)).toEqual([]);
  });
});

describe("content_html through HTTP: stored posts read back with GET /v1/posts/{reference}", () => {
  it("every corpus payload and own vector, in every position, comes back without anything executable", async () => {
    const t = await tenant();
    const all = [...testCorpora().xss, ...(ownVectors as Vector[])];
    const makers = Object.values(positions);
    const failures: string[] = [];
    for (let start = 0; start < all.length; start += 40) {
      const chunk = all.slice(start, start + 40);
      const blocks = chunk.flatMap(({ payload }) => makers.map((make) => make(payload)));
      const post = await createPost(t.ck, {
        title: `XSS chunk ${start}`,
        status: "published",
        blocks_json: { blocks },
      });
      const res = await call("GET", `/v1/posts/${post.id}`, { key: t.pk, origin: ORIGIN });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("application/json");
      const { content_html } = (await res.json()) as { content_html: string };
      expect(content_html.length).toBeGreaterThan(0);
      const findings = findUnsafeHtml(content_html);
      if (findings.length > 0) failures.push(`chunk ${start}: ${findings.join("; ")}`);
    }
    expect(failures).toEqual([]);
  });
});
