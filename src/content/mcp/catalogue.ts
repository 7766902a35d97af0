/**
 * The tool catalogue, read from the service's OpenAPI document (generated from the routes' zod schemas):
 * one property per path, query and header parameter of the operation (header names with `_`: `if-match`
 * is `if_match`), and the JSON body as one property (`post`, `changes`, `seo`) whose schema is the body's
 * component with every `$ref` inlined, so a tool's schema is self-contained and cannot drift from the
 * route that validates it.
 */
import type { JSONObject, Tool } from "@modelcontextprotocol/server";
import { base64Length } from "../../lib/body-caps";
import { SCOPES, type Scope } from "../keys/scopes";
import { UPLOAD_MAX_BYTES } from "../media/upload";
import type { Argument, ToolDefinition, ToolSpec } from "./tools";

type JsonSchema = Record<string, unknown>;

interface OpenApiParameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: JsonSchema;
}

interface OpenApiOperation {
  summary?: string;
  description?: string;
  parameters?: OpenApiParameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> };
  security?: Record<string, string[]>[];
}

/** The parts of an OpenAPI 3.1 document the catalogue reads. */
export interface OpenApiDocument {
  paths?: Record<string, Record<string, OpenApiOperation> | undefined>;
  components?: { schemas?: Record<string, JsonSchema> };
}

/** Query parameters no tool offers: `key` carries a pk_ key in a URL, and the MCP server takes ck_ keys only. */
const SKIPPED_QUERY = new Set(["key"]);

/**
 * Query parameters the HTTP API reads as digits (its schema types every query value as a string): a tool
 * types them as integers, so an agent sends `limit: 10`, not `"10"`; the request carries them as text.
 */
const NUMERIC_QUERY = new Set(["limit", "offset", "days"]);

function numeric(schema: unknown): JsonSchema {
  const description = (schema as { description?: unknown } | null)?.description;
  return { type: "integer", ...(typeof description === "string" ? { description } : {}) };
}

const URL_ARGUMENT_SCHEMA: JsonSchema = {
  type: "string",
  format: "uri",
  description:
    "http(s) URL of the image (PNG, JPEG, GIF, WebP, AVIF, ICO or SVG). Fetched by the platform's image ingest: public hosts only, no credentials, at most 5 redirects, 8 s.",
};

const BYTES_ARGUMENT_SCHEMA: JsonSchema = {
  type: "string",
  contentEncoding: "base64",
  maxLength: base64Length(UPLOAD_MAX_BYTES),
  description: `The image file in base64 (RFC 4648, padded, no line breaks), at most ${UPLOAD_MAX_BYTES} bytes (8 MiB) decoded: PNG, JPEG, GIF, WebP, AVIF, ICO or SVG, its type judged from the bytes.`,
};

const COMPONENT_REF = /^#\/components\/schemas\/(.+)$/;

/** A schema with every `#/components/schemas/…` reference replaced by the component (a cycle is a bug: thrown). */
export function inlineRefs(
  schema: unknown,
  components: Record<string, JsonSchema>,
  seen: string[] = [],
): unknown {
  if (Array.isArray(schema)) return schema.map((item) => inlineRefs(item, components, seen));
  if (schema === null || typeof schema !== "object") return schema;
  const { $ref, ...rest } = schema as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  if (typeof $ref === "string") {
    const name = COMPONENT_REF.exec($ref)?.[1];
    const target = name === undefined ? undefined : components[name];
    if (name === undefined || target === undefined || seen.includes(name)) {
      throw new Error(`MCP catalogue: cannot inline ${$ref}`);
    }
    Object.assign(out, inlineRefs(target, components, [...seen, name]));
  }
  for (const [key, value] of Object.entries(rest)) out[key] = inlineRefs(value, components, seen);
  return out;
}

function operationOf(document: OpenApiDocument, spec: ToolSpec): OpenApiOperation {
  const operation = document.paths?.[spec.path]?.[spec.method.toLowerCase()];
  if (!operation)
    throw new Error(`MCP catalogue: ${spec.method} ${spec.path} is not in the OpenAPI document`);
  return operation;
}

