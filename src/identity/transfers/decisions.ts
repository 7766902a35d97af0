/** Deciding a pending transfer: the destination accepts or rejects it, the origin cancels it. */
import { parseUlid } from "../../lib/ids";
import { rpc, type SitesRpc } from "../../lib/rpc";
import { tracedMessage } from "../../lib/trace";
import { nowIso } from "../core/crypto";
import type { Env } from "../core/worker-env";
import { fail } from "../errors";
import { transferEvents } from "../events/events";
import { grantEndStatements } from "../oauth/endings";
import { transferMoved } from "../oauth/endings-store";
import { decideTransfer, findTransfer, reopenTransfer, type TransferRow } from "./store";

export type TransferDecision = "accept" | "reject" | "cancel";

const STATUS_AFTER = { accept: "accepted", reject: "rejected", cancel: "cancelled" } as const;

/** The side of a transfer that takes each decision. */
export const DECIDING_SIDE = { accept: "destination", reject: "destination", cancel: "origin" } as const;

/**
 * Refuses with 403 FORBIDDEN unless `orgId` is the side that takes `decision` on this transfer: an
 * origin cannot accept its own offer for the destination, nor a destination cancel it.
 */
export function requireDecidingOrg(
  decision: TransferDecision,
  transfer: Pick<TransferRow, "from_org_id" | "to_org_id">,
  orgId: string,
): void {
  const side = DECIDING_SIDE[decision];
  const party = side === "origin" ? transfer.from_org_id : transfer.to_org_id;
  if (party !== orgId) fail("FORBIDDEN", `Only the ${side} decides.`);
}

/**
 * Takes `decision` on transfer `rawId` for organization `orgId` (its membership already authorized). The
 * state changes once (a decided or expired transfer is 409 NOT_PENDING); accepting a move revokes the
 * site's pending invitations and ends the site memberships of people outside the destination in the same
 * step (the origin loses every say over the site; content carries its keys and webhooks over on the event). An acceptance is
 * applied in the site registry, or undone and refused (TRANSFER_FAILED) when the registry does not carry
 * it out; once
 * applied, the other services learn of it from the site-transferred event. Returns the accepted transfer,
 * or null for a rejection or cancellation.
 */
export async function decideOnTransfer(
  env: Env,
  decision: TransferDecision,
  caller: { orgId: string; userId: string },
  rawId: string,
): Promise<TransferRow | null> {
  const id = parseUlid(rawId);
  const row = id ? await findTransfer(env.DB, id) : null;
  if (!row) fail("TRANSFER_NOT_FOUND", "No such transfer.");
  requireDecidingOrg(decision, row, caller.orgId);
  const now = nowIso();
  const orgs = { fromOrgId: row.from_org_id, toOrgId: row.to_org_id };
  const fields = { actorUserId: caller.userId, target: row.id, detail: `${row.mode} of site ${row.site_id}` };
  const events = transferEvents(env.DB, orgs, `transfer_${STATUS_AFTER[decision]}`, fields, {
    ifChanged: true,
  });
  // A move ends every MCP agent's grant on the site in the acceptance's batch: each was approved under the
  // origin, and the destination decides anew who acts there (oauth/endings.ts). A share moves nothing.
  const agents =
    decision === "accept" && row.mode === "transfer"
      ? await grantEndStatements(
          env.DB,
          { siteId: row.site_id },
          {
            reason: "site_transferred",
            by: caller.userId,
            guard: transferMoved(env.DB, row.id, now),
          },
        )
      : [];
  const decided = await decideTransfer(
    env.DB,
    row.id,
    STATUS_AFTER[decision],
    caller.userId,
    now,
    events,
    agents,
  );
  if (!decided) fail("NOT_PENDING", "The transfer is no longer pending.");
  if (decision !== "accept") return null;
  let applied: { ok: boolean };
  try {
    applied = await rpc<SitesRpc>(env.SITES).applyTransfer({
      site_id: row.site_id,
      from_org_id: row.from_org_id,
      to_org_id: row.to_org_id,
      mode: row.mode,
      share_role: row.share_role,
    });
  } catch {
    applied = { ok: false };
  }
  if (!applied.ok) {
    // The registry did not move the site: the transfer goes back to pending, nothing half-done.
    await reopenTransfer(env.DB, row.id, transferEvents(env.DB, orgs, "transfer_reopened", fields));
    fail("TRANSFER_FAILED", "The site registry refused the transfer; it stays pending.");
  }
  // The other services move the site's content on their own from this event; the transfer is final.
  await env.SITE_TRANSFERRED.send(
    tracedMessage({
      type: "site.transferred",
      transfer_id: row.id,
      site_id: row.site_id,
      from_org_id: row.from_org_id,
      to_org_id: row.to_org_id,
      mode: row.mode,
      share_role: row.share_role,
      at: now,
    }),
  );
  return { ...row, status: "accepted", decided_at: now };
}
