/** Offering a site to another organization: a pending transfer (or share) the destination decides on. */
import { newId } from "../../lib/ids";
import { isoIn } from "../core/crypto";
import type { Env } from "../core/worker-env";
import { fail } from "../errors";
import { transferEvents } from "../events/events";
import { findOrgBySlug } from "../members/orgs-store";
import { resolveRole } from "../members/roles";
import { siteOrg } from "../members/site-registry";
import { findTransfer, insertPendingTransfer, type TransferRow } from "./store";

/** A transfer waits this long for the destination to decide. */
export const TRANSFER_TTL_S = 7 * 24 * 3600;

export interface TransferOffer {
  siteId: string;
  toOrgSlug: string;
  mode: string;
  shareRole?: string | null;
}

/**
 * Offers the site from the caller's organization (`orgId`, the origin, already authorized) to the
 * organization with `toOrgSlug`. A share carries a site role of the origin; the site must belong to the
 * origin in the site registry; a site has at most one pending transfer.
 */
export async function offerTransfer(
  env: Env,
  caller: { orgId: string; userId: string },
  offer: TransferOffer,
): Promise<TransferRow> {
  const { orgId } = caller;
  const { mode } = offer;
  if (mode !== "transfer" && mode !== "share") {
    fail("MODE_INVALID", "mode is transfer or share.");
  }
  let shareRole: string | null = null;
  if (mode === "share") {
    if (!offer.shareRole) fail("BAD_REQUEST", "share_role is required for a share.");
    shareRole = (await resolveRole(env.DB, orgId, "site", offer.shareRole)).slug;
  }
  const target = await findOrgBySlug(env.DB, offer.toOrgSlug.trim().toLowerCase());
  if (!target) fail("TARGET_NOT_FOUND", "No organization with that slug.");
  if (target.id === orgId) fail("SAME_ORG", "The site already belongs here.");
  const site = await siteOrg(env, offer.siteId);
  if (!site || site.org_id !== orgId) {
    fail("NOT_OWNER", "The site does not belong to this organization.");
  }
  const id = newId();
  const orgs = { fromOrgId: orgId, toOrgId: target.id };
  const events = transferEvents(env.DB, orgs, "transfer_offered", {
    actorUserId: caller.userId,
    target: id,
    detail: `${mode} of site ${offer.siteId}`,
  });
  const inserted = await insertPendingTransfer(
    env.DB,
    {
      id,
      siteId: offer.siteId,
      fromOrgId: orgId,
      toOrgId: target.id,
      mode,
      shareRole,
      createdBy: caller.userId,
      expiresAt: isoIn(TRANSFER_TTL_S),
    },
    events,
  );
  if (!inserted) {
    fail("TRANSFER_EXISTS", "A transfer of this site is already pending.");
  }
  return (await findTransfer(env.DB, id))!;
}
