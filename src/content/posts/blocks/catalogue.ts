/**
 * The block catalogue (issue 33): every block type a post's `blocks_json` (an Editor.js document) may hold,
 * each with the zod schema of its `data`, as one discriminated union on `type`. It is the `blocks_json`
 * schema of the OpenAPI document (component `BlocksDocument`), hence of the MCP tools' inputs, the table
 * in src/content/README.md (test/content/blocks-catalogue.unit.test.ts keeps it equal), and what writes
 * are checked against (./check.ts).
 *
 * The Editor.js standard blocks are the ones render-blocks.ts renders; the official plugins' fields are
 * declared (image `withBorder`, `stretched`, `withBackground`; list `meta` and nested `items`; header
 * `level`; quote `alignment`; table `withHeadings`, `stretched`; embed `service`, `source`, `embed`,
 * `width`, `height`, `caption`; block `id` and `tunes`). Every object is declared open: a field it does
 * not list is kept as sent and reported as a warning (./check.ts), except the platform blocks' data and
 * the image's `file` (free-form by design: what the uploader returned).
 */
import { z } from "@hono/zod-openapi";

/** Longest text of one field (inline HTML included): the whole document's own bound (1 MiB). */
export const MAX_BLOCK_TEXT = 1024 * 1024;
/** Levels of list items (the renderer cuts deeper nesting: render-blocks.ts MAX_LIST_DEPTH). */
export const MAX_LIST_LEVELS = 10;
/** Longest block `id` (Editor.js makes 10 characters). */
export const MAX_BLOCK_ID = 100;
/** Largest image or embed dimension, in pixels. */
export const MAX_DIMENSION = 999_999;

const Text = z.string().max(MAX_BLOCK_TEXT);
const InlineText = Text.openapi({ description: "Text with inline HTML (sanitized against an allowlist)" });

/** Objects whose extra fields are theirs by design (no warning): see ./check.ts. */
export const FREE_FORM = new WeakSet<z.ZodType>();
function freeForm<T extends z.ZodType>(schema: T): T {
  FREE_FORM.add(schema);
  return schema;
}

const Dimension = z
  .union([z.int().min(1).max(MAX_DIMENSION), z.string().regex(/^[0-9]{1,6}$/)])
  .openapi({ description: "Pixels: a positive integer (or a string of digits)" });

const Paragraph = z.looseObject({ text: InlineText });

const Header = z.looseObject({
  text: InlineText,
  level: z.int().min(1).max(6).optional().openapi({ description: "1..6; default 2" }),
});

const COUNTER_TYPES = ["numeric", "lower-roman", "upper-roman", "lower-alpha", "upper-alpha"] as const;

const ListMeta = z.looseObject({
  start: z.int().min(-MAX_DIMENSION).max(MAX_DIMENSION).optional().openapi({
    description: "Ordered lists: the first number",
  }),
  counterType: z.enum(COUNTER_TYPES).optional().openapi({ description: "Ordered lists: the numbering" }),
});

const ItemMeta = z.looseObject({
  checked: z.boolean().optional().openapi({ description: "Checklists: whether the item is ticked" }),
});

/**
 * A list item of `level` (1 = the list's own items): a string (list v1) or `{content, meta, items}` (list
 * v2 and nested-list; `text` is the older checklist's name of `content`). Written out level by level, not
 * recursively: the documents (and the MCP tool schemas built from them) hold no reference cycle.
 */
function listItem(level: number): z.ZodType {
  const nested =
    level < MAX_LIST_LEVELS
      ? z.array(listItem(level + 1))
      : z
          .array(z.string())
          .max(0)
          .openapi({ description: `No deeper level (at most ${MAX_LIST_LEVELS})` });
  return z.union([
    InlineText,
    z.looseObject({
      content: InlineText.optional(),
      text: InlineText.optional(),
      meta: ItemMeta.optional(),
      items: nested.optional(),
    }),
  ]);
}

const List = z.looseObject({
  style: z
    .enum(["ordered", "unordered", "checklist"])
    .optional()
    .openapi({ description: "Default unordered" }),
  meta: ListMeta.optional(),
  items: z.array(listItem(1)),
});

const Quote = z.looseObject({
  text: InlineText,
  caption: InlineText.optional(),
  alignment: z.enum(["left", "center"]).optional(),
});

const Code = z.looseObject({ code: Text.openapi({ description: "Shown as written (escaped)" }) });

const Delimiter = z.looseObject({});

const ImageFile = freeForm(
  z.looseObject({
    url: Text.openapi({
      description:
        "http(s) URL; the platform's own media URL (MEDIA_PUBLIC_BASE/sites/{site}/{id}…) renders like media_id",
    }),
    width: Dimension.optional(),
    height: Dimension.optional(),
  }),
);

const Image = z
  .looseObject({
    file: ImageFile.optional(),
    url: Text.optional().openapi({ description: "Simple-image form of file.url" }),
    media_id: z
      .string()
      .max(36)
      .optional()
      .openapi({ description: "A media asset of the site: responsive <picture> from its variants" }),
    caption: InlineText.optional().openapi({ description: "Also the image's alt text" }),
    withBorder: z.boolean().optional(),
    stretched: z.boolean().optional(),
    withBackground: z.boolean().optional(),
    width: Dimension.optional(),
    height: Dimension.optional(),
  })
  .refine((d) => d.media_id !== undefined || d.file !== undefined || d.url !== undefined, {
    message: "an image needs file.url, url or media_id",
  });

