/**
 * HTML and Markdown bodies round-trip through blocks: a sample is converted, its blocks rendered again
 * with `renderBlocks`, and the DOM of the result must equal the DOM of the input (for Markdown: the HTML
 * markdown-it makes of it) after normalisation (whitespace, attribute order, comments; both sides parsed
 * by parse5), minus the expected losses stated below, each one a rewrite of the input's DOM. Each sample's
 * `conversion` note must name exactly those losses.
 */
import { type DefaultTreeAdapterTypes, parseFragment, serialize } from "parse5";
import { describe, expect, it } from "vitest";
import { htmlToBlocks } from "../../src/content/posts/convert/html";
import { markdownHtml, markdownToBlocks } from "../../src/content/posts/convert/markdown";
import { platformImageUrl } from "../../src/content/posts/convert/platform";
import { renderBlocks } from "../../src/content/posts/render/render-blocks";
import readme from "../fixtures/convert/readme.md?raw";
import wordpressPost from "../fixtures/convert/wordpress-post.html?raw";

type Node = DefaultTreeAdapterTypes.ChildNode;
type Element = DefaultTreeAdapterTypes.Element;

const isElement = (node: Node): node is Element => "tagName" in node;
const attr = (el: Element, name: string) => el.attrs.find((a) => a.name === name)?.value;
const elements = (nodes: Node[]) => nodes.filter(isElement);
const html = (markup: string): Node[] => parseFragment(markup).childNodes;
const escapeText = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");

function textOf(node: Node): string {
  if (node.nodeName === "#text") return (node as DefaultTreeAdapterTypes.TextNode).value;
  return isElement(node) ? node.childNodes.map(textOf).join("") : "";
}

function descendants(el: Element): Element[] {
  return elements(el.childNodes).flatMap((child) => [child, ...descendants(child)]);
}

/** An expected loss: a rewrite of the input's DOM (replacement nodes, or undefined to keep the element). */
interface Loss {
  why: string;
  rewrite: (el: Element) => Node[] | undefined;
}

function applyLosses(nodes: Node[], losses: Loss[]): Node[] {
  return nodes.flatMap((node) => {
    if (!isElement(node)) return [node];
    for (const loss of losses) {
      const replaced = loss.rewrite(node);
      if (replaced) return applyLosses(replaced, losses);
    }
    node.childNodes = applyLosses(node.childNodes, losses);
    return [node];
  });
}

/** Attributes the blocks keep; the rest (class, id, style, srcset, rel, the renderer's loading) are a stated loss. */
const KEPT: Record<string, string[]> = {
  a: ["href", "target"],
  img: ["src", "alt", "width", "height"],
  ol: ["start", "type"],
};

const BLOCK_TAGS = "p|h[1-6]|ul|ol|li|blockquote|cite|pre|hr|table|thead|tbody|tr|th|td|figure|figcaption";

/** One canonical text of a DOM: comments gone, attributes filtered and sorted, whitespace collapsed. */
function canonical(nodes: Node[]): string {
  const walk = (node: Node, pre: boolean): string => {
    if (node.nodeName === "#text") {
      const value = (node as DefaultTreeAdapterTypes.TextNode).value;
      return escapeText(pre ? value : value.replace(/[ \t\n\f\r]+/g, " "));
    }
    if (!isElement(node)) return "";
    const kept = KEPT[node.tagName] ?? [];
    const attrs = node.attrs
      .filter((a) => kept.includes(a.name))
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((a) => ` ${a.name}="${escapeText(a.value)}"`)
      .join("");
    const inner = node.childNodes.map((child) => walk(child, pre || node.tagName === "pre")).join("");
    if (node.tagName === "img" || node.tagName === "hr" || node.tagName === "br")
      return `<${node.tagName}${attrs}>`;
    return `<${node.tagName}${attrs}>${inner}</${node.tagName}>`;
  };
  return nodes
    .map((node) => walk(node, false))
    .join("")
    .replace(new RegExp(`\\s*(</?(?:${BLOCK_TAGS})\\b[^>]*>)\\s*`, "g"), "$1")
    .replace(new RegExp(`(<(?:${BLOCK_TAGS})\\b[^>]*>)`, "g"), "\n$1")
    .trim();
}

