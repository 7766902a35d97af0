/**
 * Issue 34, "done when": through the gateway and the real Workers, a site's owner invites an editor, an
 * author and a contributor (identity's site invitations); each signs in (accepting the invitation), sets
 * the display name their posts are bylined with, and uses the dashboard's content routes
 * (`/api/v1/sites/{site_id}/…`) as themselves: one row per (role, action), what the role allows answering
 * as the `/v1` twin does, what it does not refused with 403 FORBIDDEN naming the missing permission.
 * Another site's post is 404; a removed editor's next write is refused.
 */
import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { freshIp } from "../support/identity-helpers";
import {
  BASE,
  type CallResult,
  call,
  createOrg,
  createSite,
  joinSiteByInvitation,
  type Session,
  verifiedUser,
} from "../support/platform";

type Role = "owner" | "editor" | "author" | "contributor";
const ROLES: Role[] = ["owner", "editor", "author", "contributor"];

interface Person {
  token: string;
  userId: string;
}

interface World {
  site: { id: string };
  people: Record<Role, Person>;
  /** A secret key of the owner: posts no person created ("another's post"). */
  key: string;
  /** A post of another organization's site. */
  foreign: { siteId: string; postId: string };
}

/** A new account joining the site as `role` through the invitation (accepting it signs them in). */
async function invite(owner: Session, siteId: string, role: Exclude<Role, "owner">): Promise<Person> {
  const { session } = await joinSiteByInvitation(owner.access_token, siteId, role, {
    "cf-connecting-ip": freshIp(),
  });
  return { token: session.access_token, userId: session.user.id };
}

