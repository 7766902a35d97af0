/**
 * Markdown body to Editor.js blocks: markdown-it renders CommonMark with GFM tables and strikethrough
 * (its default preset) to HTML, and the HTML converter makes the blocks, so both inputs share one mapping
 * and one loss report. Raw HTML in the Markdown is allowed, as CommonMark allows it: it goes through the
 * same walk (scripts and the like removed and counted). GFM task list items (`- [ ]`, `- [x]`) become
 * checkboxes here, which the HTML converter turns into a checklist.
 */
import MarkdownIt from "markdown-it";
import type { Converted } from "./conversion";
import { type ConvertOptions, htmlToBlocks } from "./html";

const TASK = /^\[([ xX])\](?:[ \t]+|$)/;

const markdown = new MarkdownIt("default", { html: true });

markdown.core.ruler.after("inline", "task_list_items", (state) => {
  const tokens = state.tokens;
  for (let i = 2; i < tokens.length; i++) {
    const inline = tokens[i]!;
    if (inline.type !== "inline" || tokens[i - 1]!.type !== "paragraph_open") continue;
    if (tokens[i - 2]!.type !== "list_item_open") continue;
    const first = inline.children?.[0];
    const match = first?.type === "text" ? TASK.exec(first.content) : null;
    if (!first || !match) continue;
    first.content = first.content.slice(match[0].length);
    const box = new state.Token("html_inline", "", 0);
    box.content = `<input type="checkbox" disabled${match[1] === " " ? "" : " checked"}> `;
    inline.children!.unshift(box);
  }
  return true;
});

/** The HTML markdown-it makes of a Markdown text (task list items with their checkboxes). */
export function markdownHtml(text: string): string {
  return markdown.render(text);
}

export function markdownToBlocks(text: string, options: ConvertOptions = {}): Converted {
  return htmlToBlocks(markdownHtml(text), options);
}
