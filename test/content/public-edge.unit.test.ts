/**
 * Content's public paths answer the public origin themselves (a route sends `/v1/*` and `/media/*` to
 * content without the gateway): what the gateway did for them is done by `servePublic`, before content's
 * app sees the request. The app here records what reached it.
 */
import { describe, expect, it } from "vitest";
import { MAX_PUBLIC_BODY_BYTES, servePublic } from "../../src/content/core/public-edge";
import { EDGE_HEADER_NAMES, EDGE_SIGNATURE_HEADER, EDGE_VERIFIED_HEADER } from "../../src/lib/edge";
import { signEdgeHeaders } from "../../src/lib/edge-trust";
import { ALLOWED_HEADERS, ALLOWED_METHODS } from "../../src/lib/public-cors";

const SECRET = "a-secret-only-the-gateway-and-the-services-hold-000";

function recording(answer: (r: Request) => Response = () => new Response("ok", { status: 200 })) {
  const seen: Request[] = [];
  const app = async (r: Request) => {
    seen.push(r);
    return answer(r);
  };
  return { seen, app };
}

describe("content's public paths on the public origin", () => {
  it("drop every edge header, even one the gateway signed, before the app sees the request", async () => {
    const headers = new Headers({
      "x-user-id": "usr_forged",
      "x-platform-operator": "admin",
      "x-org-memberships": "[]",
      [EDGE_VERIFIED_HEADER]: "1",
    });
    await signEdgeHeaders(
      SECRET,
      { service: "content", method: "GET", url: "https://api.test/v1/posts", body: null },
      headers,
    );
    expect(headers.has(EDGE_SIGNATURE_HEADER)).toBe(true);
    const { seen, app } = recording();
    await servePublic(new Request("https://api.test/v1/posts", { headers }), app);
    for (const name of [...EDGE_HEADER_NAMES, EDGE_SIGNATURE_HEADER, EDGE_VERIFIED_HEADER]) {
      expect(seen[0]!.headers.has(name), name).toBe(false);
    }
  });

  it("leave every other path as it came (the dashboard routes keep the gateway's signed headers)", async () => {
    const { seen, app } = recording();
    const request = new Request("https://api.test/api/v1/sites/s1/api-keys", {
      headers: { "x-user-id": "u" },
    });
    await servePublic(request, app);
    expect(seen[0]).toBe(request);
  });

  it("answer with the client's well-formed request id, the one the app logged, or a new one", async () => {
    const { seen, app } = recording();
    const id = "01JABCDEFGHJKMNPQRSTVWXYZ0";
    const echoed = await servePublic(
      new Request("https://api.test/v1/site", { headers: { "x-request-id": id } }),
      app,
    );
    expect(echoed.headers.get("x-request-id")).toBe(id);
    expect(seen[0]!.headers.get("x-request-id")).toBe(id);
    const fresh = await servePublic(
      new Request("https://api.test/v1/site", { headers: { "x-request-id": "not an id\u0001" } }),
      app,
    );
    const made = fresh.headers.get("x-request-id");
    expect(made).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(seen[1]!.headers.get("x-request-id")).toBe(made);
  });

  it("reflect the origin without credentials and expose the public headers; a refused pk_ origin gets no grant", async () => {
    const { app } = recording();
    const res = await servePublic(
      new Request("https://api.test/media/a.png", { headers: { origin: "https://blog.example" } }),
      app,
    );
    expect(res.headers.get("access-control-allow-origin")).toBe("https://blog.example");
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
    expect(res.headers.get("access-control-expose-headers")).toContain("X-Request-Id");
    expect(res.headers.get("vary")).toBe("Origin");

    const refusing = recording(
      () =>
        new Response("{}", {
          status: 403,
          headers: { vary: "Origin", "content-type": "application/problem+json" },
        }),
    );
    const refused = await servePublic(
      new Request("https://api.test/v1/posts?key=pk_abc", { headers: { origin: "https://evil.example" } }),
      refusing.app,
    );
    expect(refused.status).toBe(403);
    expect(refused.headers.get("access-control-allow-origin")).toBeNull();
    expect(refused.headers.get("vary")).toBe("Origin");
  });

  it("answer a preflight as the gateway did, except the anonymous POST routes, which answer their own", async () => {
    const { seen, app } = recording(
      () => new Response(null, { status: 204, headers: { "access-control-allow-methods": "POST" } }),
    );
    const preflight = (path: string) =>
      servePublic(
        new Request(`https://api.test${path}`, {
          method: "OPTIONS",
          headers: { origin: "https://blog.example", "access-control-request-method": "PATCH" },
        }),
        app,
      );
    const res = await preflight("/v1/posts/p1");
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-methods")).toBe(ALLOWED_METHODS);
    expect(res.headers.get("access-control-allow-headers")).toBe(ALLOWED_HEADERS);
    expect(res.headers.get("access-control-max-age")).toBe("600");
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9A-Z]{26}$/);
    expect(seen).toHaveLength(0);
    const own = await preflight("/v1/analytics/collect");
    expect(own.headers.get("access-control-allow-methods")).toBe("POST");
    expect(seen).toHaveLength(1);
  });

  it("refuse a body above 9 MiB with 413, declared or streamed, and pass one at the limit", async () => {
    const { seen, app } = recording();
    const declared = await servePublic(
      new Request("https://api.test/v1/import", {
        method: "POST",
        headers: { "content-length": String(MAX_PUBLIC_BODY_BYTES + 1) },
        body: "x",
      }),
      app,
    );
    expect(declared.status).toBe(413);
    expect(declared.headers.get("content-type")).toBe("application/problem+json");
    expect(((await declared.json()) as { code: string }).code).toBe("PAYLOAD_TOO_LARGE");
    const stream = (size: number) =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (let sent = 0; sent < size; sent += 1024 * 1024) {
            controller.enqueue(new Uint8Array(Math.min(1024 * 1024, size - sent)));
          }
          controller.close();
        },
      });
    const over = new Request("https://api.test/v1/import", {
      method: "POST",
      body: stream(MAX_PUBLIC_BODY_BYTES + 1),
      duplex: "half",
    } as RequestInit);
    expect((await servePublic(over, app)).status).toBe(413);
    expect(seen).toHaveLength(0);
    const at = new Request("https://api.test/v1/import", {
      method: "POST",
      body: stream(MAX_PUBLIC_BODY_BYTES),
      duplex: "half",
    } as RequestInit);
    expect((await servePublic(at, app)).status).toBe(200);
    expect((await seen[0]!.arrayBuffer()).byteLength).toBe(MAX_PUBLIC_BODY_BYTES);
  });
});
