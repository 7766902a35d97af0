/**
 * The retry of every optimistic write of the sites service (settings merges, applets, theme apply and
 * undo, lifecycle transitions, purges, domain moves): each round re-reads, decides and tries one
 * conditional write; a round that lost to a concurrent write returns `LOST` and the next round starts
 * after a short random pause (so racing writers stop colliding in step); after `rounds` lost rounds the
 * answer is 409 `EDIT_CONFLICT`.
 */
import { fail } from "../errors";

/** What a round returns when its conditional write changed nothing because the row moved on. */
export const LOST = Symbol("lost compare-and-swap");

function pause(round: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 5 * round)));
}

export async function untilSwapped<T>(
  rounds: number,
  conflictDetail: string,
  round: (index: number) => Promise<T | typeof LOST>,
): Promise<T> {
  for (let index = 0; index < rounds; index++) {
    if (index > 0) await pause(index);
    const result = await round(index);
    if (result !== LOST) return result;
  }
  fail("EDIT_CONFLICT", conflictDetail);
}