/** The byline of the person's posts (identity's account display name). */
async function named(person: Person, name: string) {
  const res = await call("PATCH", "/api/v1/auth/me", { token: person.token, body: { display_name: name } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

const site = (w: Pick<World, "site">) => `/api/v1/sites/${w.site.id}`;

async function draftOf(w: Pick<World, "site">, person: Person, title: string): Promise<string> {
  const made = await call<{ id: string }>("POST", `${site(w)}/posts`, {
    token: person.token,
    body: { title, status: "draft" },
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return made.body.id;
}

async function keyPost(w: World, title: string): Promise<string> {
  const made = await call<{ id: string }>("POST", "/v1/posts", { token: w.key, body: { title } });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return made.body.id;
}

/** A 1x1 PNG through the gateway's multipart upload. */
async function upload(w: World, person: Person): Promise<CallResult> {
  const png = Uint8Array.from(
    atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="),
    (ch) => ch.charCodeAt(0),
  );
  const form = new FormData();
  form.append("file", new File([png], "dot.png", { type: "image/png" }));
  const gateway = (exports as unknown as { default: Fetcher }).default;
  const res = await gateway.fetch(`${BASE}${site(w)}/media`, {
    method: "POST",
    headers: { authorization: `Bearer ${person.token}`, "cf-connecting-ip": freshIp() },
    body: form,
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

interface Row {
  action: string;
  run: (w: World, person: Person) => Promise<CallResult>;
  /** What each role gets: an answer's status, or the permission a 403 FORBIDDEN names. */
  expect: Record<Role, number | string>;
  /**
   * Decided by the posts service's per-post rules (own posts, drafts, publishing: issue 34 part 2,
   * src/content/posts/roles.ts), not by the route's permission.
   */
  postRules?: true;
}

const ALL_OK = (status: number): Record<Role, number> => ({
  owner: status,
  editor: status,
  author: status,
  contributor: status,
});

const ROWS: Row[] = [
  {
    action: "list the site's posts, drafts included",
    run: (w, p) => call("GET", `${site(w)}/posts`, { token: p.token }),
    expect: ALL_OK(200),
  },
  {
    action: "create a draft",
    run: (w, p) =>
      call("POST", `${site(w)}/posts`, { token: p.token, body: { title: "A draft", status: "draft" } }),
    expect: ALL_OK(201),
  },
  {
    action: "publish a new post",
    run: (w, p) =>
      call("POST", `${site(w)}/posts`, { token: p.token, body: { title: "Live", status: "published" } }),
    expect: { owner: 201, editor: 201, author: 201, contributor: "posts:publish" },
    postRules: true,
  },
  {
    action: "edit its own draft",
    run: async (w, p) => {
      const id = await draftOf(w, p, "Mine");
      return call("PATCH", `${site(w)}/posts/${id}`, { token: p.token, body: { title: "Mine, edited" } });
    },
    expect: ALL_OK(200),
  },
  {
    action: "edit another's post",
    run: async (w, p) => {
      const id = await keyPost(w, "Theirs");
      return call("PATCH", `${site(w)}/posts/${id}`, { token: p.token, body: { title: "Theirs, edited" } });
    },
    expect: { owner: 200, editor: 200, author: "posts:edit_any", contributor: "posts:edit_any" },
    postRules: true,
  },
  {
    action: "delete its own draft",
    run: async (w, p) => {
      const id = await draftOf(w, p, "Mine to delete");
      return call("DELETE", `${site(w)}/posts/${id}`, { token: p.token });
    },
    expect: ALL_OK(204),
  },
  {
    action: "delete another's post",
    run: async (w, p) => {
      const id = await keyPost(w, "Theirs to delete");
      return call("DELETE", `${site(w)}/posts/${id}`, { token: p.token });
    },
    expect: { owner: 204, editor: 204, author: "posts:edit_any", contributor: "posts:edit_any" },
    postRules: true,
  },
  {
    action: "upload media",
    run: upload,
    expect: { owner: 202, editor: 202, author: 202, contributor: "media:upload" },
  },
  {
    action: "manage authors (create an author profile)",
    run: (w, p) =>
      call("POST", `${site(w)}/authors`, {
        token: p.token,
        body: { name: `Guest ${Math.random().toString(36).slice(2, 8)}` },
      }),
    expect: { owner: 201, editor: 201, author: "authors:manage", contributor: "authors:manage" },
  },
  {
    action: "read the categories and tags",
    run: async (w, p) => {
      const categories = await call("GET", `${site(w)}/categories`, { token: p.token });
      expect(categories.status).toBe(200);
      return call("GET", `${site(w)}/tags`, { token: p.token });
    },
    expect: ALL_OK(200),
  },
  {
    action: "read leads",
    run: (w, p) => call("GET", `${site(w)}/leads`, { token: p.token }),
    expect: { owner: 200, editor: "leads:read", author: "leads:read", contributor: "leads:read" },
  },
  {
    action: "read another site's post through this site (404, as a missing one)",
    run: (w, p) => call("GET", `${site(w)}/posts/${w.foreign.postId}`, { token: p.token }),
    expect: ALL_OK(404),
  },
  {
    action: "list another organization's site (404, as a missing one)",
    run: (w, p) => call("GET", `/api/v1/sites/${w.foreign.siteId}/posts`, { token: p.token }),
    expect: ALL_OK(404),
  },
];

let world: World;
let ownerSession: Session;

beforeAll(async () => {
  ownerSession = await verifiedUser();
  const org = await createOrg(ownerSession.access_token, "Newsroom");
  const made = await createSite(ownerSession.access_token, org.id);
  const token = ownerSession.access_token;
  // The forms app, so that leads are readable at all (a site without it answers 404 to leads).
  const forms = await call("PUT", `/api/v1/sites/${made.id}/applets/forms`, {
    token,
    body: { enabled: true },
  });
  expect(forms.status).toBe(200);
  const key = await call<{ key: string }>("POST", `/api/v1/sites/${made.id}/api-keys`, {
    token,
    body: { name: "newsroom import", kind: "secret", scopes: ["posts:write"] },
  });
  expect(key.status).toBe(201);
  const stranger = await verifiedUser();
  const strangerOrg = await createOrg(stranger.access_token, "Elsewhere");
  const foreignSite = await createSite(stranger.access_token, strangerOrg.id);
  const foreignKey = await call<{ key: string }>("POST", `/api/v1/sites/${foreignSite.id}/api-keys`, {
    token: stranger.access_token,
    body: { name: "elsewhere", kind: "secret", scopes: ["posts:write"] },
  });
  const foreignPost = await call<{ id: string }>("POST", "/v1/posts", {
    token: foreignKey.body.key,
    body: { title: "Not yours", status: "published" },
  });
  expect(foreignPost.status).toBe(201);
  const owner = { token, userId: ownerSession.user.id };
  const people: Record<Role, Person> = {
    owner,
    editor: await invite(ownerSession, made.id, "editor"),
    author: await invite(ownerSession, made.id, "author"),
    contributor: await invite(ownerSession, made.id, "contributor"),
  };
  for (const role of ROLES) await named(people[role], `The ${role}`);
  world = {
    site: made,
    people,
    key: key.body.key,
    foreign: { siteId: foreignSite.id, postId: foreignPost.body.id },
  };
}, 120_000);

describe("the site roles on the dashboard's content routes (issue 34)", () => {
  for (const row of ROWS) {
    for (const role of ROLES) {
      const wanted = row.expect[role];
      const name = `${role}: ${row.action} -> ${typeof wanted === "number" ? wanted : `403 (${wanted})`}`;
      it(name, async () => {
        const res = await row.run(world, world.people[role]);
        if (typeof wanted === "number") {
          expect(res.status, JSON.stringify(res.body)).toBe(wanted);
        } else {
          expect(res.status, JSON.stringify(res.body)).toBe(403);
          expect(res.body).toMatchObject({ code: "FORBIDDEN", details: { missing: wanted } });
        }
      });
    }
  }

  it("a person's post is bylined with their display name", async () => {
    const id = await draftOf(world, world.people.author, "Bylined");
    const source = await call<{ author_name?: string; author?: { name?: string } }>(
      "GET",
      `${site(world)}/posts/${id}`,
      { token: world.people.author.token },
    );
    expect(source.status).toBe(200);
    expect(JSON.stringify(source.body)).toContain("The author");
  });
});

describe("a person's quotas and idempotency are the key's, per (person, site)", () => {
  it("writes take the write quota with its headers; one Idempotency-Key replays for its person only", async () => {
    const idem = `draft-${Math.random().toString(36).slice(2, 10)}`;
    const send = (person: Person) =>
      call<{ id: string }>("POST", `${site(world)}/posts`, {
        token: person.token,
        body: { title: "Once", status: "draft" },
        headers: { "idempotency-key": idem },
      });
    const first = await send(world.people.editor);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.headers.get("ratelimit-policy")).toBe('"writes";q=60;w=60');
    expect(first.headers.get("ratelimit")).toMatch(/^"writes";r=\d+;t=\d+$/);
    const again = await send(world.people.editor);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotency-replayed")).toBe("true");
    expect(again.body.id).toBe(first.body.id);
    // The same key from another person of the site is theirs: a new post.
    const other = await send(world.people.author);
    expect(other.status, JSON.stringify(other.body)).toBe(201);
    expect(other.headers.get("idempotency-replayed")).toBeNull();
    expect(other.body.id).not.toBe(first.body.id);
    const read = await call("GET", `${site(world)}/posts`, { token: world.people.author.token });
    expect(read.headers.get("ratelimit-policy")).toBe('"reads";q=600;w=60');
  });
});

describe("a removed editor", () => {
  it("is refused the next write at once (the gateway may still carry the membership for 30 s)", async () => {
    const owner = await verifiedUser();
    const org = await createOrg(owner.access_token, "Short stint");
    const made = await createSite(owner.access_token, org.id);
    const editor = await invite(owner, made.id, "editor");
    await named(editor, "Soon gone");
    const w = { site: made };
    const id = await draftOf(w, editor, "Before");
    const removed = await call("DELETE", `/api/v1/auth/sites/${made.id}/members/${editor.userId}`, {
      token: owner.access_token,
    });
    expect(removed.status, JSON.stringify(removed.body)).toBe(204);
    // The next write, with the same access token (memberships possibly cached at the edge): the missing site's 404.
    const write = await call("PATCH", `${site(w)}/posts/${id}`, {
      token: editor.token,
      body: { title: "After" },
    });
    expect(write.status, JSON.stringify(write.body)).toBe(404);
    const create = await call("POST", `${site(w)}/posts`, { token: editor.token, body: { title: "After" } });
    expect(create.status, JSON.stringify(create.body)).toBe(404);
  });
});

describe("a demoted author", () => {
  it("is refused the next write at once with the permission the new role lacks; its preview link ends", async () => {
    const owner = await verifiedUser();
    const org = await createOrg(owner.access_token, "Demotions");
    const made = await createSite(owner.access_token, org.id);
    const author = await invite(owner, made.id, "author");
    await named(author, "Soon a contributor");
    const w = { site: made };
    const id = await draftOf(w, author, "Under review");
    const link = await call<{ url: string }>("POST", `${site(w)}/posts/${id}/preview`, {
      token: author.token,
      body: { expires_in: 600 },
    });
    expect(link.status, JSON.stringify(link.body)).toBe(200);
    const preview = new URL(link.body.url).pathname;
    expect((await call("GET", preview)).status).toBe(200);
    const demoted = await call("PATCH", `/api/v1/auth/sites/${made.id}/members/${author.userId}`, {
      token: owner.access_token,
      body: { role: "site_contributor" },
    });
    expect(demoted.status, JSON.stringify(demoted.body)).toBe(200);
    // The same access token at once (its memberships possibly cached at the edge): identity's word decides.
    const publish = await call("POST", `${site(w)}/posts`, {
      token: author.token,
      body: { title: "Live", status: "published" },
    });
    expect(publish.status, JSON.stringify(publish.body)).toBe(403);
    expect(publish.body).toMatchObject({ code: "FORBIDDEN", details: { missing: "posts:publish" } });
    expect((await call("GET", preview)).status).toBe(404);
  });
});
