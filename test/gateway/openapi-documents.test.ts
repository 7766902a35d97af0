/**
 * Issue 23 item 4: the three OpenAPI documents as the gateway hands them out. Every operation states its
 * security (schemes the document declares; `[]` for a public one) and at least one tag (the sites
 * reference is no flat list); `servers` names the gateway, so code samples are absolute; every route the
 * edge sends with a session declares the staff Bearer; each version is its spec's; and each reference's
 * "Try it" preselects the document's first security scheme (never an empty `Authorization: Bearer `).
 */
import { describe, expect, it } from "vitest";
import { routeFor } from "../../src/gateway/routes";
import { get } from "../support/api-docs-checks";

interface Operation {
  security?: Record<string, string[]>[];
  tags?: string[];
}
interface Document {
  info: { version: string };
  servers?: { url: string }[];
  tags?: { name: string }[];
  components?: { securitySchemes?: Record<string, unknown> };
  paths: Record<string, Record<string, Operation>>;
}

const VERSIONS = { identity: "0.1.0", content: "1.0.0", sites: "0.1.0" } as const;
const FIRST_SCHEME = { identity: "bearerAuth", content: "publicKeyQuery", sites: "bearerAuth" } as const;
const SERVICES = Object.keys(VERSIONS) as (keyof typeof VERSIONS)[];
const METHODS = new Set(["get", "put", "post", "delete", "patch"]);

async function documentOf(service: string): Promise<Document> {
  const res = await get(`/docs/${service}/openapi.json`);
  expect(res.status).toBe(200);
  return (await res.json()) as Document;
}

function operations(doc: Document): [string, string, Operation][] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.has(method))
      .map(([method, op]) => [path, method, op] as [string, string, Operation]),
  );
}

describe("the OpenAPI documents through the gateway", () => {
  it.each(SERVICES)("%s: security on every operation, from the document's own schemes", async (service) => {
    const doc = await documentOf(service);
    const schemes = new Set(Object.keys(doc.components?.securitySchemes ?? {}));
    expect(schemes.size).toBeGreaterThan(0);
    for (const [path, method, op] of operations(doc)) {
      expect(Array.isArray(op.security), `${method} ${path}`).toBe(true);
      for (const requirement of op.security ?? []) {
        for (const name of Object.keys(requirement)) expect(schemes, `${method} ${path}`).toContain(name);
      }
      if (service !== "identity" && routeFor(path)?.requiresSession) {
        expect(op.security, `${method} ${path} is sent with a session`).toContainEqual({ bearerAuth: [] });
      }
    }
  });

  it.each(SERVICES)("%s: every operation is tagged, and the document lists its tags", async (service) => {
    const doc = await documentOf(service);
    const listed = new Set((doc.tags ?? []).map((t) => t.name));
    const used = new Set<string>();
    for (const [path, method, op] of operations(doc)) {
      expect(op.tags?.length ?? 0, `${method} ${path}`).toBeGreaterThan(0);
      for (const t of op.tags ?? []) used.add(t);
    }
    expect([...used].filter((t) => !listed.has(t))).toEqual([]);
    expect(used.size).toBeGreaterThan(4);
  });

  it("sites: the spec's sections, not one flat list; by-host and the probes are public", async () => {
    const doc = await documentOf("sites");
    const tagOf = (path: string, method: string) => doc.paths[path]?.[method]?.tags?.[0];
    expect(tagOf("/api/v1/sites", "get")).toBe("Sites");
    expect(tagOf("/api/v1/sites/{id}/applets", "get")).toBe("Applets");
    expect(tagOf("/api/v1/sites/{id}/legal/catalogo", "get")).toBe("Legal pages");
    expect(tagOf("/api/v1/platform/sites", "get")).toBe("Operator console: sites");
    expect(doc.paths["/api/v1/sites/by-host"]?.get?.security).toEqual([]);
    expect(doc.paths["/health"]?.get?.security).toEqual([]);
    expect(doc.paths["/api/v1/sites/{id}"]?.patch?.security).toEqual([{ bearerAuth: [] }]);
  });

  it("content: only the probes, the media stand-in, the anonymous form routes, preview links, feeds and /v1/mcp's RFC 9728 metadata are public", async () => {
    const doc = await documentOf("content");
    const open = operations(doc)
      .filter(([, , op]) => op.security?.length === 0)
      .map(([path, method]) => `${method.toUpperCase()} ${path}`)
      .sort();
    expect(open).toEqual([
      "GET /.well-known/oauth-protected-resource",
      "GET /.well-known/oauth-protected-resource/v1/mcp",
      "GET /health",
      "GET /media/{key}",
      "GET /metrics",
      "GET /ready",
      "GET /v1/preview/{token}",
      "GET /v1/sites/{site_id}/forms/{form_id}",
      "GET /v1/sites/{site}/feed.xml",
      "GET /v1/sites/{site}/sitemap.xml",
      "POST /v1/sites/{site_id}/forms/{form_id}/submissions",
    ]);
  });

  it.each(SERVICES)("%s: servers names the gateway; the version is the spec's", async (service) => {
    const doc = await documentOf(service);
    expect(doc.servers?.[0]?.url).toBe("http://docs.test");
    expect(doc.info.version).toBe(VERSIONS[service]);
  });

  it.each(SERVICES)("%s: the reference's Try it preselects the document's first scheme", async (service) => {
    const doc = await documentOf(service);
    expect(Object.keys(doc.components?.securitySchemes ?? {})[0]).toBe(FIRST_SCHEME[service]);
    const page = await (await get(`/docs/${service}`)).text();
    const raw = /data-configuration="([^"]*)"/.exec(page)?.[1] ?? "{}";
    const configuration = JSON.parse(raw.replaceAll("&quot;", '"')) as {
      authentication?: { preferredSecurityScheme?: string };
    };
    expect(configuration.authentication?.preferredSecurityScheme).toBe(FIRST_SCHEME[service]);
  });

  it("content: the preselected scheme is the query key, so Try it sends no empty Authorization over ?key=", async () => {
    const doc = await documentOf("content");
    expect(doc.components?.securitySchemes?.publicKeyQuery).toMatchObject({
      type: "apiKey",
      in: "query",
      name: "key",
    });
    // Every operation a pk_ key may call lists the query form beside the header form.
    for (const [path, method, op] of operations(doc)) {
      const header = op.security?.find((r) => "publicReadKey" in r);
      if (header)
        expect(op.security, `${method} ${path}`).toContainEqual({ publicKeyQuery: header.publicReadKey });
    }
  });
});
