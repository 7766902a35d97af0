/** The caller's phone as a second factor: start (send a code), confirm, remove. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import { bearerAuth } from "../core/auth";
import type { AppContext, AppEnv } from "../core/context";
import { jsonBody, jsonResponse, STEP_UP_EXTENSION, StepUpHeader } from "../core/schemas";
import { fail } from "../errors";
import { callerEvent } from "../events/events";
import { smsEnabled } from "../messaging/messaging";
import { enrollmentProof, mayComplete, tellOwner } from "./factor-enrollment";
import { confirmPhone, parsePhone, startPhoneVerification } from "./phone-verification";
import { removePhone } from "./phones-store";

function requireSms(c: AppContext) {
  if (!smsEnabled(c.env)) fail("SMS_DISABLED", "SMS is disabled.");
}

const startPhoneRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/mfa/phone/start",
  tags: ["Second factors"],
  summary:
    "Send a code to a phone number (E.164, validated before any provider call); step-up when the account already has a factor",
  description: STEP_UP_EXTENSION,
  ...bearerAuth,
  request: {
    ...jsonBody(z.strictObject({ phone: z.string().max(32) }).openapi("PhoneStartRequest")),
    headers: StepUpHeader,
  },
  responses: {
    202: jsonResponse("Code sent", z.object({ expires_at: z.string(), sent_to: z.string() })),
    ...problemResponses({
      400: "INVALID_PHONE",
      401: "UNAUTHENTICATED, TOKEN_EXPIRED, CODE_INVALID",
      428: "STEP_UP_REQUIRED",
      429: "RATE_LIMITED",
      501: "SMS_DISABLED",
      502: "Provider failure",
      503: "STEP_UP_UNAVAILABLE (nothing sent)",
    }),
  },
});

const confirmPhoneRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/mfa/phone/confirm",
  tags: ["Second factors"],
  summary: "Prove the phone with its code; it becomes a second factor",
  description:
    "Asks for no step-up code: the proof was given when the verification was started. One started without it (the account had no factor then) completes only while the account still has none; otherwise 404, start again. The primary address is told at once, with a one-click undo.",
  ...bearerAuth,
  request: jsonBody(z.strictObject({ code: z.string().max(16) }).openapi("PhoneConfirmRequest")),
  responses: {
    200: jsonResponse("Verified", z.object({ phone: z.string(), verified: z.literal(true) })),
    ...problemResponses({
      401: "MFA_INVALID_CODE (details.attempts_remaining)",
      404: "PHONE_VERIFICATION_NOT_FOUND",
      429: "TOO_MANY_ATTEMPTS",
      501: "SMS_DISABLED",
    }),
  },
});

const deletePhoneRoute = createRoute({
  method: "delete",
  path: "/api/v1/auth/mfa/phone",
  tags: ["Second factors"],
  summary: "Remove the phone (idempotent)",
  ...bearerAuth,
  responses: {
    204: { description: "Removed (also when nothing existed)" },
    ...problemResponses({ 401: "UNAUTHENTICATED, TOKEN_EXPIRED", 501: "SMS_DISABLED" }),
  },
});

export function registerPhoneRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(startPhoneRoute, async (c) => {
    requireSms(c);
    const phone = parsePhone(c.req.valid("json").phone);
    const { userId } = c.get("auth");
    const stepUpCode = c.req.header("x-step-up-code");
    const steppedUp = await enrollmentProof(c.env, c.get("services"), userId, "phone", stepUpCode)();
    const input = { userId, phone, steppedUp };
    return c.json(await startPhoneVerification(c.env, c.get("services").sms, input), 202);
  });

  app.openapi(confirmPhoneRoute, async (c) => {
    requireSms(c);
    // The save is conditional (proof, or no factor yet), so the event follows it only if it wrote.
    const { userId } = c.get("auth");
    const services = c.get("services");
    const added = callerEvent(
      c.env,
      services,
      userId,
      "factor_added",
      { method: "sms" },
      { ifChanged: true },
    );
    const code = c.req.valid("json").code.trim();
    const proven = (steppedUp: boolean) => mayComplete(c.env, userId, steppedUp);
    const { id, ...confirmed } = await confirmPhone(c.env, userId, code, proven, added);
    await tellOwner(c.env, services, userId, { kind: "phone", id, detail: confirmed.phone });
    return c.json(confirmed, 200);
  });

  app.openapi(deletePhoneRoute, async (c) => {
    requireSms(c);
    const { userId } = c.get("auth");
    const removed = callerEvent(
      c.env,
      c.get("services"),
      userId,
      "factor_removed",
      { method: "sms" },
      { ifChanged: true },
    );
    await removePhone(c.env.DB, userId, removed);
    return c.body(null, 204);
  });
}
