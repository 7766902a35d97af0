/** `/health`, `/ready` (cache store, JWKS and the OpenAPI document loaded) and `/metrics`. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../core/bindings";
import { storedGauges } from "./gauges";
import { renderMetrics } from "./metrics";

const JWKS_MAX_AGE_MS = 10 * 60 * 1000;

/** Identity's signing keys as last fetched; once loaded, a later failed refresh keeps the old copy. */
export class JwksCache {
  private keys: { keys: unknown[]; loadedAt: number } | null = null;

  async ensure(identity: Pick<Fetcher, "fetch">): Promise<boolean> {
    if (this.keys && Date.now() - this.keys.loadedAt < JWKS_MAX_AGE_MS) return true;
    try {
      const res = await identity.fetch("https://identity.internal/.well-known/jwks.json");
      if (!res.ok) return this.keys !== null;
      const body = (await res.json()) as { keys?: unknown };
      if (!Array.isArray(body.keys) || body.keys.length === 0) return this.keys !== null;
      this.keys = { keys: body.keys, loadedAt: Date.now() };
      return true;
    } catch {
      return this.keys !== null;
    }
  }
}

const jwksCache = new JwksCache();

async function cacheStoreReady(cache: Pick<KVNamespace, "get">): Promise<boolean> {
  try {
    await cache.get("ready:probe");
    return true;
  } catch {
    return false;
  }
}

export interface ReadinessDeps {
  cache: Pick<KVNamespace, "get">;
  identity: Pick<Fetcher, "fetch">;
  jwks: JwksCache;
  openApiLoaded: () => boolean;
}

export async function readiness(deps: ReadinessDeps) {
  const checks = {
    cache_store: await cacheStoreReady(deps.cache),
    jwks: await deps.jwks.ensure(deps.identity),
    openapi: deps.openApiLoaded(),
  };
  return { ready: checks.cache_store && checks.jwks && checks.openapi, checks };
}

const ReadySchema = z
  .object({
    status: z.enum(["ready", "not_ready"]),
    checks: z.object({ cache_store: z.boolean(), jwks: z.boolean(), openapi: z.boolean() }),
  })
  .openapi("Readiness");

const getHealthRoute = createRoute({
  method: "get",
  path: "/health",
  tags: ["Probes"],
  summary: "Liveness probe",
  responses: {
    200: {
      description: "Alive",
      content: { "application/json": { schema: z.object({ status: z.literal("ok") }) } },
    },
  },
});

const getReadyRoute = createRoute({
  method: "get",
  path: "/ready",
  tags: ["Probes"],
  summary: "Readiness probe",
  responses: {
    200: { description: "Ready", content: { "application/json": { schema: ReadySchema } } },
    503: { description: "Not ready", content: { "application/json": { schema: ReadySchema } } },
  },
});

const getMetricsRoute = createRoute({
  method: "get",
  path: "/metrics",
  tags: ["Probes"],
  summary: "Metrics (Prometheus text exposition)",
  responses: { 200: { description: "Metrics", content: { "text/plain": { schema: z.string() } } } },
});

export function registerProbeRoutes(app: OpenAPIHono<AppEnv>, openApiLoaded: () => boolean) {
  app.openapi(getHealthRoute, (c) => c.json({ status: "ok" as const }, 200));

  app.openapi(getReadyRoute, async (c) => {
    const { ready, checks } = await readiness({
      cache: c.env.CACHE,
      identity: c.env.IDENTITY,
      jwks: jwksCache,
      openApiLoaded,
    });
    c.header("cache-control", "no-store");
    return ready
      ? c.json({ status: "ready" as const, checks }, 200)
      : c.json({ status: "not_ready" as const, checks }, 503);
  });

  app.openapi(getMetricsRoute, async (c) =>
    c.text(renderMetrics(await storedGauges(c.env)), 200, {
      "content-type": "text/plain; version=0.0.4; charset=utf-8",
    }),
  );
}