const EmbedDimension = z.int().min(1).max(MAX_DIMENSION).nullable().optional();

const Embed = z.looseObject({
  service: Text.optional().openapi({ description: "e.g. youtube, vimeo, twitter" }),
  source: Text.openapi({ description: "The page embedded (http(s))" }),
  embed: Text.optional().openapi({ description: "The player's URL (never framed here)" }),
  width: EmbedDimension,
  height: EmbedDimension,
  caption: InlineText.optional(),
});

const Table = z.looseObject({
  withHeadings: z.boolean().optional().openapi({ description: "The first row is the heading" }),
  stretched: z.boolean().optional(),
  content: z.array(z.array(z.union([InlineText, z.number()]))).openapi({ description: "Rows of cells" }),
});

/** A platform block's data: the platform's editors define it; kept in the source, never rendered here. */
function platformData(what: string) {
  return freeForm(
    z.record(z.string(), z.unknown()).openapi({ description: `${what}: free-form, kept as stored` }),
  );
}

/** One catalogue entry: the type, its `data` schema and how content_html shows it (the README's table). */
interface BlockEntry {
  data: z.ZodType;
  renders: string;
}

export const BLOCK_CATALOGUE = {
  paragraph: { data: Paragraph, renders: "`<p>` (inline HTML sanitized)" },
  header: { data: Header, renders: "`<h1>`..`<h6>` (`level`, default 2)" },
  list: {
    data: List,
    renders:
      "`<ol>` (`start`, `type` from `meta`) or `<ul>`; nested `items` as nested lists (10 levels); checklist items with ☑/☐",
  },
  quote: { data: Quote, renders: "`<blockquote><p>` with `<cite>` from `caption`" },
  code: { data: Code, renders: "`<pre><code>` (escaped)" },
  delimiter: { data: Delimiter, renders: "`<hr>`" },
  image: {
    data: Image,
    renders:
      "`<figure>`: a platform image (`media_id`, or `file.url` on the site's own media) as `<picture>` with `srcset`; any other http(s) URL as a plain `<img>`; `<figcaption>` from `caption` (else the media's caption); alt from the media's alt text (else `caption`)",
  },
  embed: { data: Embed, renders: "a link to `source` (no frame)" },
  table: { data: Table, renders: "`<table>` (`<thead>` when `withHeadings`)" },
  ad: { data: platformData("An ad slot"), renders: "not rendered (omitted from content_html)" },
  product_card: { data: platformData("A product card"), renders: "not rendered (omitted from content_html)" },
  story_page: { data: platformData("A story page"), renders: "not rendered (omitted from content_html)" },
  related_articles: {
    data: platformData("Related articles"),
    renders: "not rendered (omitted from content_html)",
  },
} as const satisfies Record<string, BlockEntry>;

export type BlockType = keyof typeof BLOCK_CATALOGUE;

export const BLOCK_TYPES = Object.keys(BLOCK_CATALOGUE) as BlockType[];

export function isBlockType(type: string): type is BlockType {
  return Object.hasOwn(BLOCK_CATALOGUE, type);
}

function componentName(type: string): string {
  return `${type.replace(/(^|_)([a-z])/g, (_m, _u, c: string) => c.toUpperCase())}Block`;
}

function blockSchema<T extends BlockType>(type: T) {
  return z
    .looseObject({
      id: z.string().max(MAX_BLOCK_ID).optional().openapi({ description: "The editor's block id" }),
      type: z.literal(type),
      data: BLOCK_CATALOGUE[type].data,
      tunes: freeForm(
        z.record(z.string(), z.unknown()).openapi({ description: "Block tunes, by tune name (Editor.js)" }),
      ).optional(),
    })
    .openapi(componentName(type));
}

/** Each type's block schema (`{id?, type, data, tunes?}`), what a block of that type is checked against. */
export const BLOCK_SCHEMAS = Object.fromEntries(BLOCK_TYPES.map((t) => [t, blockSchema(t)])) as {
  [T in BlockType]: ReturnType<typeof blockSchema<T>>;
};

const BlockSchema = z.discriminatedUnion(
  "type",
  BLOCK_TYPES.map((t) => BLOCK_SCHEMAS[t]) as unknown as [
    ReturnType<typeof blockSchema>,
    ...ReturnType<typeof blockSchema>[],
  ],
);

/** The Editor.js document: `{time?, blocks, version?}`. */
export const BlocksDocumentSchema = z
  .looseObject({
    time: z.number().optional().openapi({ description: "Editor.js save time (ms)" }),
    blocks: z.array(BlockSchema),
    version: z.string().max(100).optional().openapi({ description: "Editor.js version" }),
  })
  .openapi("BlocksDocument", {
    description:
      "An Editor.js document. A write (POST, PATCH) refuses a block type outside this catalogue; a field a block does not declare is kept as sent and listed in the answer's `warnings`. An import keeps unknown types and reports them.",
  });
