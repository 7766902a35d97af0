/** Passkey-first sign-in (beyond the spec): begin and finish, no password and no account named first. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import type { AppEnv } from "../core/context";
import { jsonBody, jsonResponse, TrustedSessionResponseSchema } from "../core/schemas";
import { fail } from "../errors";
import { sessionResponse } from "../login/session-response";
import { beginPasskeyLogin, finishPasskeyLogin } from "./passkey-login";

const FinishBody = z
  .strictObject({ credential: z.unknown(), trust_device: z.boolean().optional() })
  .openapi("PasskeyLoginFinishRequest");

const beginPasskeyLoginRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/login/passkey/begin",
  tags: ["Login and sessions"],
  summary: "Passkey-first sign-in step 1: options for a discoverable credential (user verification required)",
  description:
    "Beyond the spec. Body `{}`. `allowCredentials` is empty; the challenge is kept on the server, good for one finish within 5 minutes.",
  responses: {
    200: jsonResponse(
      "Options for navigator.credentials.get",
      z.object({ publicKey: z.record(z.string(), z.unknown()) }),
    ),
    ...problemResponses({ 429: "RATE_LIMITED", 501: "PASSKEY_DISABLED" }),
  },
});

const finishPasskeyLoginRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/login/passkey/finish",
  tags: ["Login and sessions"],
  summary: "Passkey-first sign-in step 2: verify the assertion (single-use challenge) and issue a session",
  description:
    'Beyond the spec. Body `{"credential": <AuthenticationResponseJSON>, "trust_device"?: boolean}`. The password lockout never applies.',
  request: jsonBody(FinishBody),
  responses: {
    200: jsonResponse("Session issued", TrustedSessionResponseSchema),
    ...problemResponses({
      400: "BAD_REQUEST (missing credential)",
      401: "PASSKEY_INVALID (unknown credential, bad or replayed assertion, no user verification, regressed counter: one body)",
      403: "EMAIL_NOT_VERIFIED, ACCOUNT_PENDING_DELETION (only after the assertion verified), FORBIDDEN",
      423: "ACCOUNT_LOCKED (account status, never the password lockout)",
      429: "RATE_LIMITED",
      501: "PASSKEY_DISABLED",
    }),
  },
});

export function registerPasskeyLoginRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(beginPasskeyLoginRoute, async (c) => {
    const options = await beginPasskeyLogin(c.env, c.get("services"));
    c.header("Cache-Control", "no-store");
    return c.json(options, 200);
  });

  app.openapi(finishPasskeyLoginRoute, async (c) => {
    const body = c.req.valid("json");
    if (body.credential === undefined) fail("BAD_REQUEST", "credential is required.");
    const session = await finishPasskeyLogin(c.env, c.get("services"), body);
    return c.json(await sessionResponse(c, session, { trusted_device: session.trusted }), 200);
  });
}
