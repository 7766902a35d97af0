/** The development outbox: messages stored instead of sent (DEV_OUTBOX=true only), through drizzle's query builder. */

import { desc, eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { outboxMessages } from "../../../schema/identity";
import { newId } from "../../lib/ids";
import { nowIso } from "../core/crypto";
import type { RenderedMessage } from "./providers/transport";

/** Stores a rendered message: `body` is its plain text, `html` its HTML body (e-mail only). */
export async function insertOutboxMessage(db: D1Database, channel: "email" | "sms", m: RenderedMessage) {
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
      body: m.text,
      html: channel === "email" ? m.html : null,
      created_at: nowIso(),
    })
    .run();
}

const o = outboxMessages;
/** The dev outbox's documented fields (ARCHITECTURE.md). */
const listed = {
  to: o.to_address,
  channel: o.channel,
  purpose: o.purpose,
  code: o.code,
  link: o.link,
  subject: o.subject,
  created_at: o.created_at,
};

/** Messages sent to an address or number, newest first. */
export async function listOutboxMessages(db: D1Database, to: string) {
  return drizzle(db).select(listed).from(o).where(eq(o.to_address, to)).orderBy(desc(o.id)).limit(100).all();
}

/** The newest 100 messages of every recipient, with their bodies (the gateway's /__dev/mail). */
export async function listMailbox(db: D1Database) {
  return drizzle(db)
    .select({ ...listed, body: o.body, html: o.html })
    .from(o)
    .orderBy(desc(o.id))
    .limit(100)
    .all();
}
