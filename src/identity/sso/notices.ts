/**
 * Every owner of an organization is told at once when its single sign-on changes (set, changed,
 * removed) or when an owner signs in past enforced SSO (break-glass). A notice never fails the change:
 * one that cannot be sent is logged.
 */
import type { Services } from "../core/context";
import type { Env } from "../core/worker-env";
import type { Mailer } from "../messaging/messaging";
import { ownerAddresses } from "./store";
import { SSO_UNDO_TTL_S } from "./undo";

const WHAT = {
  set: "Single sign-on was set up for your organization",
  changed: "The single sign-on of your organization was changed",
  removed: "Single sign-on was removed from your organization; its SSO sessions ended",
  break_glass: "An owner signed in to your organization without its single sign-on (break-glass)",
  undone:
    "A change to the single sign-on of your organization was undone by its e-mailed link; its SSO sessions ended",
} as const;

/** The notice's advice; with `undoLink` (a set or a change: docs/decisions/grant-endings.md), the one-click undo. */
function advice(undoLink?: string): string {
  if (!undoLink) return "review the organization's single sign-on settings and its members now.";
  return `undo it with this link, which puts the earlier configuration back (or removes single sign-on if there was none) and ends every SSO session (it works once, for ${SSO_UNDO_TTL_S / 86_400} days, until the next change): ${undoLink} Then review the organization's owners.`;
}

export async function noticeOwners(
  env: Env,
  mailer: Mailer,
  orgId: string,
  kind: keyof typeof WHAT,
  onError: (err: unknown) => void,
  undoLink?: string,
) {
  try {
    for (const owner of await ownerAddresses(env.DB, orgId)) {
      await mailer
        .send({
          to: owner.address,
          purpose: "sso_notice",
          subject: WHAT[kind],
          body: `${WHAT[kind]} (${owner.name}). If this was not one of the owners, ${advice(undoLink)}`,
          ...(undoLink ? { link: undoLink } : {}),
        })
        .catch(onError);
    }
  } catch (err) {
    onError(err);
  }
}

export function tellOwners(
  env: Env,
  services: Pick<Services, "mailer" | "log">,
  orgId: string,
  kind: keyof typeof WHAT,
  undoLink?: string,
) {
  return noticeOwners(
    env,
    services.mailer,
    orgId,
    kind,
    (err) =>
      services.log.error("owner_notice_failed", { purpose: "sso_notice", error: (err as Error).message }),
    undoLink,
  );
}
