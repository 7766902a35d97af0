/**
 * The declared settings schema (schema.ts) as the JSON Schema the OpenAPI document shows for `settings`, so a
 * client sees every key the document accepts and which parts are free-form (issue 33: every object of a request
 * body refuses or declares the fields it does not list). Declared objects say `additionalProperties: false`
 * (sites answers 400 SETTINGS_UNKNOWN_KEY); free-form values and maps say what they take. The walk in
 * declared.ts, not this schema, is what judges a write: a key stored with the same value passes there.
 */
import { SETTINGS_SCHEMA, type SettingsNode } from "./schema";

type JsonSchema = Record<string, unknown>;

const LEAVES: Record<string, JsonSchema> = {
  text: { type: "string" },
  link: { type: "string", description: "http(s), a path of the site, mailto:, tel: or #fragment" },
  asset_url: { type: "string", description: "http(s) or a path of the site" },
  strict_url: { type: "string", description: "https://host/path or a path of the site" },
  svg: { type: "string", description: "SVG markup, sanitized on write" },
  markup: { type: "string", description: "Markup or script: needs the code permission (site:code scope)" },
  color: { type: "string", description: "A hex color" },
  timestamp: { type: "string", description: "RFC 3339" },
  integer: { type: "integer" },
  number: { type: "number" },
  boolean: { type: "boolean" },
};

/** JSON Schema of one node; `null` stands for an absent value on every kind, as the walk treats it. */
export function nodeJsonSchema(node: SettingsNode): JsonSchema {
  switch (node.kind) {
    case "open":
      return { description: "Free-form JSON (a markup-named key inside needs the code permission)" };
    case "enum":
      return { type: ["string", "null"], enum: [...node.values, null] };
    case "list":
      return { type: ["array", "null"], items: nodeJsonSchema(node.items) };
    case "map":
      return { type: ["object", "null"], additionalProperties: nodeJsonSchema(node.values) };
    case "object":
      return {
        type: ["object", "null"],
        properties: Object.fromEntries(
          Object.entries(node.fields).map(([key, child]) => [key, nodeJsonSchema(child)]),
        ),
        additionalProperties: node.rest ? nodeJsonSchema(node.rest) : false,
      };
    case "tagged":
      return {
        oneOf: Object.entries(node.variants).map(([variant, fields]) => ({
          type: "object",
          properties: {
            ...Object.fromEntries(Object.entries(fields).map(([key, child]) => [key, nodeJsonSchema(child)])),
            [node.tag]: { const: variant },
          },
          required: [node.tag],
          additionalProperties: false,
        })),
      };
    default: {
      const leaf = LEAVES[node.kind] ?? {};
      const max = "max" in node && node.max !== undefined ? { maxLength: node.max } : {};
      const type = leaf.type as string;
      return { ...leaf, ...max, type: [type, "null"] };
    }
  }
}

/** The whole settings document's schema, for the `settings` member of CreateSite and UpdateSite. */
export function settingsJsonSchema(description: string): JsonSchema {
  return { ...nodeJsonSchema(SETTINGS_SCHEMA), type: "object", description };
}
