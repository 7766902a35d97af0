/**
 * The roles' rules on posts (issue 34, src/content/posts/roles.ts) over constructed KeyContexts: a person
 * with a permission set, a key (bound by its scopes only: every rule passes). Each refusal is 403 FORBIDDEN
 * naming the missing permission in `details.missing`.
 */
import { describe, expect, it } from "vitest";
import type { KeyContext } from "../../src/content/keys/key-context";
import {
  actorStamp,
  checkAuthorChoice,
  checkChange,
  checkCreate,
  checkPreview,
  checkStatusChange,
  checkUnpublish,
  isOwnPost,
} from "../../src/content/posts/roles";
import type { PostRow } from "../../src/content/posts/store";
import { ApiError } from "../../src/lib/problem";
import type { SitePermission } from "../../src/lib/site-permissions";

const NOW = "2026-06-01T00:00:00.000Z";
const ME = "01J0000000000000000000000M";

const CONTRIBUTOR: SitePermission[] = ["read", "posts:read", "posts:write_own", "media:read"];
const AUTHOR: SitePermission[] = [...CONTRIBUTOR, "posts:publish", "media:upload"];
const EDITOR: SitePermission[] = [...AUTHOR, "posts:edit_any", "taxonomy:manage", "authors:manage"];
const MEMBER: SitePermission[] = ["read", "posts:read", "media:read"];

function person(permissions: SitePermission[], name: string | null = "Ada"): KeyContext {
  return {
    actor: { kind: "person", userId: ME, permissions: new Set(permissions) },
    keyId: `person:${ME}:S`,
    siteId: "S",
    site: { id: "S", slug: "s", primary_domain: null, default_language: "en" },
    kind: "secret",
    scopes: new Set(),
    createdBy: ME,
    authorName: name,
    contentVersion: 0,
  };
}

const KEY: KeyContext = {
  actor: { kind: "key", keyId: "K1", name: "CI key" },
  keyId: "K1",
  siteId: "S",
  site: { id: "S", slug: "s", primary_domain: null, default_language: "en" },
  kind: "secret",
  scopes: new Set(["posts:write"]),
  createdBy: "U0",
  authorName: "Owner",
  contentVersion: 0,
};

type Post = Pick<PostRow, "created_by_kind" | "created_by_id" | "status" | "published_at">;
const mine = (status: PostRow["status"] = "draft"): Post => ({
  created_by_kind: "person",
  created_by_id: ME,
  status,
  published_at: status === "draft" ? null : "2026-01-01T00:00:00.000Z",
});
const theirs = (status: PostRow["status"] = "draft"): Post => ({ ...mine(status), created_by_id: "OTHER" });
const byKey = (status: PostRow["status"] = "draft"): Post => ({
  ...mine(status),
  created_by_kind: "key",
  created_by_id: ME,
});

/** The permission a rule refuses with (403 FORBIDDEN, details.missing), or null when it passes. */
function missing(rule: () => void): string | null {
  try {
    rule();
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    const problem = error as ApiError;
    expect(problem.status).toBe(403);
    expect(problem.code).toBe("FORBIDDEN");
    return (problem.details as { missing: string }).missing;
  }
}

describe("creating", () => {
  it.each([
    ["contributor", CONTRIBUTOR, undefined, null],
    ["contributor", CONTRIBUTOR, "draft", null],
    ["contributor", CONTRIBUTOR, "published", "posts:publish"],
    ["contributor", CONTRIBUTOR, "scheduled", "posts:publish"],
    ["contributor", CONTRIBUTOR, "archived", "posts:publish"],
    ["author", AUTHOR, "published", null],
    ["editor", EDITOR, "scheduled", null],
    ["org member", MEMBER, undefined, "posts:write_own"],
    ["org member", MEMBER, "published", "posts:write_own"],
  ] as const)("%s, status %s: missing %s", (_, permissions, status, refused) => {
    expect(missing(() => checkCreate(person([...permissions]), status))).toBe(refused);
  });

  it("a key passes whatever the status (its scopes were checked)", () => {
    expect(missing(() => checkCreate(KEY, "published"))).toBeNull();
  });
});