// ---- the expected losses, shared by the samples

const removedElements = (...names: string[]): Loss => ({
  why: `${names.join(", ")} removed with their content`,
  rewrite: (el) => (names.includes(el.tagName) ? [] : undefined),
});

const unwrapped = (name: string): Loss => ({
  why: `<${name}> wrappers are walked through`,
  rewrite: (el) => (el.tagName === name ? el.childNodes : undefined),
});

const linkAroundImage: Loss = {
  why: "a link around an image is dropped (the image kept)",
  rewrite: (el) =>
    el.tagName === "a" &&
    el.childNodes.some((c) => isElement(c) && c.tagName === "img") &&
    el.childNodes.every((c) => (isElement(c) ? c.tagName === "img" : textOf(c).trim() === ""))
      ? el.childNodes
      : undefined,
};

/** A figure that is not one image is walked through; its caption becomes a paragraph. */
const figureNotImage: Loss = {
  why: "a figure that is not a single image is walked through, its figcaption kept as a paragraph",
  rewrite: (el) => {
    if (el.tagName !== "figure") return undefined;
    const inside = descendants(el);
    if (inside.filter((d) => d.tagName === "img").length === 1 && !inside.some((d) => d.tagName === "iframe"))
      return undefined;
    return el.childNodes.flatMap((child) =>
      isElement(child) && child.tagName === "figcaption" ? html(`<p>${serialize(child)}</p>`) : [child],
    );
  },
};

/** The rendered image's alt is its caption's text; an image without a caption shows its alt as one. */
const altIsCaption: Loss = {
  why: "an image's alt is its caption's text; an alt without a caption becomes the caption",
  rewrite: (el) => {
    if (el.tagName !== "figure" || el.attrs.some((a) => a.name === "data-checked")) return undefined;
    const img = descendants(el).find((d) => d.tagName === "img")!;
    const caption = elements(el.childNodes).find((c) => c.tagName === "figcaption");
    const alt = attr(img, "alt") ?? "";
    const captionHtml = caption ? serialize(caption) : escapeText(alt);
    const src = attr(img, "src") ?? "";
    const size = attr(img, "width") ? ` width="${attr(img, "width")}" height="${attr(img, "height")}"` : "";
    const altText = caption ? textOf(caption).replace(/\s+/g, " ").trim() : alt;
    return html(
      `<figure data-checked><img src="${escapeText(src)}" alt="${escapeText(altText)}"${size}>${captionHtml ? `<figcaption>${captionHtml}</figcaption>` : ""}</figure>`,
    );
  },
};

/** An image inside a paragraph ends it: text before and after become paragraphs of their own. */
const imageOutOfParagraph: Loss = {
  why: "an image is a block of its own: it splits the paragraph it stood in",
  rewrite: (el) => {
    if (el.tagName !== "p" || !el.childNodes.some((c) => isElement(c) && c.tagName === "img"))
      return undefined;
    const out: Node[] = [];
    let run: Node[] = [];
    const endRun = () => {
      if (run.some((n) => textOf(n).trim() !== "")) out.push(...html(`<p>${run.map(outer).join("")}</p>`));
      run = [];
    };
    for (const child of el.childNodes) {
      if (isElement(child) && child.tagName === "img") {
        endRun();
        out.push(...html(`<figure>${outer(child)}</figure>`));
      } else run.push(child);
    }
    endRun();
    return out;
  },
};

function outer(node: Node): string {
  const holder = parseFragment("<div></div>").childNodes[0] as Element;
  holder.childNodes = [node];
  return serialize(holder);
}

const iframeAsLink: Loss = {
  why: "an iframe embed becomes a paragraph with a link to its source, labelled with its title",
  rewrite: (el) => {
    if (el.tagName !== "iframe") return undefined;
    const src = escapeText(new URL(attr(el, "src")!).href);
    return html(`<p><a href="${src}">${escapeText(attr(el, "title") ?? src)}</a></p>`);
  },
};

