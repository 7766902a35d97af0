import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createServiceApp } from "../../src/lib/app";
import type { SitesAppEnv } from "../../src/sites/core/app-env";
import { requireOperator } from "../../src/sites/operator/gate";
import { signEdgeHeaders } from "../support/edge-signing";

function appWith(access: "read" | "write", code?: "FORBIDDEN" | "PLATFORM_FORBIDDEN") {
  const app = createServiceApp<SitesAppEnv>("sites");
  app.get("/x", (c) => c.json(requireOperator(c, access, code)));
  return app;
}

/** The edge headers as the gateway sends them (signed: the service app keeps only those). */
async function call(app: ReturnType<typeof appWith>, headers: Record<string, string>) {
  const res = await app.request(
    "/x",
    { headers: signEdgeHeaders("GET", "http://localhost/x", headers, { service: "sites" }) },
    env,
  );
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("operator gate", () => {
  it("reads: operator_read and operator_admin pass; no capability or a forged value is 403", async () => {
    const app = appWith("read");
    expect((await call(app, { "x-platform-operator": "operator_read", "x-user-id": "u1" })).body).toEqual({
      capability: "operator_read",
      userId: "u1",
    });
    expect((await call(app, { "x-platform-operator": "operator_admin" })).status).toBe(200);
    const attempts: Record<string, string>[] = [
      {},
      { "x-platform-operator": "root" },
      { "x-platform-operator": "" },
    ];
    for (const headers of attempts) {
      const res = await call(app, headers);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe("FORBIDDEN");
    }
  });

  it("writes: only operator_admin; operator_read is 403 with the route's code", async () => {
    expect((await call(appWith("write"), { "x-platform-operator": "operator_admin" })).status).toBe(200);
    const read = await call(appWith("write"), { "x-platform-operator": "operator_read" });
    expect(read.status).toBe(403);
    expect(read.body.code).toBe("FORBIDDEN");
    const themes = await call(appWith("write", "PLATFORM_FORBIDDEN"), {
      "x-platform-operator": "operator_read",
    });
    expect(themes.status).toBe(403);
    expect(themes.body.code).toBe("PLATFORM_FORBIDDEN");
  });
});
