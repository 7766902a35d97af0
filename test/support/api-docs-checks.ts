/**
 * What every API reference page must be (src/lib/api-docs.ts), checked in workerd against the Worker under
 * test: a strict CSP, no script but a same-origin `src` (the configuration rides on an inert JSON element),
 * no address of another host anywhere in the page, and the reference's script served by the Worker itself
 * with a JavaScript type.
 */
import { exports } from "cloudflare:workers";
import { expect } from "vitest";

const worker = (exports as unknown as { default: { fetch(request: Request): Promise<Response> } }).default;

/** A GET to the Worker under test's own entry point. */
export function get(path: string, headers: Record<string, string> = {}): Promise<Response> {
  return worker.fetch(new Request(`http://docs.test${path}`, { headers }));
}

function directives(csp: string): Record<string, string[]> {
  return Object.fromEntries(
    csp
      .split(";")
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...values]) => [name, values]),
  );
}

/** Checks the reference page at `page` (whose document is `spec`) and the script it loads. */
export async function expectOfflineReference(page: string, spec: string) {
  const res = await get(page);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/html/);
  const csp = directives(res.headers.get("content-security-policy") ?? "");
  expect(csp["default-src"]).toEqual(["'none'"]);
  expect(csp["script-src"]).toEqual(["'self'"]);
  expect(csp["connect-src"]).toEqual(["'self'"]);
  expect(csp["font-src"]).toEqual(["'self'"]);
  expect(csp["style-src"]).toEqual(["'self'", "'unsafe-inline'"]);
  const html = await res.text();
  // Nothing from elsewhere: no absolute or protocol-relative address in the page at all.
  expect(html).not.toMatch(/(?:https?:)?\/\/[a-z0-9]/i);

  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)].map(([, attrs, inner]) => ({
    src: /\bsrc="([^"]*)"/.exec(attrs ?? "")?.[1],
    type: /\btype="([^"]*)"/.exec(attrs ?? "")?.[1],
    attrs: attrs ?? "",
    inner: inner ?? "",
  }));
  for (const script of scripts) {
    // No inline code: an element without src is inert data, and empty.
    expect(script.inner.trim()).toBe("");
    if (!script.src) expect(script.type).toBe("application/json");
  }
  const sources = scripts.flatMap((s) => (s.src ? [s.src] : []));
  expect(sources).toEqual(["/docs/assets/api-reference.js"]);
  const config = scripts.find((s) => s.type === "application/json");
  expect(config?.attrs).toContain(`data-url="${spec}"`);
  const configuration = JSON.parse(
    (/data-configuration="([^"]*)"/.exec(config?.attrs ?? "")?.[1] ?? "{}").replaceAll("&quot;", '"'),
  ) as Record<string, unknown>;
  expect(configuration).toMatchObject({ withDefaultFonts: false, telemetry: false });

  const asset = await get(sources[0]!);
  expect(asset.status).toBe(200);
  expect(asset.headers.get("content-type")).toMatch(/^text\/javascript/);
  expect(asset.headers.get("x-content-type-options")).toBe("nosniff");
  const script = await asset.text();
  expect(script.length).toBeGreaterThan(1_000_000);
  expect(script).toContain("@scalar/api-reference");

  // The document the page names is there, same origin.
  const doc = await get(spec);
  expect(doc.status).toBe(200);
  expect(((await doc.json()) as { openapi: string }).openapi).toBe("3.1.0");
}

/** Only the reference's script is handed out: the rest of the package's directory is not served. */
export async function expectOnlyTheScriptServed() {
  for (const path of [
    "/standalone.js",
    "/standalone.esm.js",
    "/standalone.js.map",
    "/docs/assets/standalone.js",
  ]) {
    expect((await get(path)).status, path).toBe(404);
  }
}
