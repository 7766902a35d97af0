/** The development outbox: messages stored instead of sent (DEV_OUTBOX=true only). */
import { newId } from "../../lib/ids";
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
    .all<{
      to: string;
      channel: string;
      purpose: string;
      code: string | null;
      link: string | null;
      subject: string;
      created_at: string;
    }>();
  return results;
}
