/**
 * Audit events: who (an API key and the user who created it) did what (action, resources, filters,
 * count) to which site, when, with what outcome. Written by the lead reads and exports; shaped so a
 * general audit log can list them per site in time order.
 */
import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { auditEvents } from "../../../schema/content";

export type AuditEventRow = typeof auditEvents.$inferSelect;

export interface AuditEvent {
  id: string;
  site_id: string;
  /** Who acted: an API key (default), a signed-in person (the dashboard, issue 34) or a webhook (a `lead.created` delivery). */
  actor_type?: "api_key" | "person" | "webhook";
  actor_id: string;
  actor_user_id: string | null;
  action: string;
  outcome: string;
  resource_type: string;
  resource_ids: string[];
  details: Record<string, unknown>;
  item_count: number;
  request_id: string | null;
  client_ip: string | null;
  created_at: string;
  completed_at: string | null;
}

export async function insertAuditEvent(db: D1Database, event: AuditEvent): Promise<void> {
  await drizzle(db)
    .insert(auditEvents)
    .values({
      id: event.id,
      site_id: event.site_id,
      actor_type: event.actor_type ?? "api_key",
      actor_id: event.actor_id,
      actor_user_id: event.actor_user_id,
      action: event.action,
      outcome: event.outcome,
      resource_type: event.resource_type,
      resource_ids_json: JSON.stringify(event.resource_ids),
      details_json: JSON.stringify(event.details),
      item_count: event.item_count,
      request_id: event.request_id,
      client_ip: event.client_ip,
      created_at: event.created_at,
      completed_at: event.completed_at,
    })
    .run();
}

/** Closes an event that was opened before its work started (an export): final outcome and count. */
export async function completeAuditEvent(
  db: D1Database,
  id: string,
  outcome: string,
  itemCount: number,
  at: string,
): Promise<void> {
  await drizzle(db)
    .update(auditEvents)
    .set({ outcome, item_count: itemCount, completed_at: at })
    .where(eq(auditEvents.id, id))
    .run();
}
