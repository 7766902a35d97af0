import { and, eq, gt, lte, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { idempotencyRecords } from "../../../schema/content";
import type { ApiError } from "../../lib/problem";
import { prepared } from "../../lib/sql";
import { fail, problem } from "../errors";
import { idempotencyNotFenced } from "../groups/fence-store";
/**
 * Idempotent POSTs. A finished response is kept 24 h per (key, Idempotency-Key) in D1, written in the
 * same batch as the post (purged by the cron): no other copy, so a first request spends no hop on one.
 * Concurrency is settled by a reservation in the key's ApiKeyGate Durable Object, made in the same call
 * as the write quota (`admitWrite`): of simultaneous requests with one Idempotency-Key exactly one runs;
 * the others get 409 IDEMPOTENCY_IN_PROGRESS, and once the winner's batch committed, its D1 record (read
 * before the reservation) replays it.
 */
import { IDEMPOTENCY_TTL_MS, keyGate, type ReserveResult } from "../keys/gate";
import type { Env } from "./bindings";

export interface StoredResponse {
  status: number;
  body: string;
  location: string | null;
}

export type IdempotencyStart =
  | { kind: "replay"; response: StoredResponse }
  | {
      kind: "proceed";
      /** The D1 statement recording the response; run it in the same batch as the write. */
      recordStatement(response: StoredResponse): D1PreparedStatement;
      abort(): Promise<void>;
    };

const IDEMPOTENCY_KEY_RE = /^[\x21-\x7e]{1,255}$/;

export function parseIdempotencyKey(value: string | undefined): string | null {
  if (value === undefined) return null;
  if (!IDEMPOTENCY_KEY_RE.test(value)) {
    fail("INVALID_IDEMPOTENCY_KEY", "Idempotency-Key must be 1 to 255 visible ASCII characters.");
  }
  return value;
}

function reused(): ApiError {
  return problem(
    "IDEMPOTENCY_KEY_REUSED",
    "This Idempotency-Key was already used with a different request body.",
  );
}

/** A finished response recorded for (key, Idempotency-Key) within its 24 hours, with its request's hash. */
export interface RecordedResponse {
  requestHash: string;
  response: StoredResponse;
}

/** The D1 record of (key, Idempotency-Key), read before the reservation: a finished request replays from it. */
export async function recordedResponse(
  db: D1Database,
  keyId: string,
  idempotencyKey: string,
): Promise<RecordedResponse | null> {
  const row = await drizzle(db)
    .select({
      request_hash: idempotencyRecords.request_hash,
      status: idempotencyRecords.status,
      response_json: idempotencyRecords.response_json,
    })
    .from(idempotencyRecords)
    .where(
      and(
        eq(idempotencyRecords.key_id, keyId),
        eq(idempotencyRecords.idempotency_key, idempotencyKey),
        gt(idempotencyRecords.expires_at, new Date().toISOString()),
      ),
    )
    .get();
  if (!row) return null;
  return { requestHash: row.request_hash, response: JSON.parse(row.response_json) as StoredResponse };
}

/** A request whose (key, Idempotency-Key) has a record: the replay of the same body, else 422. */
export function replayRecorded(recorded: RecordedResponse, requestHash: string): IdempotencyStart {
  if (recorded.requestHash !== requestHash) throw reused();
  return { kind: "replay", response: recorded.response };
}

/**
 * What the reservation in the key's ApiKeyGate (made in the same call as the write quota, `admitWrite`)
 * decides: another body is 422, a racer still running is 409, a finished one replays, else proceed. The
 * record of the response is a statement on `db`, for the batch that writes the post; it names the key's
 * site (a move copies the site's records by it: an agent's pseudo key names none of its own).
 */
export function afterReservation(
  env: Env,
  db: D1Database,
  key: { keyId: string; siteId: string },
  idempotencyKey: string,
  requestHash: string,
  reservation: ReserveResult,
): IdempotencyStart {
  if (reservation.kind === "mismatch") throw reused();
  if (reservation.kind === "in_progress") {
    fail("IDEMPOTENCY_IN_PROGRESS", {
      detail: "A request with this Idempotency-Key is still being processed; retry shortly.",
      headers: { "retry-after": "1" },
    });
  }
  if (reservation.kind === "done") {
    return { kind: "replay", response: JSON.parse(reservation.body) as StoredResponse };
  }
  const now = new Date();
  const expiresAt = new Date(now.getTime() + IDEMPOTENCY_TTL_MS).toISOString();
  return {
    kind: "proceed",
    recordStatement: (response) =>
      prepared(
        db,
        drizzle(db)
          .insert(idempotencyRecords)
          .values({
            key_id: key.keyId,
            idempotency_key: idempotencyKey,
            request_hash: requestHash,
            status: response.status,
            response_json: JSON.stringify(response),
            created_at: now.toISOString(),
            expires_at: expiresAt,
            site_id: key.siteId,
          })
          .onConflictDoUpdate({
            target: [idempotencyRecords.key_id, idempotencyRecords.idempotency_key],
            set: {
              request_hash: sql`excluded.request_hash`,
              status: sql`excluded.status`,
              response_json: sql`excluded.response_json`,
              created_at: sql`excluded.created_at`,
              expires_at: sql`excluded.expires_at`,
              site_id: sql`excluded.site_id`,
            },
          }),
      ),
    async abort() {
      await keyGate(env, key.keyId).release(idempotencyKey, requestHash);
    },
  };
}

export async function purgeExpiredIdempotency(db: D1Database, now: string): Promise<number> {
  const result = await drizzle(db)
    .delete(idempotencyRecords)
    .where(and(lte(idempotencyRecords.expires_at, now), idempotencyNotFenced))
    .run();
  return result.meta.changes;
}

/** Canonical JSON (object keys sorted) so that semantically equal bodies hash equal. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
