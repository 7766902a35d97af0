import { describe, expect, it } from "vitest";
import { expectOfflineReference, expectOnlyTheScriptServed, get } from "../support/api-docs-checks";

const SERVICES = ["identity", "content", "sites"] as const;

describe("the gateway's API references", () => {
  it("GET /docs links the three references and their OpenAPI documents, under a strict CSP", async () => {
    const res = await get("/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
    const html = await res.text();
    const links = [...html.matchAll(/<a [^>]*href="([^"]+)"/g)].map(([, href]) => href);
    expect(links).toEqual(SERVICES.flatMap((s) => [`/docs/${s}`, `/docs/${s}/openapi.json`]));
    expect(html).not.toContain("<script");
  });

  it.each(SERVICES)("GET /docs/%s is the service's reference with its document proxied", async (service) => {
    await expectOfflineReference(`/docs/${service}`, `/docs/${service}/openapi.json`);
    const doc = (await (await get(`/docs/${service}/openapi.json`)).json()) as {
      info: { title: string };
      paths: Record<string, unknown>;
    };
    expect(doc.info.title.toLowerCase()).toMatch(new RegExp(`^${service}`));
    // The documents' paths are the edge's paths: a reader's "try it" reaches the service through here.
    expect(Object.keys(doc.paths).length).toBeGreaterThan(10);
  });

  it("an unknown reference is a problem+json 404; nothing else of a service is reached under /docs", async () => {
    for (const path of ["/docs/unknown", "/docs/unknown/openapi.json", "/docs/identity/health"]) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
    }
    await expectOnlyTheScriptServed();
  });
});
