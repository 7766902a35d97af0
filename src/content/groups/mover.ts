/**
 * Moving a site between groups, online (docs/decisions/site-groups.md "Moving a site", issue 38). A move is
 * a state (`MoveState`, kept by the site's SiteMover Durable Object) advanced one small step at a time by
 * `step`; each step is safe to run again after a death before its new state was saved (writes are
 * idempotent: fences are upserts, copies `INSERT OR IGNORE`, deletes by what is left, directory writes
 * compare-and-set on the routing version).
 *
 * 1. fence_target: the target group refuses the site's writes (`incoming`) until the switch;
 * 2. mark: the directory marks the site moving to the target (writers' routes are forgotten);
 * 3. fence_source: the source group refuses the site's writes (`moving`): from here a write answers 503;
 * 4. clear_target: leftovers of the site in the target (none, unless an earlier move died there) deleted;
 * 5. copy: every table of the site's rows, in rowid chunks (one bound JSON parameter each), cursor saved;
 * 6. switch: the directory names the target (version + 1), the source's fence becomes `moved` (for good:
 *    an isolate that still routes there cannot write), the target's fence is lifted;
 * 7. purge_source: the site's rows deleted from the source in chunks (the fence opened by each batch);
 * 8. caches: the site's content version moved in the target, this isolate's route and key contexts forgotten;
 * then `done`.
 * A rollback (the operator's, or the mover's own when a step fails `MAX_STEP_FAILURES` times: a target that refuses)
 * is possible until the switch: the target's copy is deleted, the directory mark cleared, both fences lifted.
 */

import type { SiteMoveProgress, SiteMoveStart } from "../../lib/rpc";
import type { WorkerEnv } from "../core/bindings";
import {
  clearMoving,
  forgetRoute,
  groupDatabase,
  groupNames,
  markMoving,
  ROUTE_TTL_MS,
  siteRoute,
  switchGroup,
} from "../core/groups";
import { keyContexts } from "../keys/key-cache";
import {
  bumpContentVersion,
  deleteChunk,
  dropFence,
  readChunk,
  SITE_TABLES,
  setFence,
  writeChunk,
} from "./move-store";

export type MovePhase =
  | "fence_target"
  | "mark"
  | "fence_source"
  | "clear_target"
  | "copy"
  | "switch"
  | "settle"
  | "purge_source"
  | "caches"
  | "done"
  | "rollback_target"
  | "rollback_mark"
  | "rollback_fences"
  | "rolled_back";

export interface MoveState {
  site_id: string;
  from: string;
  to: string;
  /** The site's routing version when the move started (the directory's compare-and-set). */
  version: number;
  phase: MovePhase;
  /** Index in SITE_TABLES of the table the phase works on (copy, clear, purge). */
  table: number;
  /** The copy's cursor: the last rowid of `table` copied. */
  after: number;
  /** Rows written to the target per table, and rows deleted from the source in all. */
  copied: Record<string, number>;
  deleted: number;
  started_at: string;
  finished_at: string | null;
  /** When the source began refusing the site's writes, and when it stopped (the longest write refusal). */
  refusing_since: string | null;
  refusing_until: string | null;
  /** Consecutive failures of the current step (a chunk the target refuses, a directory that moved on). */
  failures: number;
  /** Why the move rolled back, or the last error of a step that will be retried. */
  error: string | null;
  /** Who asked (the operator's user id), for the record. */
  requested_by: string | null;
  /** When the directory switched, and how long the source's rows stay after it (isolates' cached routes). */
  switched_at: string | null;
  settle_ms: number;
}

/**
 * How long the source keeps the site's rows after the switch: an isolate trusts its cached route for
 * ROUTE_TTL_MS, so a read that still goes to the source finds the rows there until every such route expired.
 */
export const SETTLE_MS = ROUTE_TTL_MS + 5_000;

/** Rows read per chunk, and the most bytes of JSON bound as one parameter (D1: 2 MB per value). */
export const CHUNK_ROWS = 200;
export const CHUNK_BYTES = 900_000;
/** Rows deleted per batch (each deleted post also runs its triggers: search, revisions, references). */
export const DELETE_ROWS = 200;
/** A step that fails this many times in a row before the switch rolls the move back. */
export const MAX_STEP_FAILURES = 3;

export type MoveRefusal = Extract<SiteMoveStart, { ok: false }>["reason"];

