/** The edge route table: which service answers a path, and the paths no service answers at the edge. */
import { describe, expect, it } from "vitest";
import { routeFor } from "../../src/gateway/routes";

describe("routeFor", () => {
  it("sends the identity API to identity", () => {
    expect(routeFor("/api/v1/auth/login")).toEqual({ upstream: "identity", requiresSession: false });
    expect(routeFor("/api/v1/auth/orgs/01JAAAAAAAAAAAAAAAAAAAAAAA/members")?.upstream).toBe("identity");
  });

  it("routes none of identity's probes: only the gateway's own /health and /ready are public", () => {
    for (const path of [
      "/api/v1/auth/health",
      "/api/v1/auth/ready",
      "/api/v1/auth/metrics",
      "/api/v1/auth/health/",
      "/api/v1/auth/HEALTH",
    ]) {
      expect(routeFor(path), path).toBeNull();
    }
  });
});
