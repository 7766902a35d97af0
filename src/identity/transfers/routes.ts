/** Transfers and shares of sites between organizations. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import { parseId, parseUlid } from "../../lib/ids";
import { bearerAuth } from "../core/auth";
import type { AppContext, AppEnv } from "../core/context";
import { nowIso } from "../core/crypto";
import { jsonResponse, parseHandReadBody, readJsonBody } from "../core/schemas";
import { fail } from "../errors";
import { requireOrgMember } from "../members/members";
import { decideOnTransfer } from "./decisions";
import { type WillEnd, whatWillEnd } from "./inventory";
import { offerTransfer, type TransferOffer } from "./offers";
import { countIncomingPendingTransfers, listOrgTransfers, type TransferRow } from "./store";

const TransferView = z
  .object({
    id: z.string(),
    site_id: z.string(),
    mode: z.enum(["transfer", "share"]),
    share_role: z.string().nullable(),
    status: z.string(),
    from_org: z.object({ id: z.string(), name: z.string() }),
    to_org: z.object({ id: z.string(), name: z.string() }),
    created_at: z.string(),
    expires_at: z.string(),
    will_end: z
      .object({
        site_members: z
          .number()
          .int()
          .openapi({ description: "Site members who are not members of the destination" }),
        pending_invitations: z
          .number()
          .int()
          .openapi({ description: "Pending site invitations (all revoked)" }),
        api_keys: z.number().int().nullable().openapi({
          description: "Live API keys, carried over until the destination keeps them; null: unknown",
        }),
        webhooks: z
          .number()
          .int()
          .nullable()
          .openapi({ description: "Webhooks, carried over until the destination keeps them; null: unknown" }),
      })
      .nullable()
      .openapi({
        description:
          "What accepting this pending transfer ends (the origin's grants on the site); null for a share or a decided transfer",
      }),
  })
  .openapi("Transfer");

function view(r: TransferRow, willEnd: Map<string, WillEnd> = new Map()) {
  const expired = r.status === "pending" && r.expires_at <= nowIso();
  return {
    id: r.id,
    site_id: r.site_id,
    mode: r.mode,
    share_role: r.share_role,
    status: expired ? "expired" : r.status,
    from_org: { id: r.from_org_id, name: r.from_org_name },
    to_org: { id: r.to_org_id, name: r.to_org_name },
    created_at: r.created_at,
    expires_at: r.expires_at,
    will_end: willEnd.get(r.id) ?? null,
  };
}

function parseOrg(raw: string) {
  const id = parseUlid(raw);
  if (!id) fail("BAD_REQUEST", "org_id must be a ULID.");
  return id;
}

async function requireManager(c: AppContext, orgId: string) {
  await requireOrgMember(c.env.DB, orgId, c.get("auth").userId, {
    permission: "members:manage",
    notFoundDetail: "Not found.",
  });
}

const CreateBody = z.strictObject({
  site_id: z.string().max(64),
  to_org_slug: z.string().max(63),
  mode: z.string().max(16),
  share_role: z.string().max(64).nullable().optional(),
});

/** The offer body, read by hand: a missing field and a bad site id are 400 BAD_REQUEST with their own detail. */
function parseOffer(raw: unknown): TransferOffer {
  const body = parseHandReadBody(CreateBody, raw, "site_id, to_org_slug and mode are required.");
  const siteId = parseId(body.site_id);
  if (!siteId) fail("BAD_REQUEST", "site_id must be a ULID or UUID.");
  return { siteId, toOrgSlug: body.to_org_slug, mode: body.mode, shareRole: body.share_role };
}

const decisions = [
  { decision: "accept", path: "/api/v1/auth/orgs/{org_id}/transfers/{id}/accept" },
  { decision: "reject", path: "/api/v1/auth/orgs/{org_id}/transfers/{id}/reject" },
  { decision: "cancel", path: "/api/v1/auth/orgs/{org_id}/transfers/{id}/cancel" },
] as const;

function decisionRoute(
  decision: (typeof decisions)[number]["decision"],
  path: (typeof decisions)[number]["path"],
) {
  return createRoute({
    method: "post",
    path,
    tags: ["Transfers"],
    summary:
      decision === "cancel"
        ? "Cancel a pending transfer (URL organization is the origin)"
        : `${decision === "accept" ? "Accept" : "Reject"} a pending transfer (URL organization is the destination)`,
    ...bearerAuth,
    request: { params: z.object({ org_id: z.string().max(64), id: z.string().max(64) }) },
    responses: {
      ...(decision === "accept"
        ? { 200: jsonResponse("Accepted", TransferView) }
        : { 204: { description: "Done" } }),
      ...problemResponses({
        400: "BAD_REQUEST",
        401: "UNAUTHENTICATED, TOKEN_EXPIRED",
        403: "FORBIDDEN (organization not the deciding party)",
        404: "NOT_FOUND, TRANSFER_NOT_FOUND",
        409: "NOT_PENDING",
        500: "Site registry failure (transfer stays pending)",
      }),
    },
  });
}