/** The operation's `apiKey` requirements (pk_-only alternatives are no way in for an MCP caller). */
function scopeSets(operation: OpenApiOperation): Scope[][] {
  const known = new Set<string>(SCOPES);
  return (operation.security ?? []).flatMap((requirement) => {
    const scopes = requirement.apiKey;
    if (scopes === undefined) return [];
    if (!scopes.every((s) => known.has(s)))
      throw new Error(`MCP catalogue: unknown scope in ${scopes.join(",")}`);
    return [scopes as Scope[]];
  });
}

interface InputParts {
  properties: Record<string, unknown>;
  required: string[];
  arguments: Record<string, Argument>;
}

function addArgument(parts: InputParts, name: string, argument: Argument, schema: unknown) {
  parts.properties[name] = schema;
  parts.arguments[name] = argument;
  if (argument.required) parts.required.push(name);
}

function addParameters(
  parts: InputParts,
  operation: OpenApiOperation,
  components: Record<string, JsonSchema>,
) {
  for (const p of operation.parameters ?? []) {
    if (p.in === "query" && SKIPPED_QUERY.has(p.name)) continue;
    if (p.in !== "path" && p.in !== "query" && p.in !== "header") continue;
    const name = p.in === "header" ? p.name.toLowerCase().replace(/-/g, "_") : p.name;
    const argument: Argument = { in: p.in, name: p.name, required: p.required === true };
    const schema = inlineRefs(p.schema ?? {}, components);
    addArgument(
      parts,
      name,
      argument,
      p.in === "query" && NUMERIC_QUERY.has(p.name) ? numeric(schema) : schema,
    );
  }
}

function addBody(
  parts: InputParts,
  spec: ToolSpec,
  operation: OpenApiOperation,
  components: Record<string, JsonSchema>,
) {
  const body = operation.requestBody;
  if (spec.fileFromUrl || spec.fileFromBytes) {
    const form = body?.content?.["multipart/form-data"]?.schema;
    const fields = (form?.properties ?? {}) as Record<string, unknown>;
    const required = new Set((form?.required ?? []) as string[]);
    if (spec.fileFromUrl)
      addArgument(parts, "url", { in: "url", name: "file", required: true }, URL_ARGUMENT_SCHEMA);
    else addArgument(parts, "data", { in: "bytes", name: "file", required: true }, BYTES_ARGUMENT_SCHEMA);
    for (const [field, schema] of Object.entries(fields)) {
      if (field === "file") continue;
      const argument: Argument = { in: "form", name: field, required: required.has(field) };
      addArgument(parts, field, argument, inlineRefs(schema, components));
    }
    return;
  }
  if (spec.body === undefined) return;
  const schema = body?.content?.["application/json"]?.schema;
  if (!schema) throw new Error(`MCP catalogue: ${spec.method} ${spec.path} has no JSON body`);
  const argument: Argument = { in: "body", name: spec.body, required: body?.required === true };
  addArgument(parts, spec.body, argument, inlineRefs(schema, components));
}

function definition(document: OpenApiDocument, spec: ToolSpec): ToolDefinition {
  const operation = operationOf(document, spec);
  const components = document.components?.schemas ?? {};
  const parts: InputParts = { properties: {}, required: [], arguments: {} };
  addParameters(parts, operation, components);
  addBody(parts, spec, operation, components);
  const reference = [operation.summary, operation.description].filter(Boolean).join(". ");
  const tool: Tool = {
    name: spec.name,
    title: spec.title,
    description: `${spec.intro}\n\nAPI: ${spec.method} ${spec.path}${reference ? ` (${reference})` : ""}`,
    inputSchema: {
      type: "object",
      // The OpenAPI document is JSON (generated from the routes' zod schemas), so each schema is a JSON object.
      properties: parts.properties as JSONObject,
      ...(parts.required.length > 0 ? { required: parts.required } : {}),
      additionalProperties: false,
    },
    annotations: { title: spec.title, ...spec.annotations },
  };
  return { spec, tool, arguments: parts.arguments, scopeSets: scopeSets(operation) };
}

/** Every tool of `specs`, from the document (throws when an operation is missing: a bug, caught by tests). */
export function toolCatalogue(document: OpenApiDocument, specs: readonly ToolSpec[]): ToolDefinition[] {
  return specs.map((spec) => definition(document, spec));
}
