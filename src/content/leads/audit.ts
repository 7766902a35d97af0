/**
 * The audit of lead reads (`leads:read` exposes personal data). Every list, get and export writes its
 * row before any lead leaves the service, and a failed write fails the request (500): data is never
 * served unaudited. Who: the key and the staff user who created it; what: the action, the lead ids (list,
 * get) or the filters and the count (list, export); when; and the outcome.
 */
import { newId } from "../../lib/ids";
import { fail } from "../errors";
import type { KeyContext } from "../keys/key-context";
import { completeAuditEvent, insertAuditEvent } from "./audit-store";

export type LeadAction = "leads.list" | "leads.read" | "leads.export";
/** `started` stays on an export whose stream never finished; `completed`/`failed`/`aborted` close it. */
export type LeadOutcome = "served" | "not_found" | "started" | "completed" | "failed" | "aborted";

/** Who reads: the key, the user accountable for it, and where the request came from. */
export interface LeadReader {
  siteId: string;
  keyId: string;
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
  return {
    siteId: key.siteId,
    keyId: key.keyId,
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
    actor_id: reader.keyId,
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
