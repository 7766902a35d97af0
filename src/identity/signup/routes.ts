/** Signup, signup e-mail verification, password reset and password change. */

import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import { batch } from "../../lib/sql";
import { bearerAuth } from "../core/auth";
import type { AppEnv, Services } from "../core/context";
import { isUniqueViolation } from "../core/d1-errors";
import { AcceptedSchema, jsonBody, jsonResponse, parseEmail, SessionResponseSchema } from "../core/schemas";
import type { Env } from "../core/worker-env";
import { fail } from "../errors";
import { eventOrigin, recordEvent } from "../events/events";
import { requireStepUp } from "../factors/step-up";
import { enforceRateLimit, enforceVerifyQuotas } from "../login/guards";
import { proveCurrentPassword } from "../login/login-flow";
import { sessionResponse } from "../login/session-response";
import { prepareSession } from "../login/sessions";
import { revokeAllSessionsStatement } from "../login/sessions-store";
import { localeFromAcceptLanguage } from "../messaging/messages";
import { consumeOtp } from "../messaging/otp";
import { grantEndStatements } from "../oauth/endings";
import { activationStatements, getUser, setPasswordStatements } from "./accounts-store";
import { hashPassword } from "./password";
import { enforcePasswordPolicy } from "./password-policy";
import { confirmPasswordReset, requestPasswordReset } from "./password-reset";
import { requestSignup } from "./signup";

const RESET_ACCEPTED = { message: "If the address belongs to an account, a reset code was sent." };

const EmailPassword = z
  .strictObject({ email: z.string().max(320), password: z.string().max(1024) })
  .openapi("SignupRequest");
const EmailCode = z
  .strictObject({ email: z.string().max(320), code: z.string().max(64) })
  .openapi("EmailCodeRequest");
const ResetConfirm = z
  .strictObject({ email: z.string().max(320), code: z.string().max(64), new_password: z.string().max(1024) })
  .openapi("PasswordResetConfirmRequest");
const PasswordChange = z
  .strictObject({ current_password: z.string().max(1024), new_password: z.string().max(1024) })
  .openapi("PasswordChangeRequest");

const signupRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/signup",
  tags: ["Signup and password"],
  summary: "Self-signup (identical 202 for new and registered e-mails)",
  request: jsonBody(EmailPassword),
  responses: {
    202: jsonResponse(
      "Accepted; a code (or, for a registered address, a notice) was e-mailed",
      AcceptedSchema,
    ),
    ...problemResponses({
      400: "INVALID_EMAIL, PASSWORD_TOO_WEAK, PASSWORD_BREACHED",
      429: "RATE_LIMITED",
      501: "NOT_IMPLEMENTED",
      503: "PASSWORD_CHECK_UNAVAILABLE",
    }),
  },
});

const confirmEmailRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/email/verify/confirm",
  tags: ["Signup and password"],
  summary: "Confirm the signup e-mail code; the account becomes active and a session is issued",
  request: jsonBody(EmailCode),
  responses: {
    200: jsonResponse("Session issued", SessionResponseSchema),
    ...problemResponses({
      400: "INVALID_EMAIL",
      401: "CODE_INVALID",
      409: "EMAIL_TAKEN",
      429: "RATE_LIMITED",
    }),
  },
});

const requestPasswordResetRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/password/reset/request",
  tags: ["Signup and password"],
  summary: "Request a password reset code (identical 202 whether or not the address has an account)",
  request: jsonBody(z.strictObject({ email: z.string().max(320) }).openapi("EmailRequest")),
  responses: {
    202: jsonResponse("Accepted", AcceptedSchema),
    ...problemResponses({ 400: "INVALID_EMAIL", 429: "RATE_LIMITED" }),
  },
});

const confirmPasswordResetRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/password/reset/confirm",
  tags: ["Signup and password"],
  summary:
    "Set a new password with the reset code; every session of the account is revoked and every passkey registered without the step-up ends",
  description:
    "In one write: the new password, every code and link of the account voided, every session revoked, and every passkey registered without the step-up (issue 31; every passkey from before it) removed, since a stolen access token could have added it and a passkey signs in alone. The mail that confirms the reset names the passkeys it removed and lists the factors and passkeys still on the account, with the account page's address.",
  request: jsonBody(ResetConfirm),
  responses: {
    204: { description: "Password changed" },
    ...problemResponses({
      400: "INVALID_EMAIL, PASSWORD_TOO_WEAK, PASSWORD_BREACHED",
      401: "CODE_INVALID",
      429: "RATE_LIMITED",
      503: "PASSWORD_CHECK_UNAVAILABLE",
    }),
  },
});

const changePasswordRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/password/change",
  tags: ["Signup and password"],
  summary: "Change the password (step-up); all other sessions are revoked",
  ...bearerAuth,
  request: {
    ...jsonBody(PasswordChange),
    headers: z.object({ "x-step-up-code": z.string().max(64).optional() }),
  },
  responses: {
    204: { description: "Password changed" },
    ...problemResponses({
      400: "PASSWORD_TOO_WEAK, PASSWORD_BREACHED",
      401: "INVALID_CREDENTIALS, CODE_INVALID",
      409: "PASSWORD_NOT_SET",
      423: "ACCOUNT_LOCKED (too many wrong current passwords, the sign-in lockout)",
      428: "STEP_UP_REQUIRED",
      429: "RATE_LIMITED (step-up code sends and checks)",
      503: "STEP_UP_UNAVAILABLE, PASSWORD_CHECK_UNAVAILABLE, SIGN_IN_BUSY",
    }),
  },
});

/** Proves the signup address with its code and activates the account; its first session is opened with it. */
async function confirmSignupEmail(env: Env, services: Services, body: z.infer<typeof EmailCode>) {
  const address = parseEmail(body.email);
  await enforceVerifyQuotas(env, services.request.ip, address, body.code.trim());
  const won = await consumeOtp(env, {
    purpose: "email_verify",
    target: address,
    code: body.code.trim(),
  });
  if (!won?.userId) fail("CODE_INVALID", "The code is invalid.");
  const { statement, session, events } = await prepareSession(env, services, {
    userId: won.userId,
    method: "email_verify",
  });
  try {
    await batch(env.DB, [...activationStatements(env.DB, won.userId, address), statement, ...events]);
  } catch (err) {
    if (isUniqueViolation(err)) {
      fail("EMAIL_TAKEN", "Another account proved this address first.");
    }
    throw err;
  }
  return session;
}

/** Replaces the password (current password and step-up proven first); every other session ends. */
async function changePassword(
  env: Env,
  services: Services,
  auth: { userId: string; sessionId: string },
  body: z.infer<typeof PasswordChange>,
  stepUpCode: string | undefined,
) {
  const { userId, sessionId } = auth;
  await enforcePasswordPolicy(env, services, body.new_password);
  const user = await getUser(env.DB, userId);
  if (!user?.password_hash) {
    fail("PASSWORD_NOT_SET", "This account has no password; use a reset instead.");
  }
  await proveCurrentPassword(env, services, userId, body.current_password, user.password_hash);
  await requireStepUp(env, services, userId, "password.change", stepUpCode);
  const hash = await hashPassword(body.new_password);
  const origin = eventOrigin(services.request);
  const event = recordEvent(env.DB, origin, { userId, type: "password_changed" });
  // Every MCP agent's grant ends too (oauth/endings.ts): a thief who approved one must not keep it.
  const agents = await grantEndStatements(
    env.DB,
    { userId },
    { reason: "password_changed", by: userId, origin },
  );
  await batch(env.DB, [
    ...setPasswordStatements(env.DB, userId, hash),
    revokeAllSessionsStatement(env.DB, userId, "password_change", sessionId),
    event,
    ...agents,
  ]);
}

export function registerSignupRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(signupRoute, async (c) => {
    if (c.env.SIGNUP_ENABLED === "false") fail("NOT_IMPLEMENTED", "Signup is disabled.");
    const body = c.req.valid("json");
    const address = parseEmail(body.email);
    const services = c.get("services");
    await enforceRateLimit(c.env, "signup_ip", services.request.ip);
    await enforceRateLimit(c.env, "signup_email", address);
    await enforcePasswordPolicy(c.env, services, body.password);
    const locale = localeFromAcceptLanguage(c.req.header("accept-language"));
    return c.json(requestSignup(c.env, services, address, body.password, locale), 202);
  });

  app.openapi(confirmEmailRoute, async (c) => {
    const session = await confirmSignupEmail(c.env, c.get("services"), c.req.valid("json"));
    return c.json(await sessionResponse(c, session), 200);
  });

  app.openapi(requestPasswordResetRoute, async (c) => {
    await requestPasswordReset(c.env, c.get("services"), parseEmail(c.req.valid("json").email));
    return c.json(RESET_ACCEPTED, 202);
  });

  app.openapi(confirmPasswordResetRoute, async (c) => {
    const body = c.req.valid("json");
    await confirmPasswordReset(c.env, c.get("services"), {
      address: parseEmail(body.email),
      code: body.code.trim(),
      newPassword: body.new_password,
    });
    return c.body(null, 204);
  });

  app.openapi(changePasswordRoute, async (c) => {
    await changePassword(
      c.env,
      c.get("services"),
      c.get("auth"),
      c.req.valid("json"),
      c.req.header("x-step-up-code"),
    );
    return c.body(null, 204);
  });
}
