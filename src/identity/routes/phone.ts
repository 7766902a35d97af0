/** The caller's phone as a second factor: start (send a code), confirm, remove. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import { ApiError } from "../../lib/problem";
import { requireBearer } from "../auth";
import type { AppContext, AppEnv } from "../context";
import { maskPhone, nowIso } from "../crypto";
import { enforceRateLimit } from "../guards";
import { consumeOtp, issueOtp } from "../otp";
import { bearerSecurity, jsonBody, jsonResponse } from "./schemas";

const E164 = /^\+[1-9]\d{6,14}$/;

function requireSms(c: AppContext) {
  if (c.env.SMS_ENABLED !== "true") throw new ApiError(501, "SMS_DISABLED", { detail: "SMS is disabled." });
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
      if (!E164.test(phone))
        throw new ApiError(400, "INVALID_PHONE", { detail: "Use the E.164 format, e.g. +14155550123." });
      const { userId } = c.get("auth");
      await enforceRateLimit(c.env, "phone_start_user", userId);
      // The number stays out of `phones` until proven: it lives only in the pending code.
      await c.env.DB.prepare(
        "UPDATE otp_codes SET used_at = ? WHERE purpose = 'phone_verify' AND user_id = ? AND used_at IS NULL",
      )
        .bind(nowIso(), userId)
        .run();
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
        throw new ApiError(502, "SMS_DELIVERY_FAILED", {
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
      const pending = await c.env.DB.prepare(
        `SELECT target, attempts, max_attempts FROM otp_codes
         WHERE purpose = 'phone_verify' AND user_id = ? AND used_at IS NULL AND expires_at > ?
         ORDER BY created_at DESC LIMIT 1`,
      )
        .bind(userId, nowIso())
        .first<{ target: string; attempts: number; max_attempts: number }>();
      if (!pending) {
        throw new ApiError(404, "PHONE_VERIFICATION_NOT_FOUND", {
          detail: "Start a phone verification first.",
        });
      }
      const tooMany = () =>
        new ApiError(429, "TOO_MANY_ATTEMPTS", {
          detail: "Too many wrong codes; start the verification again.",
        });
      if (pending.attempts >= pending.max_attempts) throw tooMany();
      const won = await consumeOtp(c.env, {
        purpose: "phone_verify",
        target: pending.target,
        code: c.req.valid("json").code.trim(),
        userId,
      });
      if (!won) {
        const after = await c.env.DB.prepare(
          `SELECT MAX(max_attempts - attempts) AS remaining FROM otp_codes
           WHERE purpose = 'phone_verify' AND user_id = ? AND target = ? AND used_at IS NULL`,
        )
          .bind(userId, pending.target)
          .first<{ remaining: number | null }>();
        const remaining = Math.max(0, after?.remaining ?? 0);
        if (remaining === 0) throw tooMany();
        throw new ApiError(401, "MFA_INVALID_CODE", {
          detail: "The code is invalid.",
          details: { attempts_remaining: remaining },
        });
      }
      const now = nowIso();
      await c.env.DB.prepare(
        `INSERT INTO phones (user_id, e164, verified_at, created_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (user_id) DO UPDATE SET e164 = excluded.e164, verified_at = excluded.verified_at`,
      )
        .bind(userId, pending.target, now, now)
        .run();
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
      const { userId } = c.get("auth");
      await c.env.DB.batch([
        c.env.DB.prepare("DELETE FROM phones WHERE user_id = ?").bind(userId),
        c.env.DB.prepare(
          "UPDATE otp_codes SET used_at = ? WHERE purpose = 'phone_verify' AND user_id = ? AND used_at IS NULL",
        ).bind(nowIso(), userId),
      ]);
      return c.body(null, 204);
    },
  );
}
