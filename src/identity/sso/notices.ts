/**
 * Every owner of an organization is told at once when its single sign-on changes (set, changed,
 * removed) or when an owner signs in past enforced SSO (break-glass). A notice never fails the change:
 * one that cannot be sent is logged. The words are the `sso_notice` template's (messaging/templates/).
 */
import type { Services } from "../core/context";
import type { Env } from "../core/worker-env";
import type { SsoNoticeKind } from "../messaging/messages";
import type { Mailer } from "../messaging/messaging";
import { ownerAddresses } from "./store";
import { SSO_UNDO_TTL_S } from "./undo";

export async function noticeOwners(
  env: Env,
  mailer: Mailer,
  orgId: string,
  kind: SsoNoticeKind,
  onError: (err: unknown) => void,
  undoLink?: string,
) {
  try {
    for (const owner of await ownerAddresses(env.DB, orgId)) {
      await mailer
        .send({
          to: owner.address,
          purpose: "sso_notice",
          vars: { kind, owner: owner.name, ...(undoLink ? { undoDays: SSO_UNDO_TTL_S / 86_400 } : {}) },
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
  kind: SsoNoticeKind,
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
