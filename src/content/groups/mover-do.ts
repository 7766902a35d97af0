/**
 * The SiteMover Durable Object: one per site (`idFromName(site_id)`), it keeps the site's latest move
 * (src/content/groups/mover.ts) and advances it by alarm, saving the state after every step: a run takes steps
 * for `RUN_BUDGET_MS` (and `STEPS_PER_RUN` at most: D1 allows 1,000 queries per invocation, a step makes at most
 * four), then sets the next alarm at once. A run that dies is
 * resumed by the next alarm from the last saved state (each step is safe to run again). A failed step is
 * retried after a backoff; before the switch, its third failure in a row rolls the move back.
 *
 * Why a Durable Object (docs/decisions/site-groups.md): one per site gives the move a single runner and a
 * place for its cursor without a table of moves, its alarm resumes it after a deploy or an eviction, and the
 * operator's progress read is a call to the same object. A Workflow would do the same with more machinery
 * (its steps' results are capped and a move's state is small); a queue would need the cursor stored
 * elsewhere and could run two chunks of one site at once.
 */
import { DurableObject } from "cloudflare:workers";
import type { SiteMoveProgress, SiteMoveStart } from "../../lib/rpc";
import type { WorkerEnv } from "../core/bindings";
import {
  canRollBack,
  failed,
  isFinished,
  type MoveState,
  planMove,
  progressOf,
  rollingBack,
  step,
  waitUntil,
} from "./mover";

/** Steps per alarm run at most (each at most four D1 queries: well under the 1,000 per invocation). */
export const STEPS_PER_RUN = 100;
/**
 * How long one alarm run takes steps before it hands over to the next alarm. While a run lasts, workerd held
 * the Worker's other requests to the site (measured with 100 steps a run: a 4,000-post copy held every write
 * and every progress read for its whole 2 s, so writers saw no 503 but a 2 s wait, and the progress never
 * showed the copy); between runs they are served, so a write during the copy is refused at once.
 */
const RUN_BUDGET_MS = 100;
const STATE_KEY = "move";
/** Tests only: the move advances only through `runSteps` (no alarm), so a test can stop it at any step. */
const MANUAL_KEY = "manual";

function backoffMs(failures: number): number {
  return Math.min(60_000, 1_000 * 2 ** Math.max(0, failures - 1));
}

const ROLLING_BACK = new Set(["rollback_target", "rollback_mark", "rollback_fences", "rolled_back"]);

export class SiteMover extends DurableObject<WorkerEnv> {
  /** One step at a time in this object: the alarm, a test's steps and a rollback request queue behind it. */
  private turn: Promise<unknown> = Promise.resolve();

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.turn.then(work, work);
    this.turn = run.catch(() => undefined);
    return run;
  }

  private load(): MoveState | null {
    return this.ctx.storage.kv.get<MoveState>(STATE_KEY) ?? null;
  }

  private save(state: MoveState): void {
    this.ctx.storage.kv.put(STATE_KEY, state);
  }

  private manual(): boolean {
    return this.ctx.storage.kv.get<boolean>(MANUAL_KEY) === true;
  }

  private async wake(delayMs = 0): Promise<void> {
    if (!this.manual()) await this.ctx.storage.setAlarm(Date.now() + delayMs);
  }

  /** Starts a move of the site to `to` (refused as data: see SiteMoveStart). */
  start(input: {
    site_id: string;
    to: string;
    requested_by: string | null;
    /** Tests only: no alarm; the test advances the move with `runSteps`. */
    manual?: boolean;
    /** Tests only: how long the source keeps the rows after the switch (SETTLE_MS). */
    settle_ms?: number;
  }): Promise<SiteMoveStart> {
    return this.exclusive(async () => {
      const now = new Date().toISOString();
      const planned = await planMove(
        this.env,
        input.site_id,
        input.to,
        this.load(),
        input.requested_by,
        now,
        input.settle_ms,
      );
      if (typeof planned === "string") return { ok: false, reason: planned };
      this.save(planned);
      this.ctx.storage.kv.put(MANUAL_KEY, input.manual === true);
      await this.wake();
      return { ok: true, move: progressOf(planned, Date.now()) };
    });
  }

  /** The site's latest move, or null. */
  progress(): SiteMoveProgress | null {
    const state = this.load();
    return state ? progressOf(state, Date.now()) : null;
  }

  /** The operator rolls the move back: possible until the switch (after it, a move back is a new move). */
  rollBack(reason = "rolled back by the operator"): Promise<SiteMoveProgress | "no_move" | "past_switch"> {
    return this.exclusive(async () => {
      const state = this.load();
      if (!state) return "no_move";
      if (ROLLING_BACK.has(state.phase)) return progressOf(state, Date.now());
      if (!canRollBack(state)) return "past_switch";
      const next = rollingBack(state, reason);
      this.save(next);
      await this.wake();
      return progressOf(next, Date.now());
    });
  }

  /** One step, saved; "failed" when it threw (the failure counted, the state kept or rolled back). */
  private runOne(
    options: { keepUnsaved?: boolean } = {},
  ): Promise<"stepped" | "failed" | "finished" | number> {
    return this.exclusive(async () => {
      const state = this.load();
      if (!state || isFinished(state)) return "finished";
      const until = waitUntil(state);
      if (until !== null && until > Date.now()) return until;
      let next: MoveState;
      try {
        next = await step(this.env, state, () => new Date().toISOString());
      } catch (err) {
        this.save(failed(state, err));
        return "failed";
      }
      const rollingBackNow = ROLLING_BACK.has(next.phase);
      next = { ...next, failures: 0, error: rollingBackNow ? next.error : null };
      if (!options.keepUnsaved) this.save(next);
      return isFinished(next) ? "finished" : "stepped";
    });
  }

  override async alarm(): Promise<void> {
    const began = Date.now();
    for (let i = 0; i < STEPS_PER_RUN && (i === 0 || Date.now() - began < RUN_BUDGET_MS); i++) {
      const outcome = await this.runOne();
      if (outcome === "finished") return;
      if (typeof outcome === "number") {
        if (!this.manual()) await this.ctx.storage.setAlarm(outcome);
        return;
      }
      if (outcome === "failed") {
        await this.wake(backoffMs(this.load()?.failures ?? 1));
        return;
      }
    }
    await this.wake();
  }

  /**
   * Tests only (the test hook of the brief): runs up to `steps` steps now and stops there, as a move that
   * died after them would. `loseLast`: the last step's writes happen but its new state is not saved, as when
   * the object dies between the two; the next run does that step again.
   */
  async runSteps(steps: number, options: { loseLast?: boolean } = {}): Promise<SiteMoveProgress | null> {
    for (let i = 0; i < steps; i++) {
      const last = i === steps - 1;
      const outcome = await this.runOne({ keepUnsaved: last && options.loseLast === true });
      if (outcome === "finished" || typeof outcome === "number") break;
    }
    return this.progress();
  }
}