/** A new move of the site to `to`, or why not (the site's routing read fresh from the directory). */
export async function planMove(
  env: WorkerEnv,
  siteId: string,
  to: string,
  current: MoveState | null,
  requestedBy: string | null,
  now: string,
  settleMs = SETTLE_MS,
): Promise<MoveState | MoveRefusal> {
  const route = await siteRoute(env, siteId, { fresh: true });
  if (!route) return "unknown_site";
  if (!groupNames(env).includes(to)) return "unknown_group";
  if ((current && !isFinished(current)) || route.movingTo !== null) return "in_progress";
  if (route.group === to) return "same_group";
  return {
    site_id: siteId,
    from: route.group,
    to,
    version: route.version,
    phase: "fence_target",
    table: 0,
    after: 0,
    copied: {},
    deleted: 0,
    started_at: now,
    finished_at: null,
    refusing_since: null,
    refusing_until: null,
    failures: 0,
    error: null,
    requested_by: requestedBy,
    switched_at: null,
    settle_ms: settleMs,
  };
}

export function isFinished(state: MoveState): boolean {
  return state.phase === "done" || state.phase === "rolled_back";
}

/** Whether the operator may still roll the move back (before the switch). */
export function canRollBack(state: MoveState): boolean {
  return ["fence_target", "mark", "fence_source", "clear_target", "copy"].includes(state.phase);
}

/**
 * The state after a failed step: the failure counted, and a move not yet switched rolled back once its step
 * failed MAX_STEP_FAILURES times in a row (after the switch a move only goes forward).
 */
export function failed(state: MoveState, err: unknown): MoveState {
  const reason = err instanceof Error ? err.message : String(err);
  const failures = state.failures + 1;
  if (failures >= MAX_STEP_FAILURES && canRollBack(state)) {
    return rollingBack(state, `step ${state.phase} failed ${failures} times: ${reason}`);
  }
  return { ...state, failures, error: reason };
}

/** The state a rollback starts from. */
export function rollingBack(state: MoveState, reason: string): MoveState {
  return {
    ...state,
    phase: "rollback_target",
    table: SITE_TABLES.length - 1,
    after: 0,
    error: reason,
    failures: 0,
  };
}

/** Until when a move waits before its next step (the settle after the switch), or null. */
export function waitUntil(state: MoveState): number | null {
  if (state.phase !== "settle" || !state.switched_at) return null;
  return Date.parse(state.switched_at) + state.settle_ms;
}

/** The JSON array of the longest prefix of `rows` that fits in CHUNK_BYTES (at least one row), and its count. */
function pack(rows: readonly { row_json: string }[]): { json: string; taken: number } {
  let size = 2;
  let taken = 0;
  for (const row of rows) {
    if (taken > 0 && size + row.row_json.length + 1 > CHUNK_BYTES) break;
    size += row.row_json.length + 1;
    taken++;
  }
  return {
    json: `[${rows
      .slice(0, taken)
      .map((r) => r.row_json)
      .join(",")}]`,
    taken,
  };
}

/**
 * Deletes the site's rows of the table `state.table` points at in `db`, one chunk; moves to the table before
 * it once that table has none left, and to `next` after the first table.
 */
async function deleteStep(db: D1Database, state: MoveState, next: MovePhase): Promise<MoveState> {
  const t = SITE_TABLES[state.table];
  if (!t) return { ...state, phase: next, table: 0, after: 0 };
  const deleted = await deleteChunk(db, t, state.site_id, DELETE_ROWS);
  const counted = state.phase === "purge_source" ? { deleted: state.deleted + deleted } : {};
  if (deleted >= DELETE_ROWS) return { ...state, ...counted };
  return state.table === 0
    ? { ...state, ...counted, phase: next, table: 0, after: 0 }
    : { ...state, ...counted, table: state.table - 1 };
}

/**
 * One step of the move; returns the state to save. A failed step throws: the caller keeps the state, counts
 * the failure and tries again later (`failed`), and rolls the move back once a step before the switch failed
 * `MAX_STEP_FAILURES` times in a row (a target that refuses the copy).
 */