describe("changing, deleting, restoring an existing post", () => {
  it.each([
    ["contributor", CONTRIBUTOR, "own draft", mine(), null],
    ["contributor", CONTRIBUTOR, "own published post", mine("published"), "posts:publish"],
    ["contributor", CONTRIBUTOR, "own scheduled post", mine("scheduled"), "posts:publish"],
    ["contributor", CONTRIBUTOR, "own archived post", mine("archived"), "posts:publish"],
    ["contributor", CONTRIBUTOR, "another's draft", theirs(), "posts:edit_any"],
    ["contributor", CONTRIBUTOR, "a key's draft", byKey(), "posts:edit_any"],
    ["author", AUTHOR, "own draft", mine(), null],
    ["author", AUTHOR, "own published post", mine("published"), null],
    ["author", AUTHOR, "another's draft", theirs(), "posts:edit_any"],
    ["author", AUTHOR, "another's published post", theirs("published"), "posts:edit_any"],
    ["editor", EDITOR, "another's draft", theirs(), null],
    ["editor", EDITOR, "another's published post", theirs("published"), null],
    ["editor", EDITOR, "a key's published post", byKey("published"), null],
    ["org member", MEMBER, "own draft", mine(), "posts:write_own"],
    ["edit_any without publish", [...CONTRIBUTOR, "posts:edit_any"], "another's draft", theirs(), null],
    [
      "edit_any without publish",
      [...CONTRIBUTOR, "posts:edit_any"],
      "another's published post",
      theirs("published"),
      "posts:publish",
    ],
  ] as const)("%s, %s: missing %s", (_, permissions, _what, post, refused) => {
    expect(missing(() => checkChange(person([...permissions]), post, NOW))).toBe(refused);
  });

  it("a scheduled post whose time has come is published: not a draft", () => {
    const due = { ...mine("scheduled"), published_at: "2026-05-01T00:00:00.000Z" };
    expect(missing(() => checkChange(person(CONTRIBUTOR), due, NOW))).toBe("posts:publish");
  });

  it("a key changes any post (its scopes were checked)", () => {
    for (const post of [mine(), theirs("published"), byKey("archived")])
      expect(missing(() => checkChange(KEY, post, NOW))).toBeNull();
  });

  it("a PATCH to any status but draft needs posts:publish", () => {
    expect(missing(() => checkStatusChange(person(CONTRIBUTOR), "published"))).toBe("posts:publish");
    expect(missing(() => checkStatusChange(person(CONTRIBUTOR), "archived"))).toBe("posts:publish");
    expect(missing(() => checkStatusChange(person(CONTRIBUTOR), "draft"))).toBeNull();
    expect(missing(() => checkStatusChange(person(CONTRIBUTOR), undefined))).toBeNull();
    expect(missing(() => checkStatusChange(person(AUTHOR), "scheduled"))).toBeNull();
    expect(missing(() => checkStatusChange(KEY, "published"))).toBeNull();
  });
});

describe("unpublishing and previews", () => {
  it.each([
    ["contributor", CONTRIBUTOR, mine("published"), "posts:publish"],
    ["author", AUTHOR, mine("published"), null],
    ["author", AUTHOR, theirs("published"), "posts:edit_any"],
    ["editor", EDITOR, theirs("published"), null],
  ] as const)("unpublish: %s → missing %s", (_, permissions, post, refused) => {
    expect(missing(() => checkUnpublish(person([...permissions]), post))).toBe(refused);
  });

  it.each([
    ["contributor", CONTRIBUTOR, mine(), null],
    ["contributor", CONTRIBUTOR, theirs(), "posts:edit_any"],
    ["author", AUTHOR, theirs("published"), "posts:edit_any"],
    ["editor", EDITOR, theirs(), null],
    ["org member", MEMBER, mine(), "posts:write_own"],
  ] as const)("preview: %s → missing %s", (_, permissions, post, refused) => {
    expect(missing(() => checkPreview(person([...permissions]), post))).toBe(refused);
  });

  it("a key unpublishes and previews any post", () => {
    expect(missing(() => checkUnpublish(KEY, theirs("published")))).toBeNull();
    expect(missing(() => checkPreview(KEY, theirs()))).toBeNull();
  });
});

describe("authors and who acts", () => {
  it("a person bylines with their own persona; another needs posts:edit_any", () => {
    expect(missing(() => checkAuthorChoice(person(AUTHOR), { slug: "ada", user_id: ME }))).toBeNull();
    expect(missing(() => checkAuthorChoice(person(AUTHOR), { slug: "bob", user_id: "OTHER" }))).toBe(
      "posts:edit_any",
    );
    expect(missing(() => checkAuthorChoice(person(EDITOR), { slug: "bob", user_id: "OTHER" }))).toBeNull();
    expect(missing(() => checkAuthorChoice(KEY, { slug: "bob", user_id: "OTHER" }))).toBeNull();
  });

  it("own means created by this person: never a key's post, even a key the person created", () => {
    expect(isOwnPost(person(EDITOR), mine())).toBe(true);
    expect(isOwnPost(person(EDITOR), byKey())).toBe(false);
    expect(isOwnPost(person(EDITOR), theirs())).toBe(false);
    expect(isOwnPost(KEY, byKey())).toBe(false);
  });

  it("a key is recorded by id and name, a person by user id and display name", () => {
    expect(actorStamp(KEY)).toEqual({ kind: "key", id: "K1", name: "CI key" });
    expect(actorStamp(person(AUTHOR))).toEqual({ kind: "person", id: ME, name: "Ada" });
  });
});
