/** The caller's phone as a second factor: start (send a code), confirm, remove. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import { bearerAuth } from "../auth";
import type { AppContext, AppEnv } from "../context";
import { fail } from "../errors";
import { smsEnabled } from "../messaging";
import { confirmPhone, parsePhone, startPhoneVerification } from "../phone-verification";
import { removePhone } from "../store/phones";
import { jsonBody, jsonResponse } from "./schemas";

function requireSms(c: AppContext) {
  if (!smsEnabled(c.env)) fail("SMS_DISABLED", "SMS is disabled.");
}

export function registerPhoneRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/auth/mfa/phone/start",
      tags: ["Second factors"],
      summary: "Send a code to a phone number (E.164, validated before any provider call)",
      ...bearerAuth,
      request: jsonBody(z.object({ phone: z.string().max(32) }).openapi("PhoneStartRequest")),
      responses: {
        202: jsonResponse("Code sent", z.object({ expires_at: z.string(), sent_to: z.string() })),
        ...problemResponses({
          400: "INVALID_PHONE",
          401: "UNAUTHORIZED",
          429: "RATE_LIMITED",
          501: "SMS_DISABLED",
          502: "Provider failure",
        }),
      },
    }),
    async (c) => {
      requireSms(c);
      const phone = parsePhone(c.req.valid("json").phone);
      const sent = await startPhoneVerification(c.env, c.get("services").sms, c.get("auth").userId, phone);
      return c.json(sent, 202);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/auth/mfa/phone/confirm",
      tags: ["Second factors"],
      summary: "Prove the phone with its code; it becomes a second factor",
      ...bearerAuth,
      request: jsonBody(z.object({ code: z.string().max(16) }).openapi("PhoneConfirmRequest")),
      responses: {
        200: jsonResponse("Verified", z.object({ phone: z.string(), verified: z.literal(true) })),
        ...problemResponses({
          401: "MFA_INVALID_CODE (details.attempts_remaining)",
          404: "PHONE_VERIFICATION_NOT_FOUND",
          429: "TOO_MANY_ATTEMPTS",
          501: "SMS_DISABLED",
        }),
      },
    }),
    async (c) => {
      requireSms(c);
      const confirmed = await confirmPhone(c.env, c.get("auth").userId, c.req.valid("json").code.trim());
      return c.json(confirmed, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/api/v1/auth/mfa/phone",
      tags: ["Second factors"],
      summary: "Remove the phone (idempotent)",
      ...bearerAuth,
      responses: {
        204: { description: "Removed (also when nothing existed)" },
        ...problemResponses({ 401: "UNAUTHORIZED", 501: "SMS_DISABLED" }),
      },
    }),
    async (c) => {
      requireSms(c);
      await removePhone(c.env.DB, c.get("auth").userId);
      return c.body(null, 204);
    },
  );
}