export async function step(env: WorkerEnv, state: MoveState, now: () => string): Promise<MoveState> {
  const source = groupDatabase(env, state.from);
  const target = groupDatabase(env, state.to);
  const site = state.site_id;
  switch (state.phase) {
    case "fence_target":
      await setFence(target, site, "incoming", state.from, now());
      return { ...state, phase: "mark" };
    case "mark":
      if (!(await markMoving(env, site, state.version, state.to))) {
        return rollingBack(state, "the site's routing changed before the move began");
      }
      return { ...state, phase: "fence_source" };
    case "fence_source": {
      await setFence(source, site, "moving", state.to, now());
      return {
        ...state,
        phase: "clear_target",
        table: SITE_TABLES.length - 1,
        refusing_since: state.refusing_since ?? now(),
      };
    }
    case "clear_target":
      return deleteStep(target, state, "copy");
    case "copy": {
      const t = SITE_TABLES[state.table];
      if (!t) return { ...state, phase: "switch", table: 0, after: 0 };
      const rows = await readChunk(source, t, site, state.after, CHUNK_ROWS);
      if (rows.length === 0) return { ...state, table: state.table + 1, after: 0 };
      const { json, taken } = pack(rows);
      const written = await writeChunk(target, t, site, json);
      const last = rows[taken - 1]?.move_rowid ?? state.after;
      return {
        ...state,
        after: last,
        copied: { ...state.copied, [t.name]: (state.copied[t.name] ?? 0) + written },
      };
    }
    case "switch": {
      if (!(await switchGroup(env, site, state.version, state.to))) {
        // Resumed after the switch was written but before this state was saved: the directory says so.
        const route = await siteRoute(env, site, { fresh: true });
        if (!(route && route.group === state.to && route.version === state.version + 1)) {
          throw new Error("the directory moved on during the switch");
        }
      }
      await setFence(source, site, "moved", state.to, now());
      await dropFence(target, site);
      const at = now();
      return {
        ...state,
        phase: "settle",
        switched_at: state.switched_at ?? at,
        refusing_until: state.refusing_until ?? at,
      };
    }
    case "settle":
      return { ...state, phase: "purge_source", table: SITE_TABLES.length - 1 };
    case "purge_source":
      return deleteStep(source, state, "caches");
    case "caches":
      await bumpContentVersion(target, site);
      forgetRoute(site);
      keyContexts.forgetSite(site);
      return { ...state, phase: "done", finished_at: now() };
    case "rollback_target":
      return deleteStep(target, state, "rollback_mark");
    case "rollback_mark": {
      if (!(await clearMoving(env, site, state.version, state.to))) {
        const route = await siteRoute(env, site, { fresh: true });
        if (route && route.group !== state.from)
          throw new Error("the directory no longer names the source group");
      }
      return { ...state, phase: "rollback_fences" };
    }
    case "rollback_fences":
      await dropFence(source, site);
      await dropFence(target, site);
      forgetRoute(site);
      return {
        ...state,
        phase: "rolled_back",
        finished_at: now(),
        refusing_until: state.refusing_since ? (state.refusing_until ?? now()) : null,
      };
    case "done":
    case "rolled_back":
      return state;
  }
}

export type MoveProgress = SiteMoveProgress;

const STATES: Record<MovePhase, MoveProgress["state"]> = {
  fence_target: "copying",
  mark: "copying",
  fence_source: "copying",
  clear_target: "copying",
  copy: "copying",
  switch: "switching",
  settle: "cleaning",
  purge_source: "cleaning",
  caches: "cleaning",
  done: "done",
  rollback_target: "rolling_back",
  rollback_mark: "rolling_back",
  rollback_fences: "rolling_back",
  rolled_back: "rolled_back",
};

export function progressOf(state: MoveState, now: number): MoveProgress {
  const since = state.refusing_since ? Date.parse(state.refusing_since) : null;
  const until = state.refusing_until ? Date.parse(state.refusing_until) : now;
  const working = ["clear_target", "copy", "purge_source", "rollback_target"].includes(state.phase);
  return {
    site_id: state.site_id,
    from: state.from,
    to: state.to,
    state: STATES[state.phase],
    phase: state.phase,
    table: working ? (SITE_TABLES[state.table]?.name ?? null) : null,
    rows_copied: Object.values(state.copied).reduce((a, b) => a + b, 0),
    rows_copied_by_table: state.copied,
    rows_deleted: state.deleted,
    started_at: state.started_at,
    finished_at: state.finished_at,
    longest_write_refusal_ms: since === null ? null : Math.max(0, until - since),
    error: state.error,
  };
}