const checkboxesAsMarks: Loss = {
  why: "a task list's checkboxes are shown as ☐ and ☑",
  rewrite: (el) =>
    el.tagName === "input" ? html(el.attrs.some((a) => a.name === "checked") ? "☑" : "☐") : undefined,
};

/** Editor.js lists have one style for the whole tree. */
const nestedListsTakeOuterStyle: Loss = {
  why: "a nested list takes the style of the list it is in",
  rewrite: (el) => {
    if (el.tagName !== "ol" && el.tagName !== "ul") return undefined;
    for (const nested of descendants(el).filter((d) => d.tagName === "ol" || d.tagName === "ul")) {
      nested.tagName = nested.nodeName = el.tagName;
    }
    return undefined;
  },
};

const MEDIA_BASE = "https://media.example.com";

const mediaPathsAbsolute: Loss = {
  why: "platform media paths (/media/...) become absolute URLs under the media base",
  rewrite: (el) => {
    const src = attr(el, "src");
    if (el.tagName !== "img" || !src?.startsWith("/media/") || el.attrs.some((a) => a.name === "data-abs"))
      return undefined;
    return html(
      `<img data-abs src="${MEDIA_BASE}/${src.slice(7)}" alt="${escapeText(attr(el, "alt") ?? "")}">`,
    );
  },
};

function roundTrip(inputHtml: string, blocks: unknown[], losses: Loss[]) {
  const expected = canonical(applyLosses(html(inputHtml), losses));
  const actual = canonical(html(renderBlocks({ blocks })));
  return { expected, actual };
}

describe("HTML and Markdown bodies round-trip through blocks", () => {
  it("a WordPress export's post body: the DOM again, minus the stated losses", () => {
    const input = wordpressPost;
    const { blocks, conversion } = htmlToBlocks(input);
    const { expected, actual } = roundTrip(input, blocks, [
      removedElements("script"),
      unwrapped("div"),
      linkAroundImage,
      iframeAsLink,
      figureNotImage,
      altIsCaption,
    ]);
    expect(actual).toBe(expected);
    expect(conversion.lost.map((l) => [l.what, l.count])).toEqual([
      ["attributes (class, style, id and the like; the page's own styling applies)", 29],
      ["inline formatting or a link around a block (the block kept without it)", 1],
      ["image alt text other than its caption (the caption is the alt)", 1],
      ["caption of a figure that is not a single image (kept as a paragraph)", 2],
      ["<iframe> (kept as a link to its source)", 1],
      ["<script> (removed with its content)", 1],
    ]);
    expect(blocks.map((b) => b.type)).toEqual([
      "paragraph",
      "header",
      "paragraph",
      "image",
      "header",
      "list",
      "list",
      "quote",
      "table",
      "paragraph",
      "image",
      "image",
      "paragraph",
      "paragraph",
      "delimiter",
      "paragraph",
    ]);
  });

  it("a README in Markdown: the DOM of its markdown-it HTML again, minus the stated losses", () => {
    const input = readme;
    const { blocks, conversion } = markdownToBlocks(input, { imageUrl: platformImageUrl(MEDIA_BASE) });
    const { expected, actual } = roundTrip(markdownHtml(input), blocks, [
      mediaPathsAbsolute,
      imageOutOfParagraph,
      nestedListsTakeOuterStyle,
      altIsCaption,
      checkboxesAsMarks,
    ]);
    expect(actual).toBe(expected);
    expect(conversion.lost.map((l) => [l.what, l.count])).toEqual([
      ["nested list of another style (takes the outer list's style)", 1],
      ["attributes (class, style, id and the like; the page's own styling applies)", 6],
      ["code block language", 1],
    ]);
    expect(blocks.map((b) => b.type)).toEqual([
      "header",
      "paragraph",
      "image",
      "header",
      "list",
      "header",
      "list",
      "header",
      "table",
      "header",
      "code",
      "quote",
      "delimiter",
      "paragraph",
      "image",
    ]);
  });
});
