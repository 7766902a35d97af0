/** The caller's passkeys: registration ceremony, list, removal (step-up). */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import {
  generateRegistrationOptions,
  type RegistrationResponseJSON,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";
import { problemResponses } from "../../lib/app";
import { newId, parseUlid } from "../../lib/ids";
import { ApiError } from "../../lib/problem";
import { requireBearer } from "../auth";
import { MAX_PASSKEYS_PER_ACCOUNT } from "../config";
import type { AppContext, AppEnv } from "../context";
import { base64url, isoIn, nowIso } from "../crypto";
import { passkeysEnabled } from "../passkeys";
import { requireStepUp } from "../step-up";
import { primaryEmail } from "../store";
import { bearerSecurity, jsonResponse } from "./schemas";

const CEREMONY_TTL_S = 5 * 60;

const PasskeyItem = z
  .object({
    id: z.string(),
    name: z.string().nullable(),
    created_at: z.string(),
    last_used_at: z.string().nullable(),
  })
  .openapi("Passkey");

function requirePasskeys(c: AppContext) {
  if (!passkeysEnabled(c.env))
    throw new ApiError(501, "PASSKEY_DISABLED", { detail: "Passkeys are disabled." });
}

function isRegistration(value: unknown): value is RegistrationResponseJSON {
  const v = value as Partial<RegistrationResponseJSON> | null;
  return (
    !!v &&
    typeof v === "object" &&
    typeof v.id === "string" &&
    typeof v.rawId === "string" &&
    v.type === "public-key" &&
    !!v.response &&
    typeof v.response.clientDataJSON === "string" &&
    typeof v.response.attestationObject === "string"
  );
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
      const { results } = await c.env.DB.prepare("SELECT credential_id FROM passkeys WHERE user_id = ?")
        .bind(userId)
        .all<{ credential_id: string }>();
      if (results.length >= MAX_PASSKEYS_PER_ACCOUNT) {
        throw new ApiError(409, "PASSKEY_LIMIT_REACHED", {
          detail: `At most ${MAX_PASSKEYS_PER_ACCOUNT} passkeys.`,
        });
      }
      const options = await generateRegistrationOptions({
        rpName: c.env.WEBAUTHN_RP_NAME,
        rpID: c.env.WEBAUTHN_RP_ID,
        userName: (await primaryEmail(c.env.DB, userId)) ?? userId,
        userID: new TextEncoder().encode(userId) as Uint8Array<ArrayBuffer>,
        attestationType: "none",
        excludeCredentials: results.map((r) => ({ id: r.credential_id })),
        authenticatorSelection: { residentKey: "preferred", userVerification: "preferred" },
        timeout: CEREMONY_TTL_S * 1000,
      });
      await c.env.DB.prepare(
        `INSERT INTO passkey_ceremonies (user_id, challenge, expires_at) VALUES (?, ?, ?)
         ON CONFLICT (user_id) DO UPDATE SET challenge = excluded.challenge, expires_at = excluded.expires_at`,
      )
        .bind(userId, options.challenge, isoIn(CEREMONY_TTL_S))
        .run();
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
      let body: unknown;
      try {
        body = JSON.parse(await c.req.text());
      } catch {
        throw new ApiError(400, "BAD_REQUEST", { detail: "The body is not valid JSON." });
      }
      const parsed = z
        .object({ credential: z.unknown(), name: z.string().max(64).optional() })
        .safeParse(body);
      if (!parsed.success || parsed.data.credential === undefined) {
        throw new ApiError(400, "BAD_REQUEST", { detail: "credential is required." });
      }
      const { userId } = c.get("auth");
      // Consumed before verification: a challenge is good for one attempt.
      const ceremony = await c.env.DB.prepare(
        "DELETE FROM passkey_ceremonies WHERE user_id = ? AND expires_at > ? RETURNING challenge",
      )
        .bind(userId, nowIso())
        .first<{ challenge: string }>();
      if (!ceremony) {
        throw new ApiError(401, "PASSKEY_CEREMONY_INVALID", { detail: "Begin a registration first." });
      }
      const credential = parsed.data.credential;
      const invalid = () =>
        new ApiError(401, "PASSKEY_INVALID", { detail: "The passkey attestation was refused." });
      if (!isRegistration(credential)) throw invalid();
      let info: { id: string; publicKey: Uint8Array; counter: number; transports?: string[] };
      try {
        const result = await verifyRegistrationResponse({
          response: credential,
          expectedChallenge: ceremony.challenge,
          expectedOrigin: c.env.WEBAUTHN_ORIGIN,
          expectedRPID: c.env.WEBAUTHN_RP_ID,
          requireUserVerification: false,
        });
        if (!result.verified || !result.registrationInfo) throw invalid();
        info = result.registrationInfo.credential;
      } catch (err) {
        if (err instanceof ApiError) throw err;
        throw invalid();
      }
      const id = newId();
      const now = nowIso();
      let inserted: D1Result;
      try {
        inserted = await c.env.DB.prepare(
          `INSERT INTO passkeys (id, user_id, credential_id, public_key, counter, transports, name, created_at)
           SELECT ?, ?, ?, ?, ?, ?, ?, ? WHERE (SELECT COUNT(*) FROM passkeys WHERE user_id = ?) < ?`,
        )
          .bind(
            id,
            userId,
            info.id,
            base64url(info.publicKey),
            info.counter,
            info.transports ? JSON.stringify(info.transports) : null,
            parsed.data.name ?? null,
            now,
            userId,
            MAX_PASSKEYS_PER_ACCOUNT,
          )
          .run();
      } catch (err) {
        if (String((err as Error).message).includes("UNIQUE")) {
          throw new ApiError(409, "PASSKEY_ALREADY_REGISTERED", {
            detail: "This passkey is already registered.",
          });
        }
        throw err;
      }
      if (inserted.meta.changes !== 1) {
        throw new ApiError(409, "PASSKEY_LIMIT_REACHED", {
          detail: `At most ${MAX_PASSKEYS_PER_ACCOUNT} passkeys.`,
        });
      }
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
      const { results } = await c.env.DB.prepare(
        "SELECT id, name, created_at, last_used_at FROM passkeys WHERE user_id = ? ORDER BY created_at, id",
      )
        .bind(c.get("auth").userId)
        .all<{ id: string; name: string | null; created_at: string; last_used_at: string | null }>();
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
      const notFound = () => new ApiError(404, "PASSKEY_NOT_FOUND", { detail: "No such passkey." });
      if (!id) throw notFound();
      const res = await c.env.DB.prepare(
        `DELETE FROM passkeys WHERE id = ? AND user_id = ?
           AND (EXISTS (SELECT 1 FROM totp_factors WHERE user_id = ? AND confirmed_at IS NOT NULL)
                OR (SELECT COUNT(*) FROM passkeys WHERE user_id = ?) > 1)`,
      )
        .bind(id, userId, userId, userId)
        .run();
      if (res.meta.changes === 1) return c.body(null, 204);
      const exists = await c.env.DB.prepare("SELECT 1 AS ok FROM passkeys WHERE id = ? AND user_id = ?")
        .bind(id, userId)
        .first();
      if (!exists) throw notFound();
      throw new ApiError(409, "LAST_STRONG_FACTOR", {
        detail: "Keep a TOTP factor or another passkey before removing this one.",
      });
    },
  );
}
