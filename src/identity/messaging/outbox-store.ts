/** The development outbox: messages stored instead of sent (DEV_OUTBOX=true only), through drizzle's query builder. */

import { desc, eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { outboxMessages } from "../../../schema/identity";
import { newId } from "../../lib/ids";
import { nowIso } from "../core/crypto";
import type { OutboundMessage } from "./messages";

export async function insertOutboxMessage(db: D1Database, channel: "email" | "sms", m: OutboundMessage) {
  await drizzle(db)
    .insert(outboxMessages)
    .values({
      id: newId(),
      to_address: m.to,
      channel,
      purpose: m.purpose,
      code: m.code ?? null,
      link: m.link ?? null,
      subject: m.subject,
      body: m.body,
      created_at: nowIso(),
    })
    .run();
}

/** Messages sent to an address or number, newest first. */
export async function listOutboxMessages(db: D1Database, to: string) {
  const o = outboxMessages;
  return drizzle(db)
    .select({
      to: o.to_address,
      channel: o.channel,
      purpose: o.purpose,
      code: o.code,
      link: o.link,
      subject: o.subject,
      created_at: o.created_at,
    })
    .from(o)
    .where(eq(o.to_address, to))
    .orderBy(desc(o.id))
    .limit(100)
    .all();
}
