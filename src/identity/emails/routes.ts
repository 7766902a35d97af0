/** The caller's e-mail addresses (owner always from the Bearer). */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import { parseUlid } from "../../lib/ids";
import { bearerAuth } from "../core/auth";
import type { AppContext, AppEnv } from "../core/context";
import { nowIso } from "../core/crypto";
import { jsonBody, jsonResponse, parseEmail, parseHandReadBody, readOptionalJsonBody } from "../core/schemas";

/** The primary change's optional body, read by hand (the step-up code may come in it). */
const PrimaryBody = z.strictObject({ code: z.string().max(64).optional() });

import { fail } from "../errors";
import { eventOrigin, recordEvent } from "../events/events";
import { requireStepUp } from "../factors/step-up";
import { addPendingEmail, EMAIL_NOT_FOUND, verifyPendingEmail } from "./account-emails";
import { disownByToken } from "./address-disown";
import {
  type EmailRow,
  findEmailById,
  listEmails,
  makeEmailPrimary,
  removePendingEmail,
  removeVerifiedEmail,
} from "./store";

const EmailItem = z
  .object({
    id: z.string(),
    email: z.string(),
    verified: z.boolean(),
    primary: z.boolean(),
    created_at: z.string(),
    usable_from: z.string().optional().openapi({
      description:
        "Only while an added address cools off: from then on it signs in and recovers the account.",
    }),
  })
  .openapi("EmailAddress");

function item(r: EmailRow) {
  const usableFrom = r.usable_at && r.usable_at > nowIso() ? r.usable_at : null;
  return {
    id: r.id,
    email: r.address,
    verified: !!r.verified_at,
    primary: r.is_primary === 1,
    created_at: r.created_at,
    ...(usableFrom ? { usable_from: usableFrom } : {}),
  };
}

async function myEmailById(c: AppContext, rawId: string): Promise<EmailRow> {
  const id = parseUlid(rawId);
  const row = id ? await findEmailById(c.env.DB, c.get("auth").userId, id) : null;
  if (!row) throw EMAIL_NOT_FOUND();
  return row;
}

/** The caller of an address change: account, client and what its events keep of the client. */
function addressCaller(c: AppContext) {
  const { request } = c.get("services");
  return { userId: c.get("auth").userId, ip: request.ip, origin: eventOrigin(request) };
}

/** The event of a change to one of the caller's addresses, written only if the change changed a row. */
function addressEvent(c: AppContext, type: "address_made_primary" | "address_removed", row: EmailRow) {
  const event = { userId: c.get("auth").userId, type, target: row.id, detail: row.address };
  return recordEvent(c.env.DB, eventOrigin(c.get("services").request), event, { ifChanged: true });
}

const listEmailsRoute = createRoute({
  method: "get",
  path: "/api/v1/auth/emails",
  tags: ["Account e-mail addresses"],
  summary: "The caller's addresses and a nudge decided by the server",
  ...bearerAuth,
  responses: {
    200: jsonResponse(
      "Addresses",
      z.object({
        items: z.array(EmailItem),
        nudge: z.enum(["add_backup_email", "verify_pending_email"]).nullable(),
      }),
    ),
    ...problemResponses({ 401: "UNAUTHENTICATED, TOKEN_EXPIRED" }),
  },
});

const addEmailRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/emails",
  tags: ["Account e-mail addresses"],
  summary: "Add a pending address and send it a code (never says the address belongs to someone else)",
  ...bearerAuth,
  request: jsonBody(z.strictObject({ email: z.string().max(320) }).openapi("AddEmailRequest")),
  responses: {
    202: jsonResponse(
      "Pending; code sent",
      z.object({ id: z.string(), email: z.string(), verified: z.literal(false) }),
    ),
    ...problemResponses({
      400: "INVALID_EMAIL, BAD_REQUEST",
      401: "UNAUTHENTICATED, TOKEN_EXPIRED",
      409: "EMAIL_ALREADY_ADDED, EMAIL_LIMIT_REACHED",
      429: "RATE_LIMITED",
    }),
  },
});

const verifyEmailRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/emails/verify",
  tags: ["Account e-mail addresses"],
  summary: "Prove a pending address with its code (OTP purpose email_add)",
  ...bearerAuth,
  request: jsonBody(
    z.strictObject({ email: z.string().max(320), code: z.string().max(64) }).openapi("VerifyEmailRequest"),
  ),
  responses: {
    200: jsonResponse("Verified", EmailItem),
    ...problemResponses({
      400: "INVALID_EMAIL",
      401: "CODE_INVALID (missing, wrong, used or exhausted)",
      404: "EMAIL_NOT_FOUND",
      409: "EMAIL_ALREADY_ADDED (already verified; no code burned), EMAIL_TAKEN",
      429: "RATE_LIMITED",
    }),
  },
});

const makePrimaryEmailRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/emails/{id}/primary",
  tags: ["Account e-mail addresses"],
  summary: "Make a verified address primary (two calls: without `code` a code goes to the current primary)",
  ...bearerAuth,
  request: { params: z.object({ id: z.string().max(64) }) },
  description: 'Optional body `{"code": "123456"}` (the step-up code sent to the current primary address).',
  responses: {
    200: jsonResponse("Primary", EmailItem),
    ...problemResponses({
      400: "BAD_REQUEST",
      401: "CODE_INVALID",
      404: "EMAIL_NOT_FOUND",
      409: "EMAIL_NOT_VERIFIED",
      428: "STEP_UP_REQUIRED",
      429: "RATE_LIMITED (step-up code sends and checks)",
      503: "STEP_UP_UNAVAILABLE",
    }),
  },
});

const deleteEmailRoute = createRoute({
  method: "delete",
  path: "/api/v1/auth/emails/{id}",
  tags: ["Account e-mail addresses"],
  summary: "Remove an address (not the primary, not the last verified; no step-up)",
  ...bearerAuth,
  request: { params: z.object({ id: z.string().max(64) }) },
  responses: {
    204: { description: "Removed" },
    ...problemResponses({
      401: "UNAUTHENTICATED, TOKEN_EXPIRED",
      404: "EMAIL_NOT_FOUND",
      409: "EMAIL_IS_PRIMARY, EMAIL_LAST_VERIFIED",
    }),
  },
});

const disownEmailRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/emails/disown",
  tags: ["Account e-mail addresses"],
  summary:
    "Remove an address someone else added (the link in the notice to the primary); signs out every session",
  description:
    "No authentication: the token, signed by this service for one address of one account and valid 7 days, is the proof. The address (pending or verified, never the primary) is removed and every session of the account ends in one step. An address already gone answers 204 again.",
  request: jsonBody(z.strictObject({ token: z.string().max(256) }).openapi("DisownEmailRequest")),
  responses: {
    204: { description: "Removed, or already gone; every session of the account ended" },
    ...problemResponses({
      400: "BAD_REQUEST",
      401: "CODE_INVALID (tampered, expired or not ours)",
      409: "EMAIL_IS_PRIMARY (made primary since; not removed)",
      429: "RATE_LIMITED",
    }),
  },
});

export function registerEmailRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(listEmailsRoute, async (c) => {
    const { results } = await listEmails(c.env.DB, c.get("auth").userId);
    const verified = results.filter((r) => r.verified_at).length;
    const pending = results.length - verified;
    // One verified address is a single point of failure for recovery: suggest a backup.
    const nudge = pending > 0 ? "verify_pending_email" : verified < 2 ? "add_backup_email" : null;
    return c.json({ items: results.map(item), nudge } as const, 200);
  });

  app.openapi(addEmailRoute, async (c) => {
    const address = parseEmail(c.req.valid("json").email);
    const caller = addressCaller(c);
    return c.json(await addPendingEmail(c.env, c.get("services").mailer, caller, address, c.get("log")), 202);
  });

  app.openapi(verifyEmailRoute, async (c) => {
    const body = c.req.valid("json");
    const address = parseEmail(body.email);
    const caller = addressCaller(c);
    const input = { address, code: body.code.trim() };
    const row = await verifyPendingEmail(c.env, c.get("services").mailer, caller, input, c.get("log"));
    return c.json(item(row), 200);
  });

  app.openapi(makePrimaryEmailRoute, async (c) => {
    const raw = await readOptionalJsonBody(c);
    let code: string | undefined;
    if (raw !== undefined) {
      code = parseHandReadBody(PrimaryBody, raw, "code must be a string.").code;
    }
    const row = await myEmailById(c, c.req.valid("param").id);
    if (!row.verified_at) fail("EMAIL_NOT_VERIFIED_FOR_PRIMARY", "Verify the address first.");
    if (row.is_primary === 1) return c.json(item(row), 200);
    const { userId } = c.get("auth");
    await requireStepUp(c.env, c.get("services"), userId, "emails.primary", code);
    await makeEmailPrimary(c.env.DB, userId, row.id, addressEvent(c, "address_made_primary", row));
    return c.json(item({ ...row, is_primary: 1, usable_at: null }), 200);
  });

  app.openapi(deleteEmailRoute, async (c) => {
    const row = await myEmailById(c, c.req.valid("param").id);
    if (row.is_primary === 1) fail("EMAIL_IS_PRIMARY", "Make another address primary first.");
    const { userId } = c.get("auth");
    const event = addressEvent(c, "address_removed", row);
    if (!row.verified_at) {
      await removePendingEmail(c.env.DB, userId, row.id, event);
    } else if (!(await removeVerifiedEmail(c.env.DB, userId, row.id, event))) {
      fail("EMAIL_LAST_VERIFIED", "The last verified address cannot be removed.");
    }
    return c.body(null, 204);
  });

  app.openapi(disownEmailRoute, async (c) => {
    await disownByToken(c.env, c.get("services"), c.req.valid("json").token, ["email"]);
    return c.body(null, 204);
  });
}
