/** The caller's second factors: TOTP enrollment and removal, recovery codes, capabilities. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import { bearerAuth } from "../auth";
import type { AppEnv } from "../context";
import { fail } from "../errors";
import { beginTotpEnrollment, hasConfirmedTotp, newRecoveryPool, verifyTotp } from "../factors";
import { smsEnabled } from "../messaging";
import { passkeysEnabled } from "../passkeys";
import { requireStepUp } from "../step-up";
import { primaryEmail } from "../store/accounts";
import { deleteTotp, factorCounts, findTotp, hasRecoveryPool } from "../store/factors";
import { otpauthUri } from "../totp";
import { jsonBody, jsonResponse } from "./schemas";

export function registerFactorRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/auth/mfa/totp",
      tags: ["Second factors"],
      summary: "Start TOTP enrollment: a new secret (pending until confirmed)",
      ...bearerAuth,
      responses: {
        200: jsonResponse("Secret", z.object({ secret: z.string(), otpauth_uri: z.string() })),
        ...problemResponses({ 401: "UNAUTHORIZED", 409: "TOTP_ALREADY_ENROLLED" }),
      },
    }),
    async (c) => {
      const { userId } = c.get("auth");
      const secret = await beginTotpEnrollment(c.env, userId);
      if (!secret) {
        fail("TOTP_ALREADY_ENROLLED", "Remove the confirmed TOTP factor first.");
      }
      const account = (await primaryEmail(c.env.DB, userId)) ?? userId;
      c.header("Cache-Control", "no-store");
      return c.json({ secret, otpauth_uri: otpauthUri(secret, account, "Site Platform") }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/auth/mfa/totp/confirm",
      tags: ["Second factors"],
      summary:
        "Confirm TOTP enrollment with a current code; the first confirmation also returns recovery codes",
      ...bearerAuth,
      request: jsonBody(z.object({ code: z.string().max(16) })),
      responses: {
        200: jsonResponse(
          "Confirmed",
          z.object({ confirmed: z.literal(true), recovery_codes: z.array(z.string()).optional() }),
        ),
        ...problemResponses({
          401: "UNAUTHORIZED, MFA_INVALID_CODE",
          404: "NOT_FOUND (no pending enrollment)",
        }),
      },
    }),
    async (c) => {
      const { userId } = c.get("auth");
      const pending = await findTotp(c.env.DB, userId);
      if (!pending || pending.confirmed_at) {
        fail("NOT_FOUND", "No pending TOTP enrollment.");
      }
      if (!(await verifyTotp(c.env, userId, c.req.valid("json").code.trim(), "pending"))) {
        fail("MFA_INVALID_CODE", "The TOTP code is invalid.");
      }
      if (await hasRecoveryPool(c.env.DB, userId)) return c.json({ confirmed: true as const }, 200);
      const pool = await newRecoveryPool(c.env, userId);
      await c.env.DB.batch(pool.statements);
      c.header("Cache-Control", "no-store");
      return c.json({ confirmed: true as const, recovery_codes: pool.codes }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/api/v1/auth/mfa/totp",
      tags: ["Second factors"],
      summary: "Remove the TOTP factor (step-up; idempotent)",
      ...bearerAuth,
      request: { headers: z.object({ "x-step-up-code": z.string().max(64).optional() }) },
      responses: {
        204: { description: "Removed (also when there was none)" },
        ...problemResponses({
          401: "CODE_INVALID",
          428: "STEP_UP_REQUIRED",
          429: "RATE_LIMITED (step-up code sends and checks)",
          503: "STEP_UP_UNAVAILABLE",
        }),
      },
    }),
    async (c) => {
      await requireStepUp(c, "mfa.totp.delete", c.req.header("x-step-up-code"));
      await deleteTotp(c.env.DB, c.get("auth").userId);
      return c.body(null, 204);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/auth/mfa/recovery-codes/generate",
      tags: ["Second factors"],
      summary: "Generate a new pool of 10 recovery codes (step-up); the old pool dies",
      ...bearerAuth,
      request: { headers: z.object({ "x-step-up-code": z.string().max(64).optional() }) },
      responses: {
        200: jsonResponse("The new pool, shown once", z.object({ recovery_codes: z.array(z.string()) })),
        ...problemResponses({
          401: "CODE_INVALID",
          428: "STEP_UP_REQUIRED",
          429: "RATE_LIMITED (step-up code sends and checks)",
          503: "STEP_UP_UNAVAILABLE (nothing generated or invalidated)",
        }),
      },
    }),
    async (c) => {
      const { userId } = c.get("auth");
      await requireStepUp(c, "mfa.recovery_codes.generate", c.req.header("x-step-up-code"));
      const pool = await newRecoveryPool(c.env, userId);
      await c.env.DB.batch(pool.statements);
      c.header("Cache-Control", "no-store");
      return c.json({ recovery_codes: pool.codes }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/auth/mfa/methods",
      tags: ["Second factors"],
      summary: "Capabilities of the caller's second factors",
      ...bearerAuth,
      responses: {
        200: jsonResponse(
          "Capabilities",
          z.object({
            totp: z.object({ enrolled: z.boolean() }),
            passkeys: z.object({ enabled: z.boolean(), count: z.number().int() }),
            phone: z.object({ enabled: z.boolean(), verified: z.boolean() }),
            recovery_codes: z.object({ remaining: z.number().int() }),
            email: z.object({ available: z.boolean() }),
          }),
        ),
        ...problemResponses({ 401: "UNAUTHORIZED" }),
      },
    }),
    async (c) => {
      const { userId } = c.get("auth");
      const [totp, counts] = await Promise.all([
        hasConfirmedTotp(c.env.DB, userId),
        factorCounts(c.env.DB, userId),
      ]);
      return c.json(
        {
          totp: { enrolled: totp },
          passkeys: { enabled: passkeysEnabled(c.env), count: counts.passkeys },
          phone: { enabled: smsEnabled(c.env), verified: counts.phones > 0 },
          recovery_codes: { remaining: counts.recovery },
          email: { available: true },
        },
        200,
      );
    },
  );
}
