/** Login (one step), phased login (start, send, verify) and magic link. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import type { AppEnv, Services } from "../core/context";
import {
  AcceptedSchema,
  jsonBody,
  jsonResponse,
  parseEmail,
  SessionResponseSchema,
  TrustedSessionResponseSchema,
} from "../core/schemas";
import type { Env } from "../core/worker-env";
import { recordFactorFailure, recordSignInFailure } from "../events/events";
import { checkTotp, hasConfirmedTotp, totpRefusal } from "../factors/factors";
import { clearPasswordGuard } from "./guards";
import { INVALID_CREDENTIALS, provePassword } from "./login-flow";
import { requestMagicLink, verifyMagicLink } from "./magic-link";
import { MFA_NOT_ENROLLED, openLoginChallenge, sendLoginFactor, verifyLoginFactor } from "./phased-login";
import { sessionResponse } from "./session-response";
import { createSession } from "./sessions";

const MAGIC_ACCEPTED = { message: "If the address belongs to an account, a sign-in code was sent." };

const MethodList = z.array(z.enum(["totp", "email", "sms", "passkey", "recovery_code"]));
const MagicLinkChallengeSchema = z
  .object({
    mfa_required: z.literal(true),
    challenge: z.string(),
    methods: MethodList,
    expires_at: z.string(),
  })
  .openapi("MagicLinkChallenge");

const LoginBody = z
  .strictObject({
    email: z.string().max(320),
    password: z.string().max(1024),
    totp_code: z.string().max(16).optional(),
  })
  .openapi("LoginRequest");
const StartBody = z
  .strictObject({ email: z.string().max(320), password: z.string().max(1024) })
  .openapi("LoginStartRequest");
const MethodSchema = z.enum(["totp", "email", "sms", "passkey", "recovery_code"]);
const SendBody = z
  .strictObject({ challenge: z.string().max(128), method: MethodSchema })
  .openapi("LoginMfaSendRequest");
const VerifyBody = z
  .strictObject({
    challenge: z.string().max(128),
    method: MethodSchema,
    code: z.string().max(64).optional(),
    credential: z.unknown().optional(),
    trust_device: z.boolean().optional(),
  })
  .openapi("LoginMfaVerifyRequest");

const loginRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/login",
  tags: ["Login and sessions"],
  summary: "Staff login with password plus TOTP in one step",
  request: jsonBody(LoginBody),
  responses: {
    200: jsonResponse("Session issued", SessionResponseSchema),
    ...problemResponses({
      400: "INVALID_EMAIL, BAD_REQUEST",
      401: "INVALID_CREDENTIALS, MFA_INVALID_CODE (details.reason code_already_used: a TOTP code whose step was spent)",
      403: "EMAIL_NOT_VERIFIED, ACCOUNT_PENDING_DELETION (only after the password matched)",
      423: "ACCOUNT_LOCKED",
      428: "MFA_NOT_ENROLLED (details.ways: a magic link signs the account in; its access token enrolls TOTP)",
      429: "RATE_LIMITED",
      503: "SIGN_IN_BUSY (no evaluation slot of the lockout guard freed within 10 s)",
    }),
  },
});

const startLoginRoute = createRoute({
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
      403: "EMAIL_NOT_VERIFIED, ACCOUNT_PENDING_DELETION (only after the password matched)",
      423: "ACCOUNT_LOCKED",
      428: "MFA_NOT_ENROLLED (details.ways: a magic link signs the account in; its access token enrolls TOTP)",
      429: "RATE_LIMITED",
      503: "SIGN_IN_BUSY (no evaluation slot of the lockout guard freed within 10 s)",
    }),
  },
});

const sendLoginMfaRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/login/mfa/send",
  tags: ["Login and sessions"],
  summary: "Phased login step 2: deliver an e-mail/SMS code, or passkey ceremony options",
  request: jsonBody(SendBody),
  responses: {
    200: jsonResponse("Passkey ceremony options", z.object({ publicKey: z.record(z.string(), z.unknown()) })),
    202: jsonResponse("Code sent (only its expiry)", z.object({ expires_at: z.string() }).strict()),
    ...problemResponses({
      400: "BAD_REQUEST, METHOD_NOT_AVAILABLE",
      401: "CHALLENGE_INVALID",
      429: "RATE_LIMITED",
      501: "PASSKEY_DISABLED",
      502: "Delivery failed",
    }),
  },
});

const verifyLoginMfaRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/login/mfa/verify",
  tags: ["Login and sessions"],
  summary: "Phased login step 3: verify the second factor (single use) and issue a session",
  request: jsonBody(VerifyBody),
  responses: {
    200: jsonResponse("Session issued", TrustedSessionResponseSchema),
    ...problemResponses({
      400: "BAD_REQUEST, METHOD_NOT_AVAILABLE",
      401: "MFA_INVALID_CODE (details.attempts_remaining; details.reason code_already_used), CHALLENGE_INVALID, PASSKEY_CEREMONY_INVALID, PASSKEY_CLONE_SUSPECTED",
      429: "TOO_MANY_ATTEMPTS (the challenge or its lockout guard)",
      503: "SIGN_IN_BUSY (no evaluation slot of the lockout guard freed within 10 s)",
    }),
  },
});

const requestMagicLinkRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/magic-link/request",
  tags: ["Login and sessions"],
  summary: "Send a sign-in code to an e-mail (identical 202 with or without an account)",
  request: jsonBody(z.strictObject({ email: z.string().max(320) })),
  responses: {
    202: jsonResponse("Accepted", AcceptedSchema),
    ...problemResponses({ 400: "INVALID_EMAIL", 429: "RATE_LIMITED" }),
  },
});

const verifyMagicLinkRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/magic-link/verify",
  tags: ["Login and sessions"],
  summary: "Verify the sign-in code and issue a session",
  request: jsonBody(z.strictObject({ email: z.string().max(320), code: z.string().max(64) })),
  responses: {
    200: jsonResponse(
      "Session issued; or, for an account with a second factor, the phased-login challenge to finish",
      z.union([SessionResponseSchema, MagicLinkChallengeSchema]),
    ),
    ...problemResponses({
      400: "INVALID_EMAIL",
      401: "CODE_INVALID",
      403: "FORBIDDEN, ACCOUNT_PENDING_DELETION (only after the code matched)",
      404: "USER_NOT_FOUND",
      423: "ACCOUNT_LOCKED",
      429: "RATE_LIMITED",
    }),
  },
});

/** The one-step staff login: the password, then the TOTP code checked inside the password's guard. */
async function passwordTotpLogin(env: Env, services: Services, body: z.infer<typeof LoginBody>) {
  const address = parseEmail(body.email);
  const { userId, guardKey, epoch } = await provePassword(
    env,
    services,
    address,
    body.password,
    async (id, failed) => {
      if (!(await hasConfirmedTotp(env.DB, id))) throw MFA_NOT_ENROLLED();
      const verdict = body.totp_code ? await checkTotp(env, id, body.totp_code.trim(), "confirmed") : "wrong";
      if (verdict !== "ok") {
        failed();
        await recordFactorFailure(env, services, "totp")(id);
        throw totpRefusal(verdict);
      }
    },
  ).catch(recordSignInFailure(env, services, address, "password"));
  await clearPasswordGuard(env, guardKey);
  const stale = INVALID_CREDENTIALS;
  return createSession(env, services, { userId, method: "password_totp", epoch, stale });
}