const listPendingTransfersRoute = createRoute({
  method: "get",
  path: "/api/v1/auth/transfers/pending",
  tags: ["Transfers"],
  summary: "Incoming pending transfers per organization where the caller holds members:manage",
  ...bearerAuth,
  responses: {
    200: jsonResponse(
      "Counts",
      z.object({
        orgs: z.array(z.object({ org_id: z.string(), name: z.string(), count: z.number().int() })),
        total: z.number().int(),
      }),
    ),
    ...problemResponses({
      401: "UNAUTHENTICATED, TOKEN_EXPIRED",
      500: "Counting failed (never reported as zero)",
    }),
  },
});

const listOrgTransfersRoute = createRoute({
  method: "get",
  path: "/api/v1/auth/orgs/{org_id}/transfers",
  tags: ["Transfers"],
  summary:
    "Pending transfers (incoming and outgoing, with organization names) and shares granted and received",
  ...bearerAuth,
  request: { params: z.object({ org_id: z.string().max(64) }) },
  responses: {
    200: jsonResponse(
      "Transfers",
      z.object({
        incoming: z.array(TransferView),
        outgoing: z.array(TransferView),
        shares_granted: z.array(TransferView),
        shares_received: z.array(TransferView),
      }),
    ),
    ...problemResponses({
      400: "BAD_REQUEST",
      401: "UNAUTHENTICATED, TOKEN_EXPIRED",
      403: "FORBIDDEN",
      404: "NOT_FOUND",
    }),
  },
});

const createTransferRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/orgs/{org_id}/transfers",
  tags: ["Transfers"],
  summary: "Offer a site to another organization (URL organization is the origin)",
  ...bearerAuth,
  request: { params: z.object({ org_id: z.string().max(64) }) },
  description:
    'Body `{"site_id", "to_org_slug", "mode": "transfer"|"share", "share_role"}` (share_role for share).',
  responses: {
    200: jsonResponse("Created (pending)", TransferView),
    ...problemResponses({
      400: "BAD_REQUEST, SAME_ORG, MODE_INVALID, BAD_ROLE, ROLE_NOT_FOUND",
      401: "UNAUTHENTICATED, TOKEN_EXPIRED",
      403: "FORBIDDEN, NOT_OWNER",
      404: "NOT_FOUND, TARGET_NOT_FOUND",
      409: "TRANSFER_EXISTS",
      500: "LOOKUP_FAILED",
    }),
  },
});

export function registerTransferRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(listPendingTransfersRoute, async (c) => {
    const results = await countIncomingPendingTransfers(c.env.DB, c.get("auth").userId);
    const orgs = results.filter((r) => r.count > 0);
    return c.json({ orgs, total: orgs.reduce((n, r) => n + r.count, 0) }, 200);
  });

  app.openapi(listOrgTransfersRoute, async (c) => {
    const orgId = parseOrg(c.req.valid("param").org_id);
    await requireManager(c, orgId);
    const results = await listOrgTransfers(c.env.DB, orgId);
    const pending = results.filter((r) => r.status === "pending");
    const shares = results.filter((r) => r.status === "accepted");
    const ends = await whatWillEnd(c.env, pending);
    const show = (r: TransferRow) => view(r, ends);
    return c.json(
      {
        incoming: pending.filter((r) => r.to_org_id === orgId).map(show),
        outgoing: pending.filter((r) => r.from_org_id === orgId).map(show),
        shares_granted: shares.filter((r) => r.from_org_id === orgId).map((r) => view(r)),
        shares_received: shares.filter((r) => r.to_org_id === orgId).map((r) => view(r)),
      },
      200,
    );
  });

  app.openapi(createTransferRoute, async (c) => {
    const orgId = parseOrg(c.req.valid("param").org_id);
    const offer = parseOffer(await readJsonBody(c));
    await requireManager(c, orgId);
    const row = await offerTransfer(c.env, { orgId, userId: c.get("auth").userId }, offer);
    return c.json(view(row, await whatWillEnd(c.env, [row])), 200);
  });

  for (const { decision, path } of decisions) {
    app.openapi(decisionRoute(decision, path), async (c) => {
      const params = c.req.valid("param");
      const orgId = parseOrg(params.org_id);
      await requireManager(c, orgId);
      const caller = { orgId, userId: c.get("auth").userId };
      const accepted = await decideOnTransfer(c.env, decision, caller, params.id);
      return accepted ? c.json(view(accepted), 200) : c.body(null, 204);
    });
  }
}
