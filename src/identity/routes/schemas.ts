import { z } from "@hono/zod-openapi";
import { ApiError } from "../../lib/problem";
import { normalizeEmail } from "../store";

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

export const AcceptedSchema = z.object({ message: z.string() }).openapi("Accepted");

export const bearerSecurity = [{ bearerAuth: [] }];

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
export function parseEmail(raw: string, code = "INVALID_EMAIL"): string {
  const address = normalizeEmail(raw);
  if (address.length > 254 || !EMAIL_RE.test(address) || address.split("@")[0]!.length > 64) {
    throw new ApiError(400, code, { detail: "The e-mail address is not valid." });
  }
  return address;
}
