/**
 * CORS of a `pk_` key through the edge: which origins may use the key is content's decision, and the edge
 * never grants an origin content refused. A refused origin's browser cannot read the 403 (as on content's
 * own address); an allowed one reads the answer, and every other `/v1` answer keeps the edge's reflection.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { call, createOrg, createSite, verifiedUser } from "../support/platform";

const ALLOWED = "https://reader.example";
const OTHER = "https://elsewhere.example";
let pk = "";
let ck = "";

beforeAll(async () => {
  const owner = await verifiedUser();
  const org = await createOrg(owner.access_token);
  const site = await createSite(owner.access_token, org.id);
  const create = (body: Record<string, unknown>) =>
    call<{ key: string }>("POST", `/api/v1/sites/${site.id}/api-keys`, { token: owner.access_token, body });
  pk = (await create({ name: "pages", kind: "public", scopes: ["posts:read"], allowed_origins: [ALLOWED] }))
    .body.key;
  ck = (await create({ name: "writer", kind: "secret", scopes: ["posts:write", "posts:read"] })).body.key;
});

describe("pk_ key CORS through the edge", () => {
  it.each([
    ["Authorization header", () => call("GET", "/v1/posts", { token: pk, headers: { origin: OTHER } })],
    ["?key= query", () => call("GET", `/v1/posts?key=${pk}`, { headers: { origin: OTHER } })],
  ])("a refused origin gets content's 403 with no CORS grant (%s)", async (_form, send) => {
    const res = await send();
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: "ORIGIN_NOT_ALLOWED" });
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    // The answer depends on the Origin: a shared cache must not hand it to another origin.
    expect(res.headers.get("vary")).toMatch(/\bOrigin\b/);
  });

  it("the allowed origin reads the answer with both forms", async () => {
    for (const res of [
      await call("GET", "/v1/posts", { token: pk, headers: { origin: ALLOWED } }),
      await call("GET", `/v1/posts?key=${pk}`, { headers: { origin: ALLOWED } }),
    ]) {
      expect(res.status).toBe(200);
      expect(res.headers.get("access-control-allow-origin")).toBe(ALLOWED);
      expect(res.headers.get("access-control-expose-headers")).toContain("X-Request-Id");
    }
  });

  it("other /v1 answers keep the edge's reflection (an unknown key's 401, a ck_ read)", async () => {
    const unknown = await call("GET", "/v1/posts?key=pk_unknown", { headers: { origin: OTHER } });
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get("access-control-allow-origin")).toBe(OTHER);
    const secret = await call("GET", "/v1/posts", { token: ck, headers: { origin: OTHER } });
    expect(secret.status).toBe(200);
    expect(secret.headers.get("access-control-allow-origin")).toBe(OTHER);
  });
});
