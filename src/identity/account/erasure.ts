/**
 * The erasing cron (issue 24 §2): accounts whose grace period ended by `now` (the cron's scheduled time,
 * injected by tests) lose their personal data, each in one batch claimed by a compare-and-set (a second
 * run, or two overlapping runs, erase nothing twice). The primary address, read before the batch, is
 * told once, by the run whose claim won. Then content learns of every erased account it has not been
 * told of (`account.deleted` on the identity -> content queue), retried on each run until sent.
 */
import type { Logger } from "../../lib/log";
import { batch } from "../../lib/sql";
import { tracedMessage } from "../../lib/trace";
import type { Env } from "../core/worker-env";
import { recordEvent } from "../events/events";
import { createMailer } from "../messaging/messaging";
import { tell } from "./deletion";
import {
  dueDeletions,
  eraseStatements,
  markContentNotified,
  memberOrgIds,
  unnotifiedErasures,
} from "./deletion-store";

/** Accounts erased per run (the rest wait for the next hour). */
const ERASE_BATCH = 50;

/** The message content's author personas learn of an erased account by. */
export interface AccountDeletedMessage {
  type: "account.deleted";
  user_id: string;
  at: string;
}

const NO_ORIGIN = { ipPrefix: null, userAgent: null };

export async function eraseDueAccounts(env: Env, now: number, log: Logger) {
  const at = new Date(now).toISOString();
  const mailer = createMailer(env);
  let erased = 0;
  for (const due of await dueDeletions(env.DB, at, ERASE_BATCH)) {
    const orgIds = await memberOrgIds(env.DB, due.user_id);
    const event = recordEvent(
      env.DB,
      NO_ORIGIN,
      { userId: due.user_id, type: "account_erased" },
      { ifChanged: true },
    );
    const [claim] = await batch(env.DB, eraseStatements(env.DB, due.user_id, at, orgIds, event));
    if ((claim?.changes ?? 0) === 0) continue;
    erased += 1;
    if (due.address) {
      await tell(mailer, log, due.address, { kind: "erased" });
    }
  }
  const notified = await notifyContent(env, at, log);
  return { erased, notified };
}

async function notifyContent(env: Env, at: string, log: Logger) {
  let notified = 0;
  for (const row of await unnotifiedErasures(env.DB, ERASE_BATCH)) {
    const message: AccountDeletedMessage = {
      type: "account.deleted",
      user_id: row.user_id,
      at: row.erased_at,
    };
    try {
      await env.SITE_TRANSFERRED.send(tracedMessage(message));
      await markContentNotified(env.DB, row.user_id, at);
      notified += 1;
    } catch (err) {
      log.warn("account_deleted_send_failed", { user_id: row.user_id, error: (err as Error).message });
    }
  }
  return notified;
}
