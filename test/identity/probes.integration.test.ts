import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  call,
  callWith,
  json,
  type OutboxMessage,
  type ProblemBody,
  signupVerified,
} from "../support/identity-helpers";

interface OpenApiDoc {
  openapi: string;
  paths: Record<string, Record<string, { security?: unknown }>>;
  components: { securitySchemes: Record<string, unknown> };
}

describe("probes", () => {
  it("GET /health answers 200", async () => {
    const res = await call("GET", "/health");
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ status: "ok" });
  });

  it("GET /ready answers 200 when D1 and the Durable Objects answer", async () => {
    const res = await call("GET", "/ready");
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ status: "ready", checks: { d1: "ok", durable_objects: "ok" } });
  });

  it("GET /ready answers 503 when a dependency ping fails", async () => {
    // A real namespace whose class has no ping(): the RPC call fails like an unreachable object would.
    const broken = { RATE_LIMITER: (env as unknown as IdentityEnv).LOGIN_CHALLENGES } as unknown as Record<
      string,
      string
    >;
    const res = await callWith(broken, "GET", "/ready");
    expect(res.status).toBe(503);
    const body = await json<ProblemBody & { details: { checks: Record<string, string> } }>(res);
    expect(body.code).toBe("NOT_READY");
    expect(body.details.checks).toEqual({ d1: "ok", durable_objects: "failed" });
  });
});

describe("OpenAPI and docs", () => {
  it("serves an OpenAPI 3.1 document naming the identity operations", async () => {
    const res = await call("GET", "/openapi.json");
    expect(res.status).toBe(200);
    const doc = await json<OpenApiDoc>(res);
    expect(doc.openapi).toBe("3.1.0");
    for (const path of [
      "/api/v1/auth/signup",
      "/api/v1/auth/email/verify/confirm",
      "/api/v1/auth/login",
      "/api/v1/auth/login/start",
      "/api/v1/auth/login/mfa/send",
      "/api/v1/auth/login/mfa/verify",
      "/api/v1/auth/magic-link/request",
      "/api/v1/auth/magic-link/verify",
      "/api/v1/auth/refresh",
      "/api/v1/auth/sessions",
      "/api/v1/auth/sessions/{id}",
      "/api/v1/auth/mfa/totp",
      "/api/v1/auth/mfa/totp/confirm",
      "/api/v1/auth/password/change",
      "/api/v1/auth/orgs",
      "/.well-known/openid-configuration",
      "/.well-known/jwks.json",
    ]) {
      expect(doc.paths).toHaveProperty([path]);
    }
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.paths["/api/v1/auth/login"]?.post?.security).toEqual([]);
    expect(doc.paths["/api/v1/auth/orgs"]?.get?.security).toEqual([{ bearerAuth: [] }]);
  });

  it("serves /docs", async () => {
    expect((await call("GET", "/docs")).status).toBe(200);
  });
});

describe("dev outbox", () => {
  it("is 404 without DEV_OUTBOX=true", async () => {
    const res = await callWith({ DEV_OUTBOX: "false" }, "GET", "/api/v1/auth/__dev/outbox?to=a@example.com");
    expect(res.status).toBe(404);
  });

  it("lists messages newest first with the documented fields", async () => {
    const { email } = await signupVerified();
    await call("POST", "/api/v1/auth/magic-link/request", { body: { email }, ip: "203.0.113.99" });
    const { messages } = await json<{ messages: OutboxMessage[] }>(
      await call("GET", `/api/v1/auth/__dev/outbox?to=${encodeURIComponent(email.toUpperCase())}`),
    );
    expect(messages.map((m) => m.purpose)).toEqual(["magic_link", "email_verify"]);
    expect(Object.keys(messages[0]!).sort()).toEqual([
      "channel",
      "code",
      "created_at",
      "link",
      "purpose",
      "subject",
      "to",
    ]);
  });
});
