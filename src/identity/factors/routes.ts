/** The caller's second factors: TOTP enrollment and removal, recovery codes, capabilities. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import { bearerAuth } from "../core/auth";
import type { AppEnv, Services } from "../core/context";
import { jsonBody, jsonResponse, STEP_UP_EXTENSION, StepUpHeader } from "../core/schemas";
import type { Env } from "../core/worker-env";
import { type DisownKind, disownByToken } from "../emails/address-disown";
import { fail } from "../errors";
import { callerEvent } from "../events/events";
import { smsEnabled } from "../messaging/messaging";
import { primaryEmail } from "../signup/accounts-store";
import { confirmTotpEnrollment, enrollmentProof, generateRecoveryPool } from "./factor-enrollment";
import { beginTotpEnrollment, hasConfirmedTotp } from "./factors";
import { passkeysEnabled } from "./passkeys";
import { requireStepUp } from "./step-up";
import { deleteTotp, factorCounts } from "./store";
import { otpauthUri } from "./totp";

const DISOWNABLE_FACTORS: readonly DisownKind[] = ["totp", "phone", "passkey", "recovery"];

const enrollTotpRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/mfa/totp",
  tags: ["Second factors"],
  summary:
    "Start TOTP enrollment: a new secret (pending until confirmed); step-up when the account already has a factor",
  description: STEP_UP_EXTENSION,
  ...bearerAuth,
  request: { headers: StepUpHeader },
  responses: {
    200: jsonResponse("Secret", z.object({ secret: z.string(), otpauth_uri: z.string() })),
    ...problemResponses({
      401: "UNAUTHENTICATED, TOKEN_EXPIRED, CODE_INVALID",
      409: "TOTP_ALREADY_ENROLLED",
      428: "STEP_UP_REQUIRED",
      429: "RATE_LIMITED (step-up code sends and checks)",
      503: "STEP_UP_UNAVAILABLE (nothing stored)",
    }),
  },
});

const confirmTotpRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/mfa/totp/confirm",
  tags: ["Second factors"],
  summary: "Confirm TOTP enrollment with a current code; the first confirmation also returns recovery codes",
  description:
    "Asks for no step-up code: the proof was given when the enrollment was started. An enrollment started without it (the account had no factor then) completes only while the account still has none; otherwise 404, start again. The primary address is told at once, with a one-click undo.",
  ...bearerAuth,
  request: jsonBody(z.strictObject({ code: z.string().max(16) })),
  responses: {
    200: jsonResponse(
      "Confirmed",
      z.object({ confirmed: z.literal(true), recovery_codes: z.array(z.string()).optional() }),
    ),
    ...problemResponses({
      401: "UNAUTHENTICATED, TOKEN_EXPIRED, MFA_INVALID_CODE",
      404: "NOT_FOUND (no pending enrollment)",
    }),
  },
});

const deleteTotpRoute = createRoute({
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
});

const generateRecoveryCodesRoute = createRoute({
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
});

const disownFactorRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/disown",
  tags: ["Second factors"],
  summary:
    "Undo a sign-in factor or recovery-code pool someone else added (the link in the notice to the primary); signs out every session",
  description:
    "No authentication: the token, signed by this service for one factor (TOTP, phone, passkey) or recovery-code pool of one account and valid 7 days, is the proof. The factor is removed (even the account's last), the recovery codes generated with it or since are voided, every session of the account ends and its open login challenges die, in one step. Something already gone answers 204 again. An added address's link uses `POST /auth/emails/disown`.",
  request: jsonBody(z.strictObject({ token: z.string().max(256) }).openapi("DisownRequest")),
  responses: {
    204: { description: "Removed, or already gone; every session of the account ended" },
    ...problemResponses({
      400: "BAD_REQUEST",
      401: "CODE_INVALID (tampered, expired or not ours)",
      429: "RATE_LIMITED",
    }),
  },
});

const listMethodsRoute = createRoute({
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
    ...problemResponses({ 401: "UNAUTHENTICATED, TOKEN_EXPIRED" }),
  },
});

/** Removes the caller's TOTP factor (step-up first), recording the event with the removal. */
async function removeTotp(env: Env, services: Services, userId: string, stepUpCode: string | undefined) {
  await requireStepUp(env, services, userId, "mfa.totp.delete", stepUpCode);
  const removed = callerEvent(
    env,
    services,
    userId,
    "factor_removed",
    { method: "totp" },
    { ifChanged: true },
  );
  await deleteTotp(env.DB, userId, removed);
}

/** What each second factor offers the caller. */
async function mfaMethods(env: Env, userId: string) {
  const [totp, counts] = await Promise.all([hasConfirmedTotp(env.DB, userId), factorCounts(env.DB, userId)]);
  return {
    totp: { enrolled: totp },
    passkeys: { enabled: passkeysEnabled(env), count: counts.passkeys },
    phone: { enabled: smsEnabled(env), verified: counts.phones > 0 },
    recovery_codes: { remaining: counts.recovery },
    email: { available: true },
  };
}

export function registerFactorRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(enrollTotpRoute, async (c) => {
    const { userId } = c.get("auth");
    const proof = enrollmentProof(c.env, c.get("services"), userId, "totp", c.req.header("x-step-up-code"));
    const secret = await beginTotpEnrollment(c.env, userId, proof);
    if (!secret) {
      fail("TOTP_ALREADY_ENROLLED", "Remove the confirmed TOTP factor first.");
    }
    const account = (await primaryEmail(c.env.DB, userId)) ?? userId;
    c.header("Cache-Control", "no-store");
    return c.json({ secret, otpauth_uri: otpauthUri(secret, account, "Site Platform") }, 200);
  });

  app.openapi(confirmTotpRoute, async (c) => {
    const code = c.req.valid("json").code.trim();
    const confirmed = await confirmTotpEnrollment(c.env, c.get("services"), c.get("auth").userId, code);
    c.header("Cache-Control", "no-store");
    return c.json(confirmed, 200);
  });

  app.openapi(deleteTotpRoute, async (c) => {
    await removeTotp(c.env, c.get("services"), c.get("auth").userId, c.req.header("x-step-up-code"));
    return c.body(null, 204);
  });

  app.openapi(generateRecoveryCodesRoute, async (c) => {
    const { userId } = c.get("auth");
    const services = c.get("services");
    await requireStepUp(
      c.env,
      services,
      userId,
      "mfa.recovery_codes.generate",
      c.req.header("x-step-up-code"),
    );
    const codes = await generateRecoveryPool(c.env, services, userId);
    c.header("Cache-Control", "no-store");
    return c.json({ recovery_codes: codes }, 200);
  });

  app.openapi(disownFactorRoute, async (c) => {
    await disownByToken(c.env, c.get("services"), c.req.valid("json").token, DISOWNABLE_FACTORS);
    return c.body(null, 204);
  });

  app.openapi(listMethodsRoute, async (c) => c.json(await mfaMethods(c.env, c.get("auth").userId), 200));
}
