/**
 * The ETag of a post's revision (the source and the PATCH answer) and the If-Match precondition on it
 * (RFC 9110 §13.1.1: `*`, or a list of entity tags compared strongly, so a weak tag never matches).
 *
 * A scheduled post whose time has come counts one revision more than it stores: the cron that flips it
 * to published bumps the stored revision by one, so the tag a client reads once the post is due stays
 * valid across that flip, and a tag read before the post went live is stale after it (its status changed).
 */
import type { PostRow } from "./store";

export function effectiveRevision(row: Pick<PostRow, "revision" | "status" | "published_at">, now: string) {
  const due = row.status === "scheduled" && row.published_at !== null && row.published_at <= now;
  return row.revision + (due ? 1 : 0);
}

export function revisionTag(row: Pick<PostRow, "revision" | "status" | "published_at">, now: string): string {
  return `"rev-${effectiveRevision(row, now)}"`;
}

/** What an `If-Match` header asks: nothing (absent), any current post (`*`), or one of these revisions. */
export type RevisionPrecondition = null | "any" | number[];

export function parseIfMatch(header: string | undefined): RevisionPrecondition {
  if (header === undefined || header.trim() === "") return null;
  if (header.trim() === "*") return "any";
  return header
    .split(",")
    .map((tag) => /^"rev-(\d{1,15})"$/.exec(tag.trim())?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number);
}

export function preconditionHolds(precondition: RevisionPrecondition, revision: number): boolean {
  return precondition === null || precondition === "any" || precondition.includes(revision);
}
