/**
 * A `blocks_json` document against the catalogue (./catalogue.ts): what a write refuses and what it keeps
 * with a warning. Pure; paths are JSON paths from the body (`blocks_json.blocks.3.type`).
 *
 * - not a document (`{"blocks":[{"type","data"}]}`): `shape`;
 * - a block type outside the catalogue: `unknownTypes` (a write refuses it; an import keeps it);
 * - a known block whose data breaks its schema: `invalid` (a write refuses it: INVALID_BLOCKS);
 * - a field a known block (or the document) does not declare: `warnings` (kept as sent).
 */
import type { z } from "@hono/zod-openapi";
import { BLOCK_SCHEMAS, BLOCK_TYPES, FREE_FORM, isBlockType } from "./catalogue";

export interface BlockWarning {
  path: string;
  message: string;
}

export interface BlockProblem {
  path: string;
  message: string;
}

export interface BlocksInspection {
  /** The document is not `{"blocks":[{"type","data"}]}` (first place it fails). */
  shape: BlockProblem | null;
  /** Blocks whose type the catalogue does not know, in document order. */
  unknownTypes: { path: string; type: string }[];
  /** Known blocks that break their schema (first issue of each), in document order. */
  invalid: BlockProblem[];
  warnings: BlockWarning[];
}

const ROOT = "blocks_json";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function join(base: string, path: readonly PropertyKey[]): string {
  return [base, ...path.map(String)].join(".");
}

/** The shape every block has, whatever its type (the renderer's parseBlocksDocument rule). */
function shapeProblem(doc: unknown): BlockProblem | null {
  if (!isRecord(doc)) return { path: ROOT, message: "blocks_json must be an object" };
  if (!Array.isArray(doc.blocks)) return { path: `${ROOT}.blocks`, message: "blocks must be an array" };
  for (const [i, block] of doc.blocks.entries()) {
    const at = `${ROOT}.blocks.${i}`;
    if (!isRecord(block)) return { path: at, message: "a block must be an object" };
    if (typeof block.type !== "string" || block.type === "")
      return { path: `${at}.type`, message: "type must be a non-empty string" };
    if (!isRecord(block.data)) return { path: `${at}.data`, message: "data must be an object" };
    if (block.id !== undefined && typeof block.id !== "string")
      return { path: `${at}.id`, message: "id must be a string" };
  }
  return null;
}

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
}

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

/**
 * The fields of `value` that `schema` does not declare, walking both together (`value` already passed
 * `schema`). Free-form objects (platform data, the image's `file`, `tunes`) declare everything.
 */
function undeclared(schema: z.ZodType, value: unknown, path: string, out: string[]): void {
  if (FREE_FORM.has(schema)) return;
  const def = defOf(schema);
  switch (def.type) {
    case "optional":
    case "nullable":
    case "default":
      if (def.innerType) undeclared(def.innerType, value, path, out);
      return;
    case "array":
      if (def.element && Array.isArray(value))
        value.forEach((item, i) => {
          undeclared(def.element!, item, `${path}.${i}`, out);
        });
      return;
    case "union": {
      const option = def.options?.find((o) => o.safeParse(value).success);
      if (option) undeclared(option, value, path, out);
      return;
    }
    case "object": {
      if (!isRecord(value) || !def.shape) return;
      for (const [key, child] of Object.entries(value)) {
        const declared = def.shape[key];
        if (declared) undeclared(declared, child, `${path}.${key}`, out);
        else out.push(`${path}.${key}`);
      }
      return;
    }
    default:
      return;
  }
}

const DOCUMENT_FIELDS = new Set(["time", "blocks", "version"]);

/** Everything a write needs to know of `doc` (never throws). */
export function inspectBlocks(doc: unknown): BlocksInspection {
  const inspection: BlocksInspection = { shape: null, unknownTypes: [], invalid: [], warnings: [] };
  inspection.shape = shapeProblem(doc);
  if (inspection.shape) return inspection;
  const document = doc as { blocks: Record<string, unknown>[] } & Record<string, unknown>;
  for (const key of Object.keys(document)) {
    if (!DOCUMENT_FIELDS.has(key))
      inspection.warnings.push({
        path: `${ROOT}.${key}`,
        message: `"${key}" is not a field of an Editor.js document: stored as sent, not used.`,
      });
  }
  for (const [i, block] of document.blocks.entries()) {
    const at = `${ROOT}.blocks.${i}`;
    const type = block.type as string;
    if (!isBlockType(type)) {
      inspection.unknownTypes.push({ path: `${at}.type`, type });
      continue;
    }
    const schema = BLOCK_SCHEMAS[type] as z.ZodType;
    const parsed = schema.safeParse(block);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      inspection.invalid.push({ path: join(at, issue.path), message: issue.message });
      continue;
    }
    const extra: string[] = [];
    undeclared(schema, block, at, extra);
    for (const path of extra) {
      const field = path.slice(path.lastIndexOf(".") + 1);
      inspection.warnings.push({
        path,
        message: `"${field}" is not a declared field of a ${type} block: stored as sent, not rendered.`,
      });
    }
  }
  return inspection;
}

/** The known types, for a refusal's `details.known_types`. */
export function knownBlockTypes(): string[] {
  return [...BLOCK_TYPES];
}
