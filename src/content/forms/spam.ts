/**
 * Spam heuristics of anonymous form submissions. A flagged submission is stored with status `spam` and
 * its reasons (never dropped: a false positive stays recoverable by the site owner); the submitter gets
 * the same answer either way, so a bot learns nothing. Plain functions: the clock is passed in.
 */
import type { FieldValue, FormField } from "./fields";

export const SPAM_RULES = {
  /** A human needs longer than this between receiving the form and sending it. */
  minFillMs: 3_000,
  /** A token older than this is a replayed harvest, not an open tab. */
  maxTokenAgeMs: 24 * 60 * 60 * 1000,
  /** More links than this across the free-text values (url fields not counted). */
  maxLinks: 2,
  /** The same values sent to the same form again within this window. */
  duplicateWindowMs: 10 * 60 * 1000,
} as const;

export type SpamReason =
  | "honeypot"
  | "no_token"
  | "bad_token"
  | "too_fast"
  | "stale_token"
  | "links"
  | "rate"
  | "duplicate"
  /** The token was already used by an earlier submission (decided by the store, atomically). */
  | "reused_token";

const LINK = /\bhttps?:\/\/|\bwww\.|\[url[=\]]/gi;

/** Links in the submitted text, url-typed fields excepted (one link is their point). */
export function countLinks(fields: FormField[], values: Record<string, FieldValue>): number {
  let links = 0;
  for (const field of fields) {
    const value = values[field.name];
    if (field.type === "url" || typeof value !== "string") continue;
    links += value.match(LINK)?.length ?? 0;
  }
  return links;
}

export interface SubmissionSignals {
  /** The hidden honeypot input: people never see it, so any value is a bot's. */
  honeypot: string | null;
  /** The token's verified issue time; "missing" when none was sent, null when it did not verify. */
  tokenIssuedMs: number | null | "missing";
  links: number;
  /** The submitter's per-IP burst was exceeded (the soft tier of the rate limit). */
  burst: boolean;
  nowMs: number;
}

/**
 * Every rule the submission trips, in a fixed order (`duplicate` and `reused_token` are decided by the
 * store, atomically).
 */
export function spamReasons(signals: SubmissionSignals): SpamReason[] {
  const reasons: SpamReason[] = [];
  if (signals.honeypot !== null && signals.honeypot.trim() !== "") reasons.push("honeypot");
  const issued = signals.tokenIssuedMs;
  if (issued === "missing") reasons.push("no_token");
  else if (issued === null || issued > signals.nowMs + 60_000) reasons.push("bad_token");
  else if (signals.nowMs - issued < SPAM_RULES.minFillMs) reasons.push("too_fast");
  else if (signals.nowMs - issued > SPAM_RULES.maxTokenAgeMs) reasons.push("stale_token");
  if (signals.links > SPAM_RULES.maxLinks) reasons.push("links");
  if (signals.burst) reasons.push("rate");
  return reasons;
}
