/** The caller's phone as a second factor: start (send a code), confirm, remove. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import { requireBearer } from "../auth";
import type { AppContext, AppEnv } from "../context";
import { maskPhone } from "../crypto";
import { fail, problem } from "../errors";
import { enforceRateLimit } from "../guards";
import { smsEnabled } from "../messaging";
import { consumeOtp, issueOtp } from "../otp";
import {
  pendingPhoneVerification,
  phoneAttemptsRemaining,
  removePhone,
  retirePendingPhoneCodes,
  saveVerifiedPhone,
} from "../store/phones";
import { bearerSecurity, jsonBody, jsonResponse } from "./schemas";

const E164 = /^\+[1-9]\d{6,14}$/;

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
      security: bearerSecurity,
      middleware: [requireBearer] as const,
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
      const phone = c.req.valid("json").phone.replace(/[\s()-]/g, "");
      if (!E164.test(phone)) fail("INVALID_PHONE", "Use the E.164 format, e.g. +14155550123.");
      const { userId } = c.get("auth");
      await enforceRateLimit(c.env, "phone_start_user", userId);
      await retirePendingPhoneCodes(c.env.DB, userId);
      const otp = await issueOtp(c.env, { purpose: "phone_verify", target: phone, userId, context: "phone" });
      try {
        await c.get("services").sms.send({
          to: phone,
          purpose: "phone_verify",
          subject: "Phone verification",
          body: `Your verification code is ${otp.code}.`,
          code: otp.code,
        });
      } catch (err) {
        fail("SMS_DELIVERY_FAILED", {
          detail: "The SMS could not be sent; try again.",
          reason: (err as Error).message,
        });
      }
      return c.json({ expires_at: otp.expiresAt, sent_to: maskPhone(phone) }, 202);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/auth/mfa/phone/confirm",
      tags: ["Second factors"],
      summary: "Prove the phone with its code; it becomes a second factor",
      security: bearerSecurity,
      middleware: [requireBearer] as const,
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
      const { userId } = c.get("auth");
      const pending = await pendingPhoneVerification(c.env.DB, userId);
      if (!pending) {
        fail("PHONE_VERIFICATION_NOT_FOUND", "Start a phone verification first.");
      }
      const tooMany = () =>
        problem("TOO_MANY_ATTEMPTS", "Too many wrong codes; start the verification again.");
      if (pending.attempts >= pending.max_attempts) throw tooMany();
      const won = await consumeOtp(c.env, {
        purpose: "phone_verify",
        target: pending.target,
        code: c.req.valid("json").code.trim(),
        userId,
      });
      if (!won) {
        const remaining = await phoneAttemptsRemaining(c.env.DB, userId, pending.target);
        if (remaining === 0) throw tooMany();
        fail("MFA_INVALID_CODE", {
          detail: "The code is invalid.",
          details: { attempts_remaining: remaining },
        });
      }
      await saveVerifiedPhone(c.env.DB, userId, pending.target);
      return c.json({ phone: maskPhone(pending.target), verified: true as const }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/api/v1/auth/mfa/phone",
      tags: ["Second factors"],
      summary: "Remove the phone (idempotent)",
      security: bearerSecurity,
      middleware: [requireBearer] as const,
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
