/** The caller's passkeys: registration ceremony, list, removal (step-up). */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import { newId, parseUlid } from "../../lib/ids";
import { requireBearer } from "../auth";
import { MAX_PASSKEYS_PER_ACCOUNT } from "../config";
import type { AppContext, AppEnv } from "../context";
import { base64url, isoIn, nowIso } from "../crypto";
import { fail, problem } from "../errors";
import {
  passkeyRegistrationOptions,
  passkeysEnabled,
  REGISTRATION_CEREMONY_TTL_S,
  verifyPasskeyRegistration,
} from "../passkeys";
import { requireStepUp } from "../step-up";
import { primaryEmail } from "../store/accounts";
import {
  deletePasskey,
  insertPasskey,
  listPasskeys,
  openRegistrationCeremony,
  passkeyCredentials,
  takeRegistrationChallenge,
} from "../store/passkeys";
import { bearerSecurity, jsonResponse, readJsonBody } from "./schemas";

const PasskeyItem = z
  .object({
    id: z.string(),
    name: z.string().nullable(),
    created_at: z.string(),
    last_used_at: z.string().nullable(),
  })
  .openapi("Passkey");

const LIMIT_REACHED = () => problem("PASSKEY_LIMIT_REACHED", `At most ${MAX_PASSKEYS_PER_ACCOUNT} passkeys.`);

function requirePasskeys(c: AppContext) {
  if (!passkeysEnabled(c.env)) fail("PASSKEY_DISABLED", "Passkeys are disabled.");
}

export function registerPasskeyRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/auth/mfa/passkey/register/begin",
      tags: ["Second factors"],
      summary: "Open a registration ceremony (owner from the Bearer; body {}); an earlier open ceremony dies",
      security: bearerSecurity,
      middleware: [requireBearer] as const,
      responses: {
        200: jsonResponse(
          "Options for navigator.credentials.create",
          z.object({ publicKey: z.record(z.string(), z.unknown()) }),
        ),
        ...problemResponses({ 401: "UNAUTHORIZED", 409: "PASSKEY_LIMIT_REACHED", 501: "PASSKEY_DISABLED" }),
      },
    }),
    async (c) => {
      requirePasskeys(c);
      const { userId } = c.get("auth");
      const existing = await passkeyCredentials(c.env.DB, userId);
      if (existing.length >= MAX_PASSKEYS_PER_ACCOUNT) throw LIMIT_REACHED();
      const options = await passkeyRegistrationOptions(
        c.env,
        { id: userId, name: (await primaryEmail(c.env.DB, userId)) ?? userId },
        existing,
      );
      await openRegistrationCeremony(c.env.DB, userId, options.challenge, isoIn(REGISTRATION_CEREMONY_TTL_S));
      return c.json({ publicKey: options as unknown as Record<string, unknown> }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/auth/mfa/passkey/register/finish",
      tags: ["Second factors"],
      summary: "Finish the ceremony with the attestation; the passkey is stored",
      security: bearerSecurity,
      middleware: [requireBearer] as const,
      description: 'Body `{"credential": <RegistrationResponseJSON>, "name"?: string}`.',
      responses: {
        201: jsonResponse("Registered", PasskeyItem),
        ...problemResponses({
          400: "BAD_REQUEST (unreadable body or missing credential)",
          401: "PASSKEY_CEREMONY_INVALID, PASSKEY_INVALID",
          409: "PASSKEY_ALREADY_REGISTERED, PASSKEY_LIMIT_REACHED",
          501: "PASSKEY_DISABLED",
        }),
      },
    }),
    async (c) => {
      requirePasskeys(c);
      const parsed = z
        .object({ credential: z.unknown(), name: z.string().max(64).optional() })
        .safeParse(await readJsonBody(c));
      if (!parsed.success || parsed.data.credential === undefined) {
        fail("BAD_REQUEST", "credential is required.");
      }
      const { userId } = c.get("auth");
      const challenge = await takeRegistrationChallenge(c.env.DB, userId);
      if (!challenge) {
        fail("PASSKEY_CEREMONY_INVALID", "Begin a registration first.");
      }
      const info = await verifyPasskeyRegistration(c.env, challenge, parsed.data.credential);
      if (!info) fail("PASSKEY_INVALID", "The passkey attestation was refused.");
      const id = newId();
      const now = nowIso();
      const stored = await insertPasskey(
        c.env.DB,
        {
          id,
          userId,
          credentialId: info.id,
          publicKey: base64url(info.publicKey),
          counter: info.counter,
          transports: info.transports ? JSON.stringify(info.transports) : null,
          name: parsed.data.name ?? null,
          createdAt: now,
        },
        MAX_PASSKEYS_PER_ACCOUNT,
      );
      if (stored === "duplicate") {
        fail("PASSKEY_ALREADY_REGISTERED", "This passkey is already registered.");
      }
      if (stored === "limit") throw LIMIT_REACHED();
      return c.json({ id, name: parsed.data.name ?? null, created_at: now, last_used_at: null }, 201);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/auth/mfa/passkey",
      tags: ["Second factors"],
      summary: "The caller's passkeys",
      security: bearerSecurity,
      middleware: [requireBearer] as const,
      responses: {
        200: jsonResponse("Passkeys", z.object({ items: z.array(PasskeyItem) })),
        ...problemResponses({ 401: "UNAUTHORIZED", 501: "PASSKEY_DISABLED" }),
      },
    }),
    async (c) => {
      requirePasskeys(c);
      const { results } = await listPasskeys(c.env.DB, c.get("auth").userId);
      return c.json({ items: results }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/api/v1/auth/mfa/passkey/{id}",
      tags: ["Second factors"],
      summary: "Remove a passkey (step-up first, then the owner-scoped delete)",
      security: bearerSecurity,
      middleware: [requireBearer] as const,
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
          501: "PASSKEY_DISABLED",
          503: "STEP_UP_UNAVAILABLE (nothing removed)",
        }),
      },
    }),
    async (c) => {
      requirePasskeys(c);
      // Step-up before any lookup: the answer never depends on whether the id exists.
      await requireStepUp(c, "mfa.passkey.delete", c.req.header("x-step-up-code"));
      const { userId } = c.get("auth");
      const id = parseUlid(c.req.valid("param").id);
      const notFound = () => problem("PASSKEY_NOT_FOUND", "No such passkey.");
      if (!id) throw notFound();
      const outcome = await deletePasskey(c.env.DB, userId, id);
      if (outcome === "not_found") throw notFound();
      if (outcome === "last_strong_factor") {
        fail("LAST_STRONG_FACTOR", "Keep a TOTP factor or another passkey before removing this one.");
      }
      return c.body(null, 204);
    },
  );
}
