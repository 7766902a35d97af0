import { describe, expect, it } from "vitest";
import { api } from "../support/sites-helpers";

describe("probes", () => {
  it("GET /health answers ok", async () => {
    const res = await api("GET", "/health");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok" });
  });

  it("GET /ready answers ready when the database answers", async () => {
    const res = await api("GET", "/ready");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "ready", checks: { db: "ok" } });
  });

  it("GET /openapi.json documents the site routes", async () => {
    const res = await api<{ openapi: string; paths: Record<string, unknown> }>("GET", "/openapi.json");
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe("3.1.0");
    for (const path of [
      "/api/v1/sites",
      "/api/v1/sites/batch",
      "/api/v1/sites/by-host",
      "/api/v1/sites/{id}",
    ]) {
      expect(res.body.paths).toHaveProperty(path);
    }
  });

  it("GET /docs serves the reference page", async () => {
    const res = await api("GET", "/docs");
    expect(res.status).toBe(200);
  });
});
