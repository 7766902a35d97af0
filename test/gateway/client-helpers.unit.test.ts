/**
 * The helpers of `@site-platform/client` (packages/client) request by request, against a recording fetch:
 * `uploadMedia` sends multipart/form-data with the Blob and the form's fields (a repeatable field once per
 * value), and `staffSession` refreshes once on `401 TOKEN_EXPIRED` and repeats the call, one refresh
 * shared by every call that met the expiry, never on another 401, and answering a refused refresh as it is.
 * test/browser/client-pack.test.ts runs both, compiled by a consumer, against the platform.
 */
import { contentClient, sitesClient, staffSession, uploadMedia } from "@site-platform/client";
import { describe, expect, it } from "vitest";

const problem = (status: number, code: string) =>
  Response.json(
    { type: "about:blank", status, code },
    { status, headers: { "content-type": "application/problem+json" } },
  );

/** A gateway whose access tokens are `access-N` (only the newest is valid) and refresh tokens `refresh-N`. */
function fakeGateway(options: { refuseRefresh?: boolean } = {}) {
  let generation = 0;
  const seen: { path: string; authorization: string | null; body: string }[] = [];
  let refreshes = 0;
  const fetch = async (request: Request): Promise<Response> => {
    const path = new URL(request.url).pathname;
    const body = await request.text();
    seen.push({ path, authorization: request.headers.get("authorization"), body });
    if (path === "/api/v1/auth/refresh") {
      refreshes++;
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (options.refuseRefresh || JSON.parse(body).refresh_token !== `refresh-${generation}`)
        return problem(401, "REFRESH_FAILED");
      generation++;
      return Response.json({
        access_token: `access-${generation}`,
        refresh_token: `refresh-${generation}`,
        token_type: "Bearer",
        expires_in: 900,
        session_id: "s1",
        user: { id: "u1", email: "a@b.test" },
      });
    }
    if (request.headers.get("authorization") === "Bearer revoked") return problem(401, "UNAUTHENTICATED");
    if (request.headers.get("authorization") !== `Bearer access-${generation}`)
      return problem(401, "TOKEN_EXPIRED");
    return Response.json({ id: "site-1", echo: body });
  };
  return { fetch, seen, refreshes: () => refreshes, generation: () => generation };
}

describe("staffSession", () => {
  it("five calls meeting the expiry together: one refresh, each call repeated with the new token", async () => {
    const gateway = fakeGateway();
    const refreshed: string[] = [];
    // Its access token is not the newest: as if 15 minutes had passed.
    const session = staffSession({
      session: { access_token: "access-stale", refresh_token: "refresh-0" },
      fetch: gateway.fetch,
      baseUrl: "https://api.example.test",
      onRefresh: (s) => {
        refreshed.push(s.refresh_token);
      },
    });
    const sites = sitesClient({ baseUrl: "https://api.example.test", fetch: session.fetch });
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        sites.GET("/api/v1/sites/{id}", { params: { path: { id: "site-1" } } }),
      ),
    );
    for (const result of results) expect(result.data).toMatchObject({ id: "site-1" });
    expect(gateway.refreshes()).toBe(1);
    expect(refreshed).toEqual(["refresh-1"]);
    expect(session.tokens()).toEqual({ access_token: "access-1", refresh_token: "refresh-1" });
    const retried = gateway.seen.filter(
      (s) => s.path === "/api/v1/sites/site-1" && s.authorization === "Bearer access-1",
    );
    expect(retried).toHaveLength(5);

    // The next call goes with the new token at once: no second refresh.
    const next = await sites.GET("/api/v1/sites/{id}", { params: { path: { id: "site-1" } } });
    expect(next.data).toMatchObject({ id: "site-1" });
    expect(gateway.seen.at(-1)?.authorization).toBe("Bearer access-1");
    expect(gateway.refreshes()).toBe(1);
  });

  it("a POST body survives the repeat", async () => {
    const gateway = fakeGateway();
    const session = staffSession({
      session: { access_token: "stale", refresh_token: "refresh-0" },
      fetch: gateway.fetch,
      baseUrl: "https://api.example.test",
    });
    const response = await session.fetch(
      new Request("https://api.example.test/api/v1/sites", {
        method: "POST",
        body: JSON.stringify({ name: "x" }),
      }),
    );
    expect(await response.json()).toMatchObject({ echo: JSON.stringify({ name: "x" }) });
    expect(gateway.seen.filter((s) => s.path === "/api/v1/sites").map((s) => s.body)).toEqual([
      JSON.stringify({ name: "x" }),
      JSON.stringify({ name: "x" }),
    ]);
  });

  it("a refused refresh is the call's answer (sign in again); another 401 never refreshes", async () => {
    const refused = fakeGateway({ refuseRefresh: true });
    const session = staffSession({
      session: { access_token: "stale", refresh_token: "refresh-0" },
      fetch: refused.fetch,
      baseUrl: "https://api.example.test",
    });
    const sites = sitesClient({ baseUrl: "https://api.example.test", fetch: session.fetch });
    const result = await sites.GET("/api/v1/sites/{id}", { params: { path: { id: "site-1" } } });
    expect(result.response.status).toBe(401);
    expect(result.error).toMatchObject({ code: "REFRESH_FAILED" });
    expect(refused.refreshes()).toBe(1);
    await expect(session.refresh()).rejects.toThrow(/refresh refused: 401/);

    const other = fakeGateway();
    const revoked = staffSession({
      session: { access_token: "revoked", refresh_token: "refresh-0" },
      fetch: other.fetch,
      baseUrl: "https://api.example.test",
    });
    const answer = await revoked.fetch(new Request("https://api.example.test/api/v1/sites/site-1"));
    expect(answer.status).toBe(401);
    expect(other.refreshes()).toBe(0);
  });
});

describe("uploadMedia", () => {
  it("sends the Blob and the fields as multipart/form-data, a repeatable field once per value", async () => {
    const seen: Request[] = [];
    const content = contentClient({
      baseUrl: "https://api.example.test",
      auth: { secretKey: "ck_secret" },
      fetch: async (request) => {
        seen.push(request);
        return Response.json({ id: "m1", status: "processing" }, { status: 202 });
      },
    });
    const file = new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], { type: "image/png" });
    const { data } = await uploadMedia(content, file, { folder_id: "f1", tag_id: ["t1", "t2"] });
    expect(data).toMatchObject({ id: "m1" });
    const request = seen[0]!;
    expect(request.method).toBe("POST");
    expect(new URL(request.url).pathname).toBe("/v1/media");
    expect(request.headers.get("authorization")).toBe("Bearer ck_secret");
    expect(request.headers.get("content-type")).toMatch(/^multipart\/form-data; boundary=/);
    const form = await request.formData();
    const sent = form.get("file") as Blob;
    expect(new Uint8Array(await sent.arrayBuffer())).toEqual(new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
    expect(form.get("folder_id")).toBe("f1");
    expect(form.getAll("tag_id")).toEqual(["t1", "t2"]);
  });
});
