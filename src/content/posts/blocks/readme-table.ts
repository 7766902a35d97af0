/**
 * The block catalogue as the Markdown table of src/content/README.md ("Blocks"): type, data fields, how it
 * renders. test/structure/blocks-readme.unit.test.ts keeps the README equal to it, so it cannot drift.
 */
import type { z } from "@hono/zod-openapi";
import { BLOCK_CATALOGUE, BLOCK_TYPES, FREE_FORM } from "./catalogue";

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
}

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

/** `text`, `level?`, `meta.start?`, `items[]`: an object's fields, nested objects dotted, arrays as `[]`. */
function fieldsOf(schema: z.ZodType, prefix = ""): string[] {
  if (FREE_FORM.has(schema) && prefix === "") return ["free-form"];
  const def = defOf(schema);
  if (def.type !== "object" || !def.shape) return [];
  const out: string[] = [];
  for (const [name, child] of Object.entries(def.shape)) {
    let inner = child;
    let optional = false;
    while (["optional", "nullable", "default"].includes(defOf(inner).type)) {
      optional ||= defOf(inner).type !== "nullable";
      inner = defOf(inner).innerType!;
    }
    const mark = optional ? "?" : "";
    const kind = defOf(inner).type;
    if (kind === "object") {
      const nested = fieldsOf(inner, `${prefix}${name}.`);
      out.push(...nested.map((f) => (optional && !f.endsWith("?") ? `${f}?` : f)));
    } else out.push(`${prefix}${name}${kind === "array" ? "[]" : ""}${mark}`);
  }
  return out;
}

export function blockCatalogueTable(): string {
  const rows = BLOCK_TYPES.map((type) => {
    const entry = BLOCK_CATALOGUE[type];
    const fields = fieldsOf(entry.data);
    const shown =
      fields[0] === "free-form"
        ? "free-form"
        : fields.length > 0
          ? fields.map((f) => `\`${f}\``).join(", ")
          : "(none)";
    return `| \`${type}\` | ${shown} | ${entry.renders} |`;
  });
  return ["| type | data fields | renders as |", "|---|---|---|", ...rows].join("\n");
}
