import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { parseUlid } from "../../lib/ids";
import { describeIssues } from "../../lib/input-issues";
import { NOT_JSON_DETAIL } from "../../lib/problem";
import { fail, problem } from "../errors";
import { normalizeEmail } from "../signup/accounts-store";

export const SessionResponseSchema = z
  .object({
    access_token: z.string(),
    refresh_token: z.string(),
    token_type: z.literal("Bearer"),
    expires_in: z.number().int(),
    session_id: z.string(),
    user: z.object({ id: z.string(), email: z.string() }),
  })
  .openapi("SessionResponse");

export const TrustedSessionResponseSchema = SessionResponseSchema.extend({
  trusted_device: z.boolean(),
}).openapi("TrustedSessionResponse");

/** A member as organization and site member lists show it (see memberItems). */
export const MemberSchema = z.object({
  user_id: z.string(),
  email: z.string(),
  role: z.string(),
  is_owner: z.boolean(),
  joined_at: z.string(),
});

export const AcceptedSchema = z.object({ message: z.string() }).openapi("Accepted");

/** The step-up code header of the step-up operations (spec Authentication rule 3). */
export const StepUpHeader = z.object({ "x-step-up-code": z.string().max(64).optional() });

/**
 * The description of the two operations that open a TOTP or phone enrollment ceremony: they extend the
 * spec's closed list of step-up operations (issue 18; test/support/spec-operations.ts declares it).
 */
export const STEP_UP_EXTENSION =
  "Extends the spec's step-up operations (Authentication rule 3; issue 18): on an account that already has a sign-in factor (a confirmed TOTP, a verified phone or a passkey) this first call of the ceremony asks for the step-up code in header `X-Step-Up-Code` like the spec's step-up operations: without it a code goes to the primary address and the answer is 428 `STEP_UP_REQUIRED` (details `channel`, `sent_to`), a wrong code is 401 `CODE_INVALID`, 503 `STEP_UP_UNAVAILABLE` when it cannot be sent or checked; nothing is stored before the proof. The proof is bound to this ceremony: its confirm or finish call asks for no second code. An account without a factor enrolls its first TOTP or phone with the access token alone (either only adds a check behind the password; a passkey always asks for the code).";

/**
 * The description of `POST /auth/mfa/passkey/register/begin`: it extends the spec's step-up list for every
 * passkey, the account's first included (issues 18 and 31; test/support/spec-operations.ts declares it).
 */
export const PASSKEY_STEP_UP =
  "Extends the spec's step-up operations (Authentication rule 3; issues 18 and 31): every passkey registration, the account's first included, asks for the step-up code in header `X-Step-Up-Code` like the spec's step-up operations, because a passkey signs in alone (passkey-first sign-in) and a stolen access token must not add one. Without the code one goes to the primary address and the answer is 428 `STEP_UP_REQUIRED` (details `channel`, `sent_to`); a wrong code is 401 `CODE_INVALID`; 503 `STEP_UP_UNAVAILABLE` when it cannot be sent or checked. A recent sign-in is no proof. Nothing is stored before the proof; the proof is bound to this ceremony, and its finish call asks for no second code.";

export const jsonBody = <T extends z.ZodType>(schema: T) => ({
  body: { content: { "application/json": { schema } }, required: true },
});

export const jsonResponse = <T extends z.ZodType>(description: string, schema: T) => ({
  description,
  content: { "application/json": { schema } },
});

const EMAIL_RE =
  /^[^\s@"<>()[\]\\,;:]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/** Normalized (trimmed, lower-cased) address, or 400 with `code` (INVALID_EMAIL by default). */
export function parseEmail(raw: string, code: "INVALID_EMAIL" | "BAD_EMAIL" = "INVALID_EMAIL"): string {
  const address = normalizeEmail(raw);
  if (address.length > 254 || !EMAIL_RE.test(address) || address.split("@")[0]!.length > 64) {
    fail(code, "The e-mail address is not valid.");
  }
  return address;
}

export function parseOrgId(raw: string): string {
  const id = parseUlid(raw);
  if (!id) fail("BAD_ORG", "org_id must be a ULID.");
  return id;
}

export function parseUserId(raw: string): string {
  const id = parseUlid(raw);
  if (!id) fail("BAD_ID", "user_id must be a ULID.");
  return id;
}

const NOT_JSON = () => problem("BAD_REQUEST", NOT_JSON_DETAIL);

/**
 * The body parsed by hand, for routes whose rules the declarative validator cannot express (their own
 * error codes, or a body that may be absent). Unreadable JSON is 400 BAD_REQUEST.
 */
export async function readJsonBody(c: Context): Promise<unknown> {
  try {
    return JSON.parse(await c.req.text());
  } catch {
    throw NOT_JSON();
  }
}

/** Like readJsonBody, but an absent or blank body is `undefined`. */
export async function readOptionalJsonBody(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw NOT_JSON();
  }
}

/**
 * A body read by hand, checked against its (strict) schema: an unknown field is 400 BAD_REQUEST naming it
 * (`src/lib/input-issues.ts`, as the declarative validator says it); any other mistake keeps the route's own
 * `detail`.
 */
export function parseHandReadBody<T extends z.ZodType>(schema: T, raw: unknown, detail: string): z.infer<T> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const described = describeIssues(parsed.error.issues);
  if (described.unknownField) fail("BAD_REQUEST", { detail: described.detail, details: described.details });
  return fail("BAD_REQUEST", detail);
}
