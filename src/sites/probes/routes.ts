/** Liveness and readiness probes of the sites service. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { SitesAppEnv } from "../core/app-env";
import { databaseAnswers } from "../site/store";

const Status = z.object({ status: z.string(), checks: z.record(z.string(), z.string()).optional() });

const health = createRoute({
  method: "get",
  path: "/health",
  summary: "Liveness",
  responses: { 200: { description: "Alive", content: { "application/json": { schema: Status } } } },
});

const ready = createRoute({
  method: "get",
  path: "/ready",
  summary: "Readiness: the database answers",
  responses: {
    200: { description: "Ready", content: { "application/json": { schema: Status } } },
    503: { description: "Not ready", content: { "application/json": { schema: Status } } },
  },
});

export function registerProbeRoutes(app: OpenAPIHono<SitesAppEnv>) {
  app.openapi(health, (c) => c.json({ status: "ok" }, 200));
  app.openapi(ready, async (c) => {
    try {
      await databaseAnswers(c.env.DB);
      return c.json({ status: "ready", checks: { db: "ok" } }, 200);
    } catch (err) {
      c.get("log").error("ready_check_failed", { error: String(err) });
      return c.json({ status: "not_ready", checks: { db: "unavailable" } }, 503);
    }
  });
}
