/** The account's whole life (issue 24 §2, §3): deletion, its cancel, and the export of the account's data. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import { bearerAuth } from "../core/auth";
import type { AppEnv } from "../core/context";
import { jsonBody, jsonResponse, parseEmail, StepUpHeader } from "../core/schemas";
import { requireStepUp } from "../factors/step-up";
import { clearSessionCookies } from "../login/session-response";
import { cancelDeletion, checkDeletable, requestCancelCode, requestDeletion } from "./deletion";
import { DELETION_GRACE_DAYS } from "./deletion-store";
import { AccountExportSchema, exportAccount } from "./export";

/** These two extend the spec's closed list of step-up operations (test/support/spec-operations.ts). */
const STEP_UP_NOTE =
  "Extends the spec's step-up operations (Authentication rule 3; issue 24): without header `X-Step-Up-Code` a code goes to the primary address and the answer is 428 `STEP_UP_REQUIRED` (details `channel`, `sent_to`); a wrong code is 401 `CODE_INVALID`; 503 `STEP_UP_UNAVAILABLE` when it cannot be sent or checked (nothing done).";

const DeletionSchema = z
  .object({
    status: z.literal("pending_deletion"),
    erase_after: z.string(),
    grace_days: z.number().int(),
    cancel: z.string(),
  })
  .openapi("AccountDeletion");

const CancelBody = z
  .strictObject({ email: z.string().max(320), code: z.string().max(64).optional() })
  .openapi("AccountDeletionCancelRequest");

const CANCEL_SENT = {
  message: "If the address belongs to an account whose deletion can still be cancelled, a code was sent.",
};

const deleteAccountRoute = createRoute({
  method: "delete",
  path: "/api/v1/auth/account",
  tags: ["Account"],
  summary: `Delete the caller's account (step-up): every session ends; erased after ${DELETION_GRACE_DAYS} days unless cancelled`,
  description: `${STEP_UP_NOTE} Refused with 409 (and the names, in \`details.orgs\` and \`details.sites\`) while the account is the last owner of an organization or site; checked before any code is sent. Until \`erase_after\` the account cannot sign in (403 \`ACCOUNT_PENDING_DELETION\` after a successful proof) and the deletion can be cancelled with \`POST /api/v1/auth/account/deletion/cancel\`.`,
  ...bearerAuth,
  request: { headers: StepUpHeader },
  responses: {
    202: jsonResponse("Scheduled; every session ended (cookies cleared)", DeletionSchema),
    ...problemResponses({
      401: "UNAUTHENTICATED, TOKEN_EXPIRED, CODE_INVALID",
      409: "LAST_ORG_OWNER, LAST_SITE_OWNER (details.orgs, details.sites: id and name)",
      428: "STEP_UP_REQUIRED",
      429: "RATE_LIMITED (step-up code sends and checks)",
      503: "STEP_UP_UNAVAILABLE (nothing changed)",
    }),
  },
});

const cancelDeletionRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/account/deletion/cancel",
  tags: ["Account"],
  summary: "Cancel an account's deletion during its grace period, proved by a code e-mailed to its address",
  description:
    "Two calls. Without `code`: 202, the same answer for every address; a code goes to the address only when it is a verified address of an account whose deletion can still be cancelled. With `code`: 200 and the account can sign in again (its sessions stay ended); every failure is 401 `CODE_INVALID`.",
  request: jsonBody(CancelBody),
  responses: {
    200: jsonResponse("Cancelled", z.object({ status: z.literal("active") })),
    202: jsonResponse("Code sent if the deletion can be cancelled", z.object({ message: z.string() })),
    ...problemResponses({
      400: "INVALID_EMAIL",
      401: "CODE_INVALID",
      429: "RATE_LIMITED",
    }),
  },
});

const exportAccountRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/account/export",
  tags: ["Account"],
  summary: "Everything the caller's account holds, as one JSON document (step-up); never secrets or hashes",
  description: `${STEP_UP_NOTE} A POST because asking for the step-up sends mail.`,
  ...bearerAuth,
  request: { headers: StepUpHeader },
  responses: {
    200: jsonResponse("The account's data", AccountExportSchema),
    ...problemResponses({
      401: "UNAUTHENTICATED, TOKEN_EXPIRED, CODE_INVALID",
      428: "STEP_UP_REQUIRED",
      429: "RATE_LIMITED (step-up code sends and checks)",
      503: "STEP_UP_UNAVAILABLE (nothing exported)",
    }),
  },
});

export function registerAccountRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(deleteAccountRoute, async (c) => {
    const { userId } = c.get("auth");
    const services = c.get("services");
    await checkDeletable(c.env, userId);
    await requireStepUp(c.env, services, userId, "account.delete", c.req.valid("header")["x-step-up-code"]);
    const scheduled = await requestDeletion(c.env, services, userId);
    clearSessionCookies(c);
    return c.json(
      { status: "pending_deletion" as const, grace_days: DELETION_GRACE_DAYS, ...scheduled },
      202,
    );
  });

  app.openapi(cancelDeletionRoute, async (c) => {
    const body = c.req.valid("json");
    const address = parseEmail(body.email);
    if (body.code === undefined || body.code === "") {
      await requestCancelCode(c.env, c.get("services"), address);
      return c.json(CANCEL_SENT, 202);
    }
    await cancelDeletion(c.env, c.get("services"), address, body.code);
    return c.json({ status: "active" as const }, 200);
  });

  app.openapi(exportAccountRoute, async (c) => {
    const { userId } = c.get("auth");
    await requireStepUp(
      c.env,
      c.get("services"),
      userId,
      "account.export",
      c.req.valid("header")["x-step-up-code"],
    );
    const document = await exportAccount(c.env, userId);
    c.header("Cache-Control", "no-store");
    c.header("Content-Disposition", 'attachment; filename="account-export.json"');
    return c.json(document, 200);
  });
}