export function registerLoginRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(loginRoute, async (c) => {
    const session = await passwordTotpLogin(c.env, c.get("services"), c.req.valid("json"));
    return c.json(await sessionResponse(c, session), 200);
  });

  app.openapi(startLoginRoute, async (c) => {
    const body = c.req.valid("json");
    const address = parseEmail(body.email);
    const services = c.get("services");
    const { userId, guardKey, epoch } = await provePassword(c.env, services, address, body.password).catch(
      recordSignInFailure(c.env, services, address, "password"),
    );
    const opened = await openLoginChallenge(c.env, userId, guardKey, epoch);
    c.header("Cache-Control", "no-store");
    return c.json(opened, 200);
  });

  app.openapi(sendLoginMfaRoute, async (c) => {
    const sent = await sendLoginFactor(c.env, c.get("services"), c.req.valid("json"));
    return "publicKey" in sent ? c.json(sent, 200) : c.json(sent, 202);
  });

  app.openapi(verifyLoginMfaRoute, async (c) => {
    const body = c.req.valid("json");
    const services = c.get("services");
    const proven = await verifyLoginFactor(c.env, body, recordFactorFailure(c.env, services, body.method));
    const session = await createSession(c.env, services, proven);
    const { trusted } = proven;
    return c.json(await sessionResponse(c, session, { trusted_device: trusted }), 200);
  });

  app.openapi(requestMagicLinkRoute, async (c) => {
    await requestMagicLink(c.env, c.get("services"), parseEmail(c.req.valid("json").email));
    return c.json(MAGIC_ACCEPTED, 202);
  });

  app.openapi(verifyMagicLinkRoute, async (c) => {
    const body = c.req.valid("json");
    const address = parseEmail(body.email);
    const services = c.get("services");
    const outcome = await verifyMagicLink(c.env, services, address, body.code.trim()).catch(
      recordSignInFailure(c.env, services, address, "magic_link"),
    );
    if (outcome.session) return c.json(await sessionResponse(c, outcome.session), 200);
    c.header("Cache-Control", "no-store");
    return c.json({ mfa_required: true as const, ...outcome.challenge }, 200);
  });
}
