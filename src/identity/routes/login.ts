/** Login (one step), phased login (start, send, verify) and magic link. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import { LOGIN_CHALLENGE_TTL_S } from "../config";
import type { AppContext, AppEnv } from "../context";
import { clientIp } from "../context";
import { hmacHex, maskEmail, maskPhone, randomDigits, randomToken } from "../crypto";
import type { LoginMethod, VerifyInput } from "../durable/login-challenge";
import { fail, problem } from "../errors";
import { hasConfirmedTotp, verifyTotp } from "../factors";
import { clearPasswordGuard, enforceRateLimit } from "../guards";
import { provePassword } from "../login-flow";
import { smsEnabled } from "../messaging";
import { consumeOtp } from "../otp";
import { mailCodeToActiveOwner } from "../owner-codes";
import { passkeyLoginOptions, passkeysEnabled } from "../passkeys";
import { createSession, sessionResponse } from "../sessions";
import { getUser, primaryEmail } from "../store/accounts";
import { hasUnusedRecoveryCodes } from "../store/factors";
import { hasPasskeys } from "../store/passkeys";
import { verifiedPhone } from "../store/phones";
import {
  AcceptedSchema,
  jsonBody,
  jsonResponse,
  parseEmail,
  SessionResponseSchema,
  TrustedSessionResponseSchema,
} from "./schemas";

const MAGIC_ACCEPTED = { message: "If the address belongs to an account, a sign-in code was sent." };

const LoginBody = z
  .object({
    email: z.string().max(320),
    password: z.string().max(1024),
    totp_code: z.string().max(16).optional(),
  })
  .openapi("LoginRequest");
const StartBody = z
  .object({ email: z.string().max(320), password: z.string().max(1024) })
  .openapi("LoginStartRequest");
const MethodSchema = z.enum(["totp", "email", "sms", "passkey", "recovery_code"]);
const SendBody = z
  .object({ challenge: z.string().max(128), method: MethodSchema })
  .openapi("LoginMfaSendRequest");
const VerifyBody = z
  .object({
    challenge: z.string().max(128),
    method: MethodSchema,
    code: z.string().max(64).optional(),
    credential: z.unknown().optional(),
    trust_device: z.boolean().optional(),
  })
  .openapi("LoginMfaVerifyRequest");

function challengeStub(c: AppContext, challenge: string) {
  return c.env.LOGIN_CHALLENGES.get(c.env.LOGIN_CHALLENGES.idFromName(`challenge:${challenge}`));
}

const CHALLENGE_INVALID = () =>
  problem("CHALLENGE_INVALID", "The login challenge is unknown, expired or already used.");

function codeHash(c: AppContext, challenge: string, method: string, code: string) {
  return hmacHex(c.env.OTP_PEPPER, `login_mfa|${challenge}|${method}|${code}`);
}

export function registerLoginRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/auth/login",
      tags: ["Login and sessions"],
      summary: "Staff login with password plus TOTP in one step",
      request: jsonBody(LoginBody),
      responses: {
        200: jsonResponse("Session issued", SessionResponseSchema),
        ...problemResponses({
          400: "INVALID_EMAIL, BAD_REQUEST",
          401: "INVALID_CREDENTIALS, MFA_INVALID_CODE",
          403: "EMAIL_NOT_VERIFIED (only after the password matched)",
          423: "ACCOUNT_LOCKED",
          428: "MFA_NOT_ENROLLED",
          429: "RATE_LIMITED",
        }),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const address = parseEmail(body.email);
      const { userId } = await provePassword(c, address, body.password);
      if (!(await hasConfirmedTotp(c.env.DB, userId))) {
        fail("MFA_NOT_ENROLLED", "Enroll a TOTP factor first.");
      }
      if (!body.totp_code || !(await verifyTotp(c.env, userId, body.totp_code.trim(), "confirmed"))) {
        fail("MFA_INVALID_CODE", "The TOTP code is invalid.");
      }
      await clearPasswordGuard(c.env, address);
      const session = await createSession(c, { userId, method: "password_totp" });
      return c.json(await sessionResponse(c, session), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/auth/login/start",
      tags: ["Login and sessions"],
      summary: "Phased login step 1: prove the password, open a challenge",
      request: jsonBody(StartBody),
      responses: {
        200: jsonResponse(
          "Challenge opened",
          z.object({ challenge: z.string(), methods: z.array(MethodSchema), expires_at: z.string() }),
        ),
        ...problemResponses({
          400: "INVALID_EMAIL, BAD_REQUEST",
          401: "INVALID_CREDENTIALS",
          403: "EMAIL_NOT_VERIFIED",
          423: "ACCOUNT_LOCKED",
          428: "MFA_NOT_ENROLLED",
          429: "RATE_LIMITED",
        }),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const address = parseEmail(body.email);
      const { userId } = await provePassword(c, address, body.password);
      const [totp, passkeys, phone, recovery] = await Promise.all([
        hasConfirmedTotp(c.env.DB, userId),
        passkeysEnabled(c.env) ? hasPasskeys(c.env.DB, userId) : Promise.resolve(false),
        smsEnabled(c.env) ? verifiedPhone(c.env.DB, userId) : Promise.resolve(null),
        hasUnusedRecoveryCodes(c.env.DB, userId),
      ]);
      if (!totp && !passkeys) fail("MFA_NOT_ENROLLED", "Enroll a TOTP factor first.");
      const methods: LoginMethod[] = [];
      if (totp) methods.push("totp");
      methods.push("email");
      if (phone) methods.push("sms");
      if (passkeys) methods.push("passkey");
      if (recovery) methods.push("recovery_code");
      const challenge = randomToken(32);
      const expiresAt = Date.now() + LOGIN_CHALLENGE_TTL_S * 1000;
      await challengeStub(c, challenge).open({ userId, address, methods, expiresAt });
      c.header("Cache-Control", "no-store");
      return c.json({ challenge, methods, expires_at: new Date(expiresAt).toISOString() }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/auth/login/mfa/send",
      tags: ["Login and sessions"],
      summary: "Phased login step 2: deliver an e-mail/SMS code, or passkey ceremony options",
      request: jsonBody(SendBody),
      responses: {
        200: jsonResponse(
          "Passkey ceremony options",
          z.object({ publicKey: z.record(z.string(), z.unknown()) }),
        ),
        202: jsonResponse("Code sent", z.object({ expires_at: z.string() })),
        ...problemResponses({
          400: "BAD_REQUEST, METHOD_NOT_AVAILABLE",
          401: "CHALLENGE_INVALID",
          429: "RATE_LIMITED",
          501: "PASSKEY_DISABLED",
          502: "Delivery failed",
        }),
      },
    }),
    async (c) => {
      const { challenge, method } = c.req.valid("json");
      if (method === "totp" || method === "recovery_code") {
        fail("METHOD_NOT_AVAILABLE", `Method ${method} needs no delivery step.`);
      }
      if (method === "passkey" && !passkeysEnabled(c.env)) {
        fail("PASSKEY_DISABLED", "Passkeys are disabled.");
      }
      const stub = challengeStub(c, challenge);
      const open = await stub.describe();
      if (!open) throw CHALLENGE_INVALID();
      if (!open.methods.includes(method)) {
        fail("METHOD_NOT_AVAILABLE", `Method ${method} is not available.`);
      }
      await enforceRateLimit(c.env, "mfa_send_challenge", challenge);
      if (method === "passkey") {
        const options = await passkeyLoginOptions(c.env, open.userId);
        if (!(await stub.armPasskey(options.challenge))) throw CHALLENGE_INVALID();
        return c.json({ publicKey: options as unknown as Record<string, unknown> }, 200);
      }
      const code = randomDigits(6);
      const expiresAt = Math.min(open.expiresAt, Date.now() + 10 * 60 * 1000);
      if (!(await stub.armCode(method, await codeHash(c, challenge, method, code), expiresAt)))
        throw CHALLENGE_INVALID();
      const to =
        method === "email"
          ? await primaryEmail(c.env.DB, open.userId)
          : await verifiedPhone(c.env.DB, open.userId);
      if (!to) fail("METHOD_NOT_AVAILABLE", `Method ${method} is not available.`);
      const message = {
        to,
        purpose: "login_mfa" as const,
        subject: "Your sign-in code",
        body: `Your sign-in code is ${code}. It expires in 10 minutes.`,
        code,
      };
      try {
        await (method === "email" ? c.get("services").mailer : c.get("services").sms).send(message);
      } catch (err) {
        fail("DELIVERY_FAILED", {
          detail: "The code could not be sent; try again or use another method.",
          reason: (err as Error).message,
        });
      }
      return c.json(
        {
          expires_at: new Date(expiresAt).toISOString(),
          sent_to: method === "email" ? maskEmail(to) : maskPhone(to),
        },
        202,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/auth/login/mfa/verify",
      tags: ["Login and sessions"],
      summary: "Phased login step 3: verify the second factor (single use) and issue a session",
      request: jsonBody(VerifyBody),
      responses: {
        200: jsonResponse("Session issued", TrustedSessionResponseSchema),
        ...problemResponses({
          400: "BAD_REQUEST, METHOD_NOT_AVAILABLE",
          401: "MFA_INVALID_CODE (details.attempts_remaining), CHALLENGE_INVALID, PASSKEY_CEREMONY_INVALID, PASSKEY_CLONE_SUSPECTED",
          429: "TOO_MANY_ATTEMPTS",
        }),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      let input: VerifyInput;
      if (body.method === "passkey") {
        if (!passkeysEnabled(c.env)) fail("PASSKEY_DISABLED", "Passkeys are disabled.");
        if (body.credential === undefined) fail("BAD_REQUEST", "credential is required.");
        input = { method: "passkey", credential: body.credential };
      } else {
        const code = body.code?.trim();
        if (!code) fail("BAD_REQUEST", "code is required.");
        input =
          body.method === "email" || body.method === "sms"
            ? { method: body.method, codeHash: await codeHash(c, body.challenge, body.method, code) }
            : { method: body.method, code };
      }
      const outcome = await challengeStub(c, body.challenge).verify(input);
      switch (outcome.kind) {
        case "invalid":
          throw CHALLENGE_INVALID();
        case "method_not_available":
          return fail("METHOD_NOT_AVAILABLE", `Method ${body.method} is not available.`);
        case "ceremony_invalid":
          return fail("PASSKEY_CEREMONY_INVALID", "Request passkey options first.");
        case "dead":
          return fail("TOO_MANY_ATTEMPTS", "Too many wrong attempts; start the login again.");
        case "wrong":
          return fail(outcome.reason === "clone" ? "PASSKEY_CLONE_SUSPECTED" : "MFA_INVALID_CODE", {
            detail:
              outcome.reason === "clone"
                ? "The passkey's signature counter regressed."
                : "The code is invalid.",
            details: { attempts_remaining: outcome.remaining },
          });
        case "ok": {
          await clearPasswordGuard(c.env, outcome.address);
          // A recovery code is an emergency entry: it never earns a long-lived trusted-device session.
          const trusted = body.trust_device === true && body.method !== "recovery_code";
          const session = await createSession(c, {
            userId: outcome.userId,
            method: `password_${body.method}`,
            trusted,
          });
          return c.json(await sessionResponse(c, session, { trusted_device: trusted }), 200);
        }
      }
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/auth/magic-link/request",
      tags: ["Login and sessions"],
      summary: "Send a sign-in code to an e-mail (identical 202 with or without an account)",
      request: jsonBody(z.object({ email: z.string().max(320) })),
      responses: {
        202: jsonResponse("Accepted", AcceptedSchema),
        ...problemResponses({ 400: "INVALID_EMAIL", 429: "RATE_LIMITED" }),
      },
    }),
    async (c) => {
      const address = parseEmail(c.req.valid("json").email);
      await enforceRateLimit(c.env, "magic_ip", clientIp(c));
      await enforceRateLimit(c.env, "magic_email", address);
      await mailCodeToActiveOwner(c, address, {
        purpose: "magic_link",
        message: (code) => {
          const link = `${c.env.ISSUER}/auth/magic-link?email=${encodeURIComponent(address)}&code=${code}`;
          return {
            subject: "Your sign-in link",
            body: `Sign in with code ${code} or open ${link}. It expires in 15 minutes.`,
            link,
          };
        },
        events: {
          sent: "magic_link_sent",
          failed: "magic_link_failed",
          withoutAccount: "magic_link_without_account",
        },
      });
      return c.json(MAGIC_ACCEPTED, 202);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/auth/magic-link/verify",
      tags: ["Login and sessions"],
      summary: "Verify the sign-in code and issue a session",
      request: jsonBody(z.object({ email: z.string().max(320), code: z.string().max(64) })),
      responses: {
        200: jsonResponse("Session issued", SessionResponseSchema),
        ...problemResponses({
          400: "INVALID_EMAIL",
          401: "CODE_INVALID",
          403: "FORBIDDEN",
          404: "USER_NOT_FOUND",
          423: "ACCOUNT_LOCKED",
          429: "RATE_LIMITED",
        }),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const address = parseEmail(body.email);
      await enforceRateLimit(c.env, "verify_ip", clientIp(c));
      await enforceRateLimit(c.env, "verify_email", address);
      const won = await consumeOtp(c.env, { purpose: "magic_link", target: address, code: body.code.trim() });
      if (!won) fail("CODE_INVALID", "The code is invalid.");
      const user = won.userId ? await getUser(c.env.DB, won.userId) : null;
      if (!user) fail("USER_NOT_FOUND", "The account no longer exists.");
      if (user.status === "locked") fail("ACCOUNT_LOCKED", "The account is locked.");
      if (user.status !== "active") fail("FORBIDDEN", "The account is disabled.");
      await clearPasswordGuard(c.env, address);
      const session = await createSession(c, { userId: user.id, method: "magic_link" });
      return c.json(await sessionResponse(c, session), 200);
    },
  );
}
