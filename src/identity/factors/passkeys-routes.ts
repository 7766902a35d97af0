/** The caller's passkeys: registration ceremony, list, removal (step-up). */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import { parseUlid } from "../../lib/ids";
import { bearerAuth } from "../core/auth";
import type { AppContext, AppEnv, Services } from "../core/context";
import {
  jsonResponse,
  PASSKEY_STEP_UP,
  parseHandReadBody,
  readJsonBody,
  StepUpHeader,
} from "../core/schemas";
import type { Env } from "../core/worker-env";
import { fail, problem } from "../errors";
import { callerEvent } from "../events/events";
import { enrollmentProof, tellOwner } from "./factor-enrollment";
import { beginPasskeyRegistration, finishPasskeyRegistration } from "./passkey-registration";
import { passkeysEnabled } from "./passkeys";
import { deletePasskey, listPasskeys } from "./passkeys-store";
import { requireStepUp } from "./step-up";

const PasskeyItem = z
  .object({
    id: z.string(),
    name: z.string().nullable(),
    created_at: z.string(),
    last_used_at: z.string().nullable(),
    discoverable: z
      .boolean()
      .nullable()
      .openapi({ description: "Can sign in alone (credProps at registration); null: not reported" }),
  })
  .openapi("Passkey");

const RegistrationBody = z.strictObject({ credential: z.unknown(), name: z.string().max(64).optional() });

/** The finish body, read by hand: its refusal is 400 BAD_REQUEST "credential is required." */
function registrationBody(raw: unknown): { credential: unknown; name?: string } {
  const body = parseHandReadBody(RegistrationBody, raw, "credential is required.");
  if (body.credential === undefined) fail("BAD_REQUEST", "credential is required.");
  return body;
}

function requirePasskeys(c: AppContext) {
  if (!passkeysEnabled(c.env)) fail("PASSKEY_DISABLED", "Passkeys are disabled.");
}

const beginPasskeyRegistrationRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/mfa/passkey/register/begin",
  tags: ["Second factors"],
  summary:
    "Open a registration ceremony (owner from the Bearer; body {}); an earlier open ceremony dies; step-up for every passkey",
  description: PASSKEY_STEP_UP,
  ...bearerAuth,
  request: { headers: StepUpHeader },
  responses: {
    200: jsonResponse(
      "Options for navigator.credentials.create",
      z.object({ publicKey: z.record(z.string(), z.unknown()) }),
    ),
    ...problemResponses({
      401: "UNAUTHENTICATED, TOKEN_EXPIRED, CODE_INVALID",
      409: "PASSKEY_LIMIT_REACHED",
      428: "STEP_UP_REQUIRED",
      429: "RATE_LIMITED (step-up code sends and checks)",
      501: "PASSKEY_DISABLED",
      503: "STEP_UP_UNAVAILABLE (no ceremony opened)",
    }),
  },
});

const finishPasskeyRegistrationRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/mfa/passkey/register/finish",
  tags: ["Second factors"],
  summary: "Finish the ceremony with the attestation; the passkey is stored",
  ...bearerAuth,
  description:
    'Body `{"credential": <RegistrationResponseJSON>, "name"?: string}`. Asks for no step-up code: the proof was given when the ceremony was opened, and only a ceremony opened with it finishes (one opened without it before issue 31: 401 PASSKEY_CEREMONY_INVALID, begin again). The passkey is stored as registered with the step-up, so a password reset keeps it. The primary address is told at once, with a one-click undo.',
  responses: {
    201: jsonResponse("Registered", PasskeyItem),
    ...problemResponses({
      400: "BAD_REQUEST (unreadable body or missing credential)",
      401: "PASSKEY_CEREMONY_INVALID, PASSKEY_INVALID",
      409: "PASSKEY_ALREADY_REGISTERED, PASSKEY_LIMIT_REACHED",
      501: "PASSKEY_DISABLED",
    }),
  },
});

