/** Probes, metrics, OIDC discovery, JWKS and the development outbox. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import type { AppEnv } from "../core/context";
import { jsonResponse } from "../core/schemas";
import type { Env } from "../core/worker-env";
import { fail } from "../errors";
import { jwks } from "../login/tokens";
import { devOutboxEnabled } from "../messaging/messaging";
import { listMailbox, listOutboxMessages } from "../messaging/outbox-store";
import { normalizeEmail } from "../signup/accounts-store";
import { renderMetrics } from "./metrics";
import { pingDatabase } from "./ready-store";

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: number | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("timeout")), ms) as unknown as number;
      }),
    ]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

const healthRoute = createRoute({
  method: "get",
  path: "/health",
  tags: ["Probes"],
  summary: "Alive",
  responses: { 200: jsonResponse("Alive", z.object({ status: z.literal("ok") })) },
});

const readyRoute = createRoute({
  method: "get",
  path: "/ready",
  tags: ["Probes"],
  summary: "Ready: D1 and Durable Objects answer",
  responses: {
    200: jsonResponse(
      "Ready",
      z.object({ status: z.literal("ready"), checks: z.record(z.string(), z.string()) }),
    ),
    ...problemResponses({ 503: "NOT_READY (details.checks)" }),
  },
});

const metricsRoute = createRoute({
  method: "get",
  path: "/metrics",
  tags: ["Probes"],
  summary: "Counters in the Prometheus text format (auth_password_breach_checks_total{outcome})",
  responses: { 200: { description: "Metrics", content: { "text/plain": { schema: z.string() } } } },
});

const openidConfigurationRoute = createRoute({
  method: "get",
  path: "/.well-known/openid-configuration",
  tags: ["Discovery"],
  summary: "OpenID Connect discovery document",
  responses: { 200: jsonResponse("Discovery document", z.record(z.string(), z.unknown())) },
});

const jwksRoute = createRoute({
  method: "get",
  path: "/.well-known/jwks.json",
  tags: ["Discovery"],
  summary: "Public signing keys (EdDSA / Ed25519): current, next and, during a rotation, previous",
  responses: {
    200: jsonResponse(
      "JWKS",
      z.object({
        keys: z.array(
          z.object({
            kty: z.string(),
            crv: z.string(),
            x: z.string(),
            kid: z.string(),
            alg: z.string(),
            use: z.string(),
          }),
        ),
      }),
    ),
  },
});

const devOutboxRoute = createRoute({
  method: "get",
  path: "/api/v1/auth/__dev/outbox",
  tags: ["Development"],
  summary:
    "Messages sent to an e-mail or phone; without `to`, the newest 100 of every recipient with their plain-text and HTML bodies (the gateway's /__dev/mail). Only with DEV_OUTBOX=true; 404 otherwise",
  request: { query: z.object({ to: z.string().min(1).max(320).optional() }) },
  responses: {
    200: jsonResponse(
      "Messages, newest first",
      z.object({
        messages: z.array(
          z.object({
            to: z.string(),
            channel: z.string(),
            purpose: z.string(),
            code: z.string().nullable(),
            link: z.string().nullable(),
            subject: z.string(),
            created_at: z.string(),
            body: z
              .string()
              .optional()
              .openapi({ description: "Without `to` only: the plain text (an SMS's text)" }),
            html: z
              .string()
              .nullable()
              .optional()
              .openapi({ description: "Without `to` only: the HTML body of an e-mail; null for an SMS" }),
          }),
        ),
      }),
    ),
    ...problemResponses({ 404: "NOT_FOUND (outbox disabled)" }),
  },
});

/** D1 and the Durable Objects, each "ok" or "failed" (a 2 s timeout counts as failed). */
async function readinessChecks(env: Env): Promise<Record<string, string>> {
  const checks: Record<string, string> = {};
  await Promise.all([
    withTimeout(pingDatabase(env.DB), 2000).then(
      () => {
        checks.d1 = "ok";
      },
      () => {
        checks.d1 = "failed";
      },
    ),
    withTimeout(env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName("ready-probe")).ping(), 2000).then(
      () => {
        checks.durable_objects = "ok";
      },
      () => {
        checks.durable_objects = "failed";
      },
    ),
  ]);
  return checks;
}

function discoveryDocument(issuer: string): Record<string, unknown> {
  return {
    issuer,
    jwks_uri: `${issuer}/.well-known/jwks.json`,
    token_endpoint: `${issuer}/api/v1/auth/refresh`,
    grant_types_supported: ["refresh_token"],
    response_types_supported: ["token"],
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: ["EdDSA"],
    token_endpoint_auth_methods_supported: ["none"],
    claims_supported: ["iss", "aud", "sub", "sid", "kind", "iat", "exp", "jti"],
    scopes_supported: ["openid"],
  };
}

/** The signing keys as the JWKS answer lists them (every member present). */
async function publicKeys(env: Env) {
  const set = await jwks(env);
  return {
    keys: set.keys.map((k) => ({
      kty: k.kty ?? "OKP",
      crv: k.crv ?? "Ed25519",
      x: k.x ?? "",
      kid: k.kid ?? "",
      alg: k.alg ?? "EdDSA",
      use: k.use ?? "sig",
    })),
  };
}

export function registerProbeRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(healthRoute, (c) => c.json({ status: "ok" as const }, 200));

  app.openapi(readyRoute, async (c) => {
    const checks = await readinessChecks(c.env);
    if (Object.values(checks).some((v) => v !== "ok")) {
      fail("NOT_READY", { detail: "A dependency did not answer.", details: { checks } });
    }
    return c.json({ status: "ready" as const, checks }, 200);
  });

  app.openapi(metricsRoute, (c) =>
    c.text(renderMetrics(), 200, { "content-type": "text/plain; version=0.0.4; charset=utf-8" }),
  );

  app.openapi(openidConfigurationRoute, (c) => {
    c.header("Cache-Control", "public, max-age=300");
    return c.json(discoveryDocument(c.env.ISSUER), 200);
  });

  app.openapi(jwksRoute, async (c) => {
    c.header("Cache-Control", "public, max-age=300");
    return c.json(await publicKeys(c.env), 200);
  });

  app.openapi(devOutboxRoute, async (c) => {
    if (!devOutboxEnabled(c.env)) fail("NOT_FOUND", "No such resource.");
    const raw = c.req.valid("query").to?.trim();
    if (raw === undefined) return c.json({ messages: await listMailbox(c.env.DB) }, 200);
    const to = raw.includes("@") ? normalizeEmail(raw) : raw;
    return c.json({ messages: await listOutboxMessages(c.env.DB, to) }, 200);
  });
}
