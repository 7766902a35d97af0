/**
 * What a write does with a `blocks_json` document (issue 33, "Blocks"), after ./check.ts inspected it:
 *
 * - `POST /v1/posts` refuses a block type outside the catalogue with 422 UNKNOWN_FIELD (the spec lists
 *   422 for that operation's unprocessable input), `PATCH` with 400 BAD_REQUEST; both name the block's
 *   path and the known types in `details` (`{path, known_types}`);
 * - a known block whose data breaks its schema is 400 INVALID_BLOCKS with `details.path`, as is a body that
 *   is not a document at all;
 * - an import (old exports, other tools) keeps unknown types and malformed known blocks as they are and
 *   reports them on its line; only a body that is not a document fails the line;
 * - a field a known block does not declare is stored as sent and listed in the answer's `warnings`.
 */
import { fail, problem } from "../../errors";
import { type BlockProblem, type BlockWarning, inspectBlocks, knownBlockTypes } from "./check";

/** Which write: each refuses an unknown type its own way (an import keeps it). */
type BlocksWrite = "create" | "update" | "import";

export interface CheckedBlocks {
  /** The JSON text to store (the document exactly as sent); null when absent. */
  text: string | null;
  /** Fields stored as sent that no block declares (the answer's `warnings`). */
  warnings: BlockWarning[];
  /** Import only: blocks of types outside the catalogue, kept (never rendered). */
  unknownTypes: { path: string; type: string }[];
  /** Import only: known blocks that break their schema, kept as they are. */
  invalid: BlockProblem[];
}

const MAX_BLOCKS_BYTES = 1024 * 1024;

const DOCUMENT_FORM = 'blocks_json must be an Editor.js document: {"blocks":[{"type","data"}]}.';

/** Common names of other editors for the catalogue's types (a refusal suggests the type meant). */
const LIKELY: Record<string, string> = {
  heading: "header",
  h1: "header",
  h2: "header",
  h3: "header",
  title: "header",
  text: "paragraph",
  p: "paragraph",
  para: "paragraph",
  ul: "list",
  ol: "list",
  checklist: "list",
  img: "image",
  picture: "image",
  photo: "image",
  blockquote: "quote",
  hr: "delimiter",
  divider: "delimiter",
  separator: "delimiter",
  video: "embed",
  youtube: "embed",
  pre: "code",
};

function blockIndex(path: string): number {
  return Number(path.split(".")[2]);
}

function unknownTypeRefusal(write: "create" | "update", at: { path: string; type: string }) {
  const known = knownBlockTypes();
  const hint = Object.hasOwn(LIKELY, at.type.toLowerCase())
    ? ` (did you mean "${LIKELY[at.type.toLowerCase()]}"?)`
    : "";
  return problem(write === "create" ? "UNKNOWN_FIELD" : "BAD_REQUEST", {
    detail: `Unknown block type "${at.type}" at ${at.path}${hint}; the known types are ${known.join(", ")}.`,
    details: { path: at.path, known_types: known },
  });
}

/** Checks `value` for a write and returns what to store and what to tell; throws the write's refusal. */
export function checkBlocks(value: unknown, write: BlocksWrite): CheckedBlocks {
  if (value === null || value === undefined)
    return { text: null, warnings: [], unknownTypes: [], invalid: [] };
  const inspection = inspectBlocks(value);
  if (inspection.shape) {
    const { path, message } = inspection.shape;
    throw problem("INVALID_BLOCKS", { detail: `${path}: ${message}. ${DOCUMENT_FORM}`, details: { path } });
  }
  if (write !== "import") {
    const unknown = inspection.unknownTypes[0];
    const invalid = inspection.invalid[0];
    if (unknown && (!invalid || blockIndex(unknown.path) <= blockIndex(invalid.path)))
      throw unknownTypeRefusal(write, unknown);
    if (invalid)
      fail("INVALID_BLOCKS", {
        detail: `${invalid.path}: ${invalid.message}`,
        details: { path: invalid.path },
      });
  }
  const text = JSON.stringify(value);
  if (text.length > MAX_BLOCKS_BYTES) fail("PAYLOAD_TOO_LARGE", "blocks_json is larger than 1 MiB.");
  return {
    text,
    warnings: inspection.warnings,
    unknownTypes: inspection.unknownTypes,
    invalid: inspection.invalid,
  };
}
