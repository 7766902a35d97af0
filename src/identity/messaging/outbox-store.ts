/** The development outbox: messages stored instead of sent (DEV_OUTBOX=true only). */

import type { outboxMessages } from "../../../schema/identity";
import { newId } from "../../lib/ids";
import type { Computed, Row } from "../../lib/rows";
import { nowIso } from "../core/crypto";
import type { OutboundMessage } from "./messages";

export async function insertOutboxMessage(db: D1Database, channel: "email" | "sms", m: OutboundMessage) {
  await db
    .prepare(
      `INSERT INTO outbox_messages (id, to_address, channel, purpose, code, link, subject, body, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(newId(), m.to, channel, m.purpose, m.code ?? null, m.link ?? null, m.subject, m.body, nowIso())
    .run();
}

/** Messages sent to an address or number, newest first. */
export async function listOutboxMessages(db: D1Database, to: string) {
  const { results } = await db
    .prepare(
      `SELECT to_address AS "to", channel, purpose, code, link, subject, created_at
       FROM outbox_messages WHERE to_address = ? ORDER BY id DESC LIMIT 100`,
    )
    .bind(to)
    .all<
      Row<typeof outboxMessages, "channel" | "purpose" | "code" | "link" | "subject" | "created_at"> &
        Computed<{ to: (typeof outboxMessages.$inferSelect)["to_address"] }>
    >();
  return results;
}
