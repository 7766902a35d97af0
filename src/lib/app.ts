import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context, Env as HonoEnv } from "hono";
import { routePath } from "hono/route";
import { allowedMethodsOf } from "./allowed-methods";
import {
  API_REFERENCE_SCRIPT,
  type DocumentRules,
  finishDocument,
  firstSecurityScheme,
  type OpenApiDocument,
  referencePage,
  referenceScript,
} from "./api-docs";
import { edgeTrust } from "./edge-trust";
import { describeIssues } from "./input-issues";
import { capturedLogs, requestLogger, routeLabel } from "./log";
import { recentPoints, recordRequest, useMetrics } from "./metrics";
import { CommonErrors, errorsOf, handleError, notFoundResponse } from "./problem";
import { continueTrace, formatTraceparent, runInTrace, setTraceparent, TRACEPARENT_HEADER } from "./trace";

const { fail, problem } = errorsOf(CommonErrors);

const methodNotAllowed = (detail: string, allow: string) =>
  problem("METHOD_NOT_ALLOWED", { detail, headers: { allow } });

type DevEnv = { DEV_OUTBOX?: string };

/** A service's development view of its metric points and log lines (the gateway's `/__dev/metrics` reads it). */
export const DEV_TELEMETRY_PATH = "/__dev/telemetry";

function traceAndMeasure(service: string) {
  return async function traceAndMeasure(c: Context, next: () => Promise<void>) {
    useMetrics(service, c.env);
    const trace = continueTrace(c.req.header(TRACEPARENT_HEADER));
    const started = Date.now();
    await runInTrace(trace, next);
    if (!c.req.path.startsWith("/__dev/")) {
      recordRequest(routeLabel(routePath(c)), c.req.method, c.res.status, Date.now() - started);
    }
    setTraceparent(c, formatTraceparent(trace));
  };
}

type ServiceInfo = {
  title: string;
  version: string;
  description: string;
};

/**
 * An OpenAPIHono app with the platform's conventions: zod failures become 400 problem+json with the
 * unknown field named first, else the first issue's path (`src/lib/input-issues.ts`), every thrown error is rendered once, unknown routes are problem+json 404.
 * `GET /openapi.json` and `GET /docs` (with its script, `src/lib/api-docs.ts`) are added by `serveApiDocs`
 * after the routes are registered.
 * Every request gets `c.get("log")`, a logger of `service` with the request's `X-Request-Id`, and keeps
 * its edge headers only when the gateway's signature over them verifies (`edgeTrust`). It runs in the
 * caller's trace continued (`traceparent`, src/lib/trace.ts), answers with this hop's `traceparent`, and
 * is measured (`request` by route pattern, method, status and duration, src/lib/metrics.ts).
 * `GET /__dev/telemetry` lists the isolate's kept metric points and log lines (of one `trace_id` when
 * asked) where `DEV_OUTBOX=true`, and is 404 everywhere else.
 */
export function createServiceApp<E extends HonoEnv>(service: string) {
  const app = new OpenAPIHono<E>({
    defaultHook: (result) => {
      if (!result.success) {
        const { detail, details } = describeIssues(result.error.issues);
        fail("BAD_REQUEST", { detail, ...(details ? { details } : {}) });
      }
    },
  });
  app.use("*", traceAndMeasure(service));
  app.use("*", requestLogger(service));
  app.get(DEV_TELEMETRY_PATH, (c) => {
    if ((c.env as DevEnv | undefined)?.DEV_OUTBOX !== "true") return notFoundResponse();
    const traceId = c.req.query("trace_id");
    return c.json({ service, points: recentPoints(), logs: capturedLogs(traceId) });
  });
  // Before any route: edge headers count only when the gateway signed them for this service and this body
  // (src/lib/edge-trust.ts).
  app.use("*", edgeTrust<E>(service));
  // A documented path asked with a method it does not serve: 405 with Allow, before any guard
  // (src/lib/allowed-methods.ts). OPTIONS passes (the gateway answers CORS preflights).
  const allowed = allowedMethodsOf(app);
  app.use("*", async (c, next) => {
    const methods = c.req.method === "OPTIONS" ? [] : allowed(c.req.path);
    if (methods.length > 0 && !methods.includes(c.req.method)) {
      throw methodNotAllowed(
        `${c.req.method} is not served here; use ${methods.join(", ")}.`,
        methods.join(", "),
      );
    }
    await next();
  });
  app.onError(handleError);
  app.notFound(() => notFoundResponse());
  return app;
}

/**
 * `GET /openapi.json` (the document finished by `rules`: security and tags on every operation, `servers`
 * naming the address it was asked on; the gateway names itself when it hands the document out) and
 * `GET /docs` (the reference, "Try it" on the document's first security scheme).
 */
export function serveApiDocs<E extends HonoEnv & { Bindings: { ASSETS: Fetcher } }>(
  app: OpenAPIHono<E>,
  info: ServiceInfo,
  rules: DocumentRules,
) {
  let generated: OpenApiDocument | null = null;
  const document = () => {
    generated ??= app.getOpenAPI31Document({ openapi: "3.1.0", info }) as unknown as OpenApiDocument;
    return generated;
  };
  app.get("/openapi.json", (c) =>
    c.json(finishDocument(document(), rules, new URL(c.req.url).origin, `${info.title} (this address)`)),
  );
  app.get("/docs", () => referencePage(info.title, "/openapi.json", firstSecurityScheme(document())));
  app.get(API_REFERENCE_SCRIPT, (c) => referenceScript(c.env.ASSETS, c.req.raw));
}

/** Standard problem+json response declarations to spread into route definitions. */
export function problemResponses(statuses: Record<number, string>) {
  const out: Record<
    number,
    { description: string; content: { "application/problem+json": { schema: object } } }
  > = {};
  for (const [status, description] of Object.entries(statuses)) {
    out[Number(status)] = {
      description,
      content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
    };
  }
  return out;
}

export function registerProblemSchema<E extends HonoEnv>(app: OpenAPIHono<E>) {
  app.openAPIRegistry.registerComponent("schemas", "Problem", {
    type: "object",
    required: ["type", "title", "status", "code"],
    properties: {
      type: { type: "string" },
      title: { type: "string" },
      status: { type: "integer" },
      code: { type: "string" },
      detail: { type: "string" },
      details: { type: "object" },
    },
  });
}
