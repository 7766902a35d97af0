import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import gateway from "../../src/gateway/index";
import { createServiceApp } from "../../src/lib/app";
import { readEdgeIdentity } from "../../src/lib/edge";
import { testIp } from "../support/client-ip";
import { BASE, call, createOrg, createSite, verifiedUser } from "../support/platform";

/**
 * Issue 31: the edge signature covers the service it was made for and the body. A request the gateway signed,
 * captured between the gateway and a service (the binding below records exactly what the gateway sends),
 * replayed to another service or with another body within the signature's minute, is anonymous there.
 * `serviceApp(name)` is a service as `createServiceApp` builds it (its `edgeTrust` first) with one route
 * that answers what the service believed about the caller and the body it read.
 */
describe("the edge signature covers the service and the body", () => {
  type Binding = "IDENTITY" | "CONTENT" | "SITES";
  const MiB = 1024 * 1024;

  async function sha256(bytes: Uint8Array | string): Promise<string> {
    const data = typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes;
    return [...new Uint8Array(await crypto.subtle.digest("SHA-256", data))]
      .map((b) => b.toString(16).padStart(2, "0"))
      .join("");
  }

  /** The gateway itself, with the binding to `upstream` recording each request it is handed. */
  async function capture(
    upstream: Binding,
    method: string,
    path: string,
    init: { token: string; body?: BodyInit; contentType?: string },
  ) {
    const seen: Request[] = [];
    const target = env[upstream];
    const recorder = {
      fetch: (request: Request) => {
        seen.push(request.clone());
        return target.fetch(request);
      },
    } as unknown as Fetcher;
    const headers: Record<string, string> = {
      authorization: `Bearer ${init.token}`,
      "cf-connecting-ip": testIp(),
    };
    if (init.contentType) headers["content-type"] = init.contentType;
    const res = await gateway.fetch(
      new Request(`${BASE}${path}`, { method, headers, body: init.body, duplex: "half" } as RequestInit),
      { ...env, [upstream]: recorder },
    );
    await res.arrayBuffer();
    const request = seen[0];
    if (!request) throw new Error(`the gateway forwarded nothing (${res.status})`);
    return request;
  }

  /**
   * `captured` sent again as someone between the gateway and a service would: same method, URL and
   * headers (signature included), the same body or `body`, framed with its true Content-Length.
   */
  function replay(captured: Request, body?: string | Uint8Array): Request {
    const headers = new Headers(captured.headers);
    if (body === undefined) return new Request(captured, { headers });
    headers.set(
      "content-length",
      String(typeof body === "string" ? new TextEncoder().encode(body).byteLength : body.byteLength),
    );
    return new Request(captured.url, { method: captured.method, headers, body });
  }

  function serviceApp(name: string) {
    const app = createServiceApp<{ Bindings: Cloudflare.Env }>(name);
    app.all("*", async (c) => {
      const bytes = new Uint8Array(await c.req.raw.arrayBuffer());
      const who = readEdgeIdentity(c.req.raw.headers);
      return c.json({
        verified: who.verified,
        user_id: who.userId,
        bytes: bytes.byteLength,
        sha256: await sha256(bytes),
      });
    });
    return async (request: Request) => {
      const res = await app.fetch(request, env);
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
  }

  async function ownerWithSite() {
    const owner = await verifiedUser();
    const org = await createOrg(owner.access_token);
    const site = await createSite(owner.access_token, org.id);
    return { owner, org, site };
  }

  it("a request signed for content replayed to identity or sites is anonymous there", async () => {
    const { owner, site } = await ownerWithSite();
    const captured = await capture("CONTENT", "GET", `/api/v1/sites/${site.id}/api-keys`, {
      token: owner.access_token,
    });
    const atContent = await serviceApp("content")(replay(captured));
    expect(atContent.body).toMatchObject({ verified: true, user_id: owner.user.id });
    for (const other of ["identity", "sites"]) {
      const elsewhere = await serviceApp(other)(replay(captured));
      expect(elsewhere.body, other).toMatchObject({ verified: false, user_id: null });
    }
    // And the other way: signed for sites, replayed to content.
    const forSites = await capture("SITES", "GET", `/api/v1/sites/${site.id}`, { token: owner.access_token });
    expect((await serviceApp("sites")(replay(forSites))).body).toMatchObject({ verified: true });
    expect((await serviceApp("content")(replay(forSites))).body).toMatchObject({
      verified: false,
      user_id: null,
    });
  });

  it("the same signature with another body is anonymous: content makes no key, sites renames nothing", async () => {
    const { owner, site } = await ownerWithSite();
    const asked = { name: "reader", kind: "secret", scopes: ["posts:read"] };
    const captured = await capture("CONTENT", "POST", `/api/v1/sites/${site.id}/api-keys`, {
      token: owner.access_token,
      body: JSON.stringify(asked),
      contentType: "application/json",
    });
    const wider = JSON.stringify({ ...asked, scopes: ["posts:write", "posts:read"] });
    const replayed = await env.CONTENT.fetch(replay(captured, wider));
    expect(replayed.status).toBe(401);
    const keys = await call<{ items: { scopes: string[] }[] }>("GET", `/api/v1/sites/${site.id}/api-keys`, {
      token: owner.access_token,
    });
    expect(keys.body.items.map((k) => k.scopes)).toEqual([["posts:read"]]);

    const renamed = await capture("SITES", "PATCH", `/api/v1/sites/${site.id}`, {
      token: owner.access_token,
      body: JSON.stringify({ name: "Renamed" }),
      contentType: "application/json",
    });
    // Same length, other bytes: the digest differs.
    expect((await env.SITES.fetch(replay(renamed, JSON.stringify({ name: "Hijackd" })))).status).toBe(404);
    expect((await env.SITES.fetch(replay(renamed, JSON.stringify({ name: "Taken over" })))).status).toBe(404);
    const read = await call<{ name: string }>("GET", `/api/v1/sites/${site.id}`, {
      token: owner.access_token,
    });
    expect(read.body.name).toBe("Renamed");
  });

  it("a JSON body of exactly 1 MiB is covered byte for byte; at 1 MiB + 1 byte by its length", async () => {
    const { owner, site } = await ownerWithSite();
    const json = (size: number, fill = "a") => `{"pad":"${fill.repeat(size - 10)}"}`;
    const content = serviceApp("content");
    for (const size of [MiB, MiB + 1]) {
      const body = json(size);
      expect(body.length).toBe(size);
      const captured = await capture("CONTENT", "POST", `/api/v1/sites/${site.id}/webhooks`, {
        token: owner.access_token,
        body,
        contentType: "application/json",
      });
      const same = await content(replay(captured, body));
      expect(same.body, `${size}`).toMatchObject({ verified: true, bytes: size, sha256: await sha256(body) });
      const longer = await content(replay(captured, json(size + 1)));
      expect(longer.body, `${size} longer`).toMatchObject({ verified: false, bytes: size + 1 });
      const sameLength = await content(replay(captured, json(size, "b")));
      expect(sameLength.body, `${size} same length`).toMatchObject({
        verified: size > MiB,
        bytes: size,
      });
    }
  });

  it("a non-JSON body is covered by its length: another length is anonymous, a body longer or shorter than its Content-Length is 400", async () => {
    const { owner, site } = await ownerWithSite();
    const bytes = crypto.getRandomValues(new Uint8Array(4096));
    const captured = await capture("CONTENT", "POST", `/api/v1/sites/${site.id}/forms`, {
      token: owner.access_token,
      body: bytes,
      contentType: "application/octet-stream",
    });
    const content = serviceApp("content");
    expect((await content(replay(captured, bytes))).body).toMatchObject({ verified: true, bytes: 4096 });
    expect((await content(replay(captured, bytes.subarray(1)))).body).toMatchObject({ verified: false });
    // The length the headers claim is the one signed, the body sent is longer or shorter: refused when read.
    const headers = new Headers(captured.headers);
    headers.set("content-length", "4096");
    for (const size of [8192, 1000]) {
      const lying = await content(
        new Request(captured.url, { method: "POST", headers, body: new Uint8Array(size) }),
      );
      expect(lying.status, `${size}`).toBe(400);
      expect(lying.body).toMatchObject({ code: "BAD_REQUEST" });
    }
  });

  it("a JSON body longer or shorter than its Content-Length is 400 before any route runs", async () => {
    const { owner, site } = await ownerWithSite();
    const body = JSON.stringify({ name: "reader", kind: "secret", scopes: ["posts:read"] });
    const captured = await capture("CONTENT", "POST", `/api/v1/sites/${site.id}/api-keys`, {
      token: owner.access_token,
      body,
      contentType: "application/json",
    });
    const headers = new Headers(captured.headers);
    headers.set("content-length", String(body.length));
    for (const sent of [`${body}    `, body.slice(0, -4)]) {
      const res = await env.CONTENT.fetch(
        new Request(captured.url, { method: "POST", headers, body: new TextEncoder().encode(sent) }),
      );
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: "BAD_REQUEST" });
    }
  });

  it("a streamed upload through the gateway is forwarded with its length and verifies; a streamed replay without one is anonymous", async () => {
    const { owner, site } = await ownerWithSite();
    const chunk = crypto.getRandomValues(new Uint8Array(64 * 1024));
    const stream = () =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < 5; i++) controller.enqueue(chunk);
          controller.close();
        },
      });
    const captured = await capture("CONTENT", "POST", `/api/v1/sites/${site.id}/forms`, {
      token: owner.access_token,
      body: stream(),
      contentType: "multipart/form-data; boundary=x",
    });
    expect(captured.headers.get("content-length")).toBe(String(5 * chunk.byteLength));
    expect(captured.headers.get("transfer-encoding")).toBeNull();
    const all = new Uint8Array(5 * chunk.byteLength);
    for (let i = 0; i < 5; i++) all.set(chunk, i * chunk.byteLength);
    const content = serviceApp("content");
    expect((await content(replay(captured))).body).toMatchObject({
      verified: true,
      bytes: all.byteLength,
      sha256: await sha256(all),
    });
    const headers = new Headers(captured.headers);
    headers.delete("content-length");
    const unframed = await content(
      new Request(captured.url, { method: "POST", headers, body: stream(), duplex: "half" } as RequestInit),
    );
    expect(unframed.body).toMatchObject({ verified: false, bytes: all.byteLength });
  });
});