const listPasskeysRoute = createRoute({
  method: "get",
  path: "/api/v1/auth/mfa/passkey",
  tags: ["Second factors"],
  summary: "The caller's passkeys",
  ...bearerAuth,
  responses: {
    200: jsonResponse("Passkeys", z.object({ items: z.array(PasskeyItem) })),
    ...problemResponses({ 401: "UNAUTHENTICATED, TOKEN_EXPIRED", 501: "PASSKEY_DISABLED" }),
  },
});

const deletePasskeyRoute = createRoute({
  method: "delete",
  path: "/api/v1/auth/mfa/passkey/{id}",
  tags: ["Second factors"],
  summary: "Remove a passkey (step-up first, then the owner-scoped delete)",
  ...bearerAuth,
  request: {
    params: z.object({ id: z.string().max(64) }),
    headers: z.object({ "x-step-up-code": z.string().max(64).optional() }),
  },
  responses: {
    204: { description: "Removed" },
    ...problemResponses({
      401: "CODE_INVALID",
      404: "PASSKEY_NOT_FOUND",
      409: "LAST_STRONG_FACTOR",
      428: "STEP_UP_REQUIRED",
      429: "RATE_LIMITED (step-up code sends and checks)",
      501: "PASSKEY_DISABLED",
      503: "STEP_UP_UNAVAILABLE (nothing removed)",
    }),
  },
});

/** Removes one of the caller's passkeys (step-up first), recording the event with the removal. */
async function removePasskey(
  env: Env,
  services: Services,
  userId: string,
  rawId: string,
  stepUpCode: string | undefined,
) {
  // Step-up before any lookup: the answer never depends on whether the id exists.
  await requireStepUp(env, services, userId, "mfa.passkey.delete", stepUpCode);
  const id = parseUlid(rawId);
  const notFound = () => problem("PASSKEY_NOT_FOUND", "No such passkey.");
  if (!id) throw notFound();
  const removed = callerEvent(
    env,
    services,
    userId,
    "factor_removed",
    { method: "passkey", target: id },
    { ifChanged: true },
  );
  const outcome = await deletePasskey(env.DB, userId, id, removed);
  if (outcome === "not_found") throw notFound();
  if (outcome === "last_strong_factor") {
    fail("LAST_STRONG_FACTOR", "Keep a TOTP factor or another passkey before removing this one.");
  }
}

export function registerPasskeyRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(beginPasskeyRegistrationRoute, async (c) => {
    requirePasskeys(c);
    const { userId } = c.get("auth");
    const prove = enrollmentProof(
      c.env,
      c.get("services"),
      userId,
      "passkey",
      c.req.header("x-step-up-code"),
    );
    return c.json(await beginPasskeyRegistration(c.env, userId, prove), 200);
  });

  app.openapi(finishPasskeyRegistrationRoute, async (c) => {
    requirePasskeys(c);
    const body = registrationBody(await readJsonBody(c));
    const { userId } = c.get("auth");
    const services = c.get("services");
    const added = callerEvent(
      c.env,
      services,
      userId,
      "factor_added",
      { method: "passkey" },
      { ifChanged: true },
    );
    const stored = await finishPasskeyRegistration(c.env, userId, body, added);
    await tellOwner(c.env, services, userId, { kind: "passkey", id: stored.id, detail: stored.name ?? "" });
    return c.json(stored, 201);
  });

  app.openapi(listPasskeysRoute, async (c) => {
    requirePasskeys(c);
    const { results } = await listPasskeys(c.env.DB, c.get("auth").userId);
    return c.json({ items: results }, 200);
  });

  app.openapi(deletePasskeyRoute, async (c) => {
    requirePasskeys(c);
    const stepUpCode = c.req.header("x-step-up-code");
    await removePasskey(c.env, c.get("services"), c.get("auth").userId, c.req.valid("param").id, stepUpCode);
    return c.body(null, 204);
  });
}
