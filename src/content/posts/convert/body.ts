/**
 * A post body sent as `blocks_json`, `html` or `markdown` (issue 33, "HTML and Markdown in"; Ghost's
 * `?source=html` is the anchor, as a body field here): HTML and Markdown are converted to blocks once, on
 * write, and stored as blocks like any other body (the renderer sanitizes them as it sanitizes every
 * post). The write's answer carries a `conversion` member whenever the body was HTML or Markdown, with the
 * list of what could not be kept (empty when nothing was lost), so a client knows the body was converted
 * and whether to look.
 */
import { z } from "@hono/zod-openapi";
import { fail } from "../../errors";
import type { ConversionLoss } from "./conversion";
import { htmlToBlocks } from "./html";
import { markdownToBlocks } from "./markdown";
import { platformImageUrl } from "./platform";

/**
 * Longest HTML or Markdown body, in characters: 512 KiB (a long article is under 100 KiB). Conversion is
 * CPU work (about 1-3 s per MiB of HTML and 4-6 s per MiB of Markdown on the 2-core test machine), so the
 * bound is half the stored document's 1 MiB (docs/decisions/html-markdown.md).
 */
export const MAX_SOURCE_LENGTH = 512 * 1024;

export const HtmlBodySchema = z.string().max(MAX_SOURCE_LENGTH).optional().openapi({
  description:
    "The body as HTML, instead of blocks_json or markdown: converted to blocks on write (h1-h6, p, ul/ol, blockquote, pre, hr, img/figure, table; inline markup kept and sanitized). What could not be kept (scripts, embeds turned into links, unknown elements, attributes) is listed in the answer's `conversion`.",
});

export const MarkdownBodySchema = z.string().max(MAX_SOURCE_LENGTH).optional().openapi({
  description:
    "The body as Markdown (CommonMark with GFM tables, strikethrough and task lists), instead of blocks_json or html: converted to blocks on write; platform media paths (/media/...) become the media's URLs. What could not be kept is listed in the answer's `conversion`.",
});

export const ConversionSchema = z
  .object({
    from: z.enum(["html", "markdown"]),
    lost: z
      .array(
        z.object({
          what: z.string().openapi({ description: "What was not kept, and what became of it" }),
          count: z.int(),
          example: z.string().optional().openapi({ description: "The first occurrence, shortened" }),
        }),
      )
      .openapi({ description: "Empty when everything was kept" }),
  })
  .optional()
  .openapi("Conversion", {
    description:
      "Present when the body was sent as html or markdown: what the conversion to blocks could not keep",
  });

export type ConversionNote = { from: "html" | "markdown"; lost: ConversionLoss[] };

const BODY_FIELDS = ["blocks_json", "html", "markdown"] as const;

interface BodyInput {
  blocks_json?: unknown;
  html?: string;
  markdown?: string;
}

/**
 * The body's blocks document (what `blocks_json` would have been) and the conversion note (null for a
 * `blocks_json` body); more than one body field is refused, naming them.
 */
export function bodyBlocks(
  input: BodyInput,
  mediaBase: string,
): { blocks_json: unknown; conversion: ConversionNote | null } {
  const sent = BODY_FIELDS.filter((field) => input[field] !== undefined);
  if (sent.length > 1) {
    fail("BAD_REQUEST", {
      detail: `Send the body as one of blocks_json, html or markdown, not ${sent.join(" and ")}.`,
      details: { path: sent[1], fields: sent },
    });
  }
  const options = { imageUrl: platformImageUrl(mediaBase) };
  if (input.html !== undefined) {
    const { blocks, conversion } = htmlToBlocks(input.html, options);
    return { blocks_json: { blocks }, conversion: { from: "html", lost: conversion.lost } };
  }
  if (input.markdown !== undefined) {
    const { blocks, conversion } = markdownToBlocks(input.markdown, options);
    return { blocks_json: { blocks }, conversion: { from: "markdown", lost: conversion.lost } };
  }
  return { blocks_json: input.blocks_json, conversion: null };
}

/** `{conversion}` when the body was converted, else nothing. */
export function conversionMember(conversion: ConversionNote | null): { conversion?: ConversionNote } {
  return conversion ? { conversion } : {};
}
