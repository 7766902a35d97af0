/**
 * The audit of lead reads (`leads:read` exposes personal data). Every list, get and export writes its
 * row before any lead leaves the service, and a failed write fails the request (500): data is never
 * served unaudited. Who: the key and the staff user who created it, or the signed-in person; what: the action, the lead ids (list,
 * get) or the filters and the count (list, export); when; and the outcome.
 */
import { newId } from "../../lib/ids";
import { fail } from "../errors";
import type { KeyContext } from "../keys/key-context";
import { completeAuditEvent, insertAuditEvent } from "./audit-store";

export type LeadAction = "leads.list" | "leads.read" | "leads.export" | "leads.webhook";
/** `started` stays on an export whose stream never finished; `completed`/`failed`/`aborted` close it. */
export type LeadOutcome = "served" | "not_found" | "started" | "completed" | "failed" | "aborted";

/**
 * Who reads: the key and the user accountable for it, or a signed-in person (the dashboard's leads routes,
 * issue 34: `actorType` "person", `actorId` their user id), and where the request came from.
 */
export interface LeadReader {
  siteId: string;
  actorType: "api_key" | "person";
  /** The key's id, or the person's user id. */
  actorId: string;
  userId: string;
  requestId: string | null;
  ip: string | null;
}

/**
 * The reader of a lead request. A key without a creating user (made before keys recorded one) has no
 * accountable person to audit, so it may not read personal data: 422, as for writes without authorship.
 */
export function leadReader(key: KeyContext, requestId: string | undefined, ip: string): LeadReader {
  if (!key.createdBy) {
    fail(
      "NO_AUTHORSHIP_CONTEXT",
      "Lead reads are audited with the user accountable for the key, and this key has none; create a new key.",
    );
  }
  const person = key.actor.kind === "person" ? key.actor.userId : null;
  return {
    siteId: key.siteId,
    actorType: person ? "person" : "api_key",
    actorId: person ?? key.keyId,
    userId: key.createdBy,
    requestId: requestId ?? null,
    ip: ip === "unknown" ? null : ip,
  };
}

export interface LeadAuditEntry {
  action: LeadAction;
  outcome: LeadOutcome;
  leadIds?: string[];
  details?: Record<string, unknown>;
  count?: number;
}

/** Writes the row and returns its id; throws (so the request fails closed) when the write fails. */
export async function auditLeadAccess(
  db: D1Database,
  reader: LeadReader,
  entry: LeadAuditEntry,
  now: string,
): Promise<string> {
  const id = newId();
  await insertAuditEvent(db, {
    id,
    site_id: reader.siteId,
    actor_type: reader.actorType,
    actor_id: reader.actorId,
    actor_user_id: reader.userId,
    action: entry.action,
    outcome: entry.outcome,
    resource_type: "lead",
    resource_ids: entry.leadIds ?? [],
    details: entry.details ?? {},
    item_count: entry.count ?? entry.leadIds?.length ?? 0,
    request_id: reader.requestId,
    client_ip: reader.ip,
    created_at: now,
    completed_at: entry.outcome === "started" ? null : now,
  });
  return id;
}

export function closeLeadAudit(
  db: D1Database,
  id: string,
  outcome: Extract<LeadOutcome, "completed" | "failed" | "aborted">,
  count: number,
): Promise<void> {
  return completeAuditEvent(db, id, outcome, count, new Date().toISOString());
}

/**
 * The audit row of one `lead.created` delivery attempt, written before the lead is sent (a failed write
 * fails the attempt: nothing leaves unaudited). The actor is the webhook and the user who created it; a
 * webhook without one may not receive personal data (the fan-out never picks it; here it throws).
 */
export async function auditLeadDelivery(
  db: D1Database,
  delivery: {
    site_id: string;
    webhook_id: string;
    created_by: string | null;
    event_id: string;
    body: string;
  },
  attempt: number,
  now: string,
): Promise<void> {
  if (!delivery.created_by)
    throw new Error("lead.created delivery to a webhook without an accountable creator");
  const data = (JSON.parse(delivery.body) as { data?: { lead_id?: unknown } }).data;
  await insertAuditEvent(db, {
    id: newId(),
    site_id: delivery.site_id,
    actor_type: "webhook",
    actor_id: delivery.webhook_id,
    actor_user_id: delivery.created_by,
    action: "leads.webhook",
    outcome: "served",
    resource_type: "lead",
    resource_ids: typeof data?.lead_id === "string" ? [data.lead_id] : [],
    details: { event_id: delivery.event_id, attempt },
    item_count: 1,
    request_id: null,
    client_ip: null,
    created_at: now,
    completed_at: now,
  });
}
