/**
 * Typed as they are (issue 33): in the three OpenAPI documents the gateway hands out, a query parameter that
 * carries a number is `type: integer` (with its bounds), a flag is `boolean` and a choice is an `enum`, so the
 * typed client (packages/client) takes `limit: 5`. The sweep fails on a parameter named like a number or a
 * flag that is typed `string`, and on a description that lists the values ("One of …") without an `enum`.
 */
import { describe, expect, it } from "vitest";
import { get } from "../support/api-docs-checks";

interface Parameter {
  name: string;
  in: string;
  schema?: {
    type?: string;
    enum?: string[];
    minimum?: number;
    maximum?: number;
    pattern?: string;
    description?: string;
  };
  description?: string;
}
interface Document {
  paths: Record<string, Record<string, { parameters?: Parameter[] }>>;
}

const SERVICES = ["identity", "content", "sites"] as const;
type Service = (typeof SERVICES)[number];

const NUMBER_NAMED =
  /^(limit|days|offset|page|per_page|page_size|size|count|max|min|top)$|_(count|days|limit|size)$/;
const FLAG_NAMED = /^(include|keep|is|has|with|only|show)_/;

async function queryParameters(service: Service) {
  const res = await get(`/docs/${service}/openapi.json`);
  expect(res.status).toBe(200);
  const doc = (await res.json()) as Document;
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).flatMap(([method, op]) =>
      (op.parameters ?? [])
        .filter((p) => p.in === "query")
        .map((p) => ({ at: `${service} ${method.toUpperCase()} ${path} ?${p.name}`, ...p })),
    ),
  );
}

function schemaOf(params: Awaited<ReturnType<typeof queryParameters>>, at: string) {
  const found = params.find((p) => p.at === at);
  expect(found, at).toBeDefined();
  return found?.schema;
}

describe("query parameters carry their real types", () => {
  it.each(SERVICES)("%s: nothing named like a number or a flag is typed string", async (service) => {
    const offenders = (await queryParameters(service))
      .filter(
        (p) =>
          (NUMBER_NAMED.test(p.name) && p.schema?.type !== "integer" && p.schema?.type !== "number") ||
          (FLAG_NAMED.test(p.name) && p.schema?.type !== "boolean"),
      )
      .map((p) => `${p.at}: ${JSON.stringify(p.schema)}`);
    expect(offenders).toEqual([]);
  });

  it.each(SERVICES)("%s: a parameter whose values are listed is an enum", async (service) => {
    const offenders = (await queryParameters(service))
      .filter((p) => /^(one of|asc or desc|clean, spam)/i.test(p.schema?.description ?? p.description ?? ""))
      .filter((p) => !p.schema?.enum)
      .map((p) => p.at);
    expect(offenders).toEqual([]);
  });

  it("integers with the bounds their parsers enforce", async () => {
    const params = (await Promise.all(SERVICES.map(queryParameters))).flat();
    const integers: [string, number, number, number | undefined][] = [
      ["content GET /v1/posts ?limit", 1, 50, 20],
      ["content GET /v1/search ?limit", 1, 50, 20],
      ["content GET /v1/posts/{reference}/revisions ?limit", 1, 50, 20],
      ["content GET /v1/media ?limit", 1, 500, 50],
      ["content GET /api/v1/sites/{site_id}/webhooks/{id}/deliveries ?limit", 1, 100, 20],
      ["content GET /v1/leads ?limit", 1, 100, 50],
      ["content GET /v1/analytics/summary ?days", 1, 365, 30],
      ["content GET /v1/analytics/posts ?days", 1, 365, 30],
      ["content GET /v1/analytics/posts ?limit", 1, 200, 50],
      ["content GET /v1/analytics/posts ?offset", 0, 1_000_000, 0],
      ["content GET /v1/export ?days", 1, 365, 30],
      ["sites GET /api/v1/sites ?limit", 1, 200, 50],
      ["sites GET /api/v1/platform/sites ?limit", 1, 200, 50],
      ["identity GET /api/v1/auth/events ?limit", 1, 100, undefined],
    ];
    for (const [at, minimum, maximum, byDefault] of integers) {
      expect(schemaOf(params, at), at).toMatchObject({
        type: "integer",
        minimum,
        maximum,
        ...(byDefault === undefined ? {} : { default: byDefault }),
      });
    }
  });

  it("flags are booleans and choices are enums", async () => {
    const params = (await Promise.all(SERVICES.map(queryParameters))).flat();
    expect(schemaOf(params, "identity DELETE /api/v1/auth/sessions ?keep_current")).toMatchObject({
      type: "boolean",
    });
    const enums: [string, string[]][] = [
      ["content GET /v1/leads ?status", ["clean", "spam", "all"]],
      ["content GET /v1/leads ?ordem", ["asc", "desc"]],
      ["content GET /v1/export ?status", ["clean", "spam", "all"]],
      ["content GET /v1/export ?format", ["ndjson", "csv"]],
      ["content GET /v1/export ?group", ["day", "path"]],
      ["sites GET /api/v1/sites ?status", ["active", "inactive", "archived"]],
      ["sites GET /api/v1/platform/sites ?status", ["active", "inactive", "archived", "deleted"]],
      ["sites GET /api/v1/sites/{id}/legal/catalogo ?perfil", ["pessoa_fisica", "empresa"]],
      [
        "sites GET /api/v1/sites/{id}/legal/catalogo ?setor",
        ["geral", "ecommerce", "saude", "educacao", "servicos"],
      ],
      ["sites GET /api/v1/sites/{id}/legal/catalogo ?jurisdiction", ["br", "eu", "uk", "us-ca"]],
    ];
    for (const [at, values] of enums) expect(schemaOf(params, at)?.enum, at).toEqual(values);
  });

  it("GET /v1/posts ?status stays a comma-separated string, its pattern the listable statuses", async () => {
    const params = await queryParameters("content");
    const status = schemaOf(params, "content GET /v1/posts ?status");
    expect(status?.type).toBe("string");
    const pattern = new RegExp(status?.pattern ?? "(?!)");
    for (const ok of ["draft", "draft,published", "scheduled, archived"]) expect(ok).toMatch(pattern);
    for (const bad of ["", "deleted", "draft,,published", "draft;published"])
      expect(bad).not.toMatch(pattern);
  });
});
