/**
 * `GET /__dev/metrics` (src/gateway/dev-metrics.ts): where DEV_OUTBOX=true (tests, `npm start`) the
 * gateway aggregates its own and each service's kept metric points; in a deploy (no DEV_OUTBOX) it is
 * 404, and so is each service's `/__dev/telemetry` (src/lib/app.ts).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import gateway from "../../src/gateway/index";
import { createServiceApp } from "../../src/lib/app";
import { call } from "../support/platform";

type Metric = { service: string; name: string; labels: Record<string, string>; count: number; sum: number };

describe("/__dev/metrics", () => {
  it("aggregates the gateway's and the services' points: requests by route pattern, status and duration", async () => {
    const health = await call("GET", "/health");
    expect(health.status).toBe(200);
    const refused = await call("GET", "/v1/posts");
    expect(refused.status).toBe(401);

    const res = await call<{ services: Record<string, boolean>; metrics: Metric[] }>("GET", "/__dev/metrics");
    expect(res.status).toBe(200);
    expect(res.body.services).toEqual({ gateway: true, identity: true, content: true, sites: true });
    const find = (service: string, labels: Record<string, string>) =>
      res.body.metrics.find(
        (m) =>
          m.service === service &&
          m.name === "request" &&
          Object.entries(labels).every(([key, value]) => m.labels[key] === value),
      );
    expect(find("gateway", { route: "/health", method: "GET", status: "200" })?.count).toBeGreaterThan(0);
    expect(find("gateway", { route: "forward:content", status: "401" })?.count).toBeGreaterThan(0);
    // Content names its own route pattern, never the raw path.
    expect(find("content", { route: "/v1/posts", method: "GET", status: "401" })?.count).toBeGreaterThan(0);
    for (const metric of res.body.metrics) expect(metric.labels.route ?? "").not.toMatch(/01[0-9A-Z]{24}/);
  });

  it("is 404 in a deploy (no DEV_OUTBOX), as is each service's /__dev/telemetry", async () => {
    const deployed = { ...(env as unknown as GatewayEnv), DEV_OUTBOX: undefined };
    const res = await gateway.fetch(new Request("http://localhost:8787/__dev/metrics"), deployed);
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toContain("application/problem+json");

    const service = createServiceApp("probe");
    const own = await service.request("/__dev/telemetry", {}, {});
    expect(own.status).toBe(404);
    const dev = await service.request("/__dev/telemetry", {}, { DEV_OUTBOX: "true" });
    expect(dev.status).toBe(200);
  });
});
