/**
 * D1 read replication (docs/capacity.md, step 2). Locally D1 has one copy, so reading one's own write
 * holds whatever the code does: these tests check the plumbing instead. Each `/v1` request opens one D1
 * session (recorded by the counting bindings of test/support/storage-hops.ts): reads at the nearest
 * replica or at the client's bookmark, writes at the primary; every answer carries the session's bookmark;
 * a malformed bookmark is 400; and a read with a bookmark is never answered from a cache older than the
 * write it names, though the same read without one may be (for the documented 30 s).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { keyContexts } from "../../src/content/keys/key-cache";
import { hashApiKey } from "../../src/content/keys/key-hash";
import type { KeyLookupRow } from "../../src/content/keys/store";
import { contentGroupOf, contentGroups } from "../support/content-groups";
import {
  call,
  contentRequest,
  createPost,
  ORIGIN,
  paragraph,
  type RequestOptions,
  tenant,
} from "../support/content-helpers";
import { countingContentEnv, fetchThrough } from "../support/storage-hops";

/** D1's bookmark, and the API's: the site's group, a dot, D1's bookmark of that group's database. */
const D1_BOOKMARK = "[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}";
const BOOKMARK = new RegExp(`^g\\d{3}\\.${D1_BOOKMARK}$`);

async function counted(method: string, path: string, options: RequestOptions = {}) {
  const { env: counting, hops } = countingContentEnv();
  const res = await fetchThrough(counting, contentRequest(method, path, options));
  return { res, hops, text: await res.text() };
}

const titles = (text: string) =>
  (JSON.parse(text) as { items: { title: string }[] }).items.map((i) => i.title);

describe("D1 sessions on content's /v1 requests", () => {
  it("a read opens its session at the nearest replica, a write at the primary; both answer their bookmark", async () => {
    const t = await tenant();
    const read = await counted("GET", "/v1/posts", { key: t.pk, origin: ORIGIN, ip: "198.51.100.61" });
    expect(read.res.status).toBe(200);
    expect(read.hops.sessions).toEqual(["first-unconstrained"]);
    expect(read.res.headers.get("x-bookmark")).toMatch(BOOKMARK);
    const write = await counted("POST", "/v1/posts", { key: t.ck, body: { title: "Replicated" } });
    expect(write.res.status).toBe(201);
    expect(write.hops.sessions).toEqual(["first-primary"]);
    expect(write.res.headers.get("x-bookmark")).toMatch(BOOKMARK);
  });

  it("the client's bookmark reaches withSession as its group's database answered it; a write ignores it (the primary is newer)", async () => {
    const t = await tenant();
    const written = await call("POST", "/v1/posts", {
      key: t.ck,
      body: { title: "Mine", status: "published" },
    });
    const bookmark = written.headers.get("x-bookmark")!;
    expect(bookmark).toMatch(BOOKMARK);
    const [group, d1] = bookmark.split(".");
    expect(group).toBe(await contentGroupOf(t.site.id));
    const read = await counted("GET", "/v1/posts", { key: t.ck, headers: { "x-bookmark": bookmark } });
    expect(read.res.status).toBe(200);
    expect(read.hops.sessions).toEqual([d1]);
    expect(titles(read.text)).toContain("Mine");
    const write = await counted("POST", "/v1/posts", {
      key: t.ck,
      body: { title: "Later" },
      headers: { "x-bookmark": bookmark },
    });
    expect(write.res.status).toBe(201);
    expect(write.hops.sessions).toEqual(["first-primary"]);
  });

  it("a bookmark of another group (the site moved since it was answered) or of none starts the read at the primary", async () => {
    const t = await tenant();
    const written = await call("POST", "/v1/posts", {
      key: t.ck,
      body: { title: "Moved", status: "published" },
    });
    const [group, d1] = written.headers.get("x-bookmark")!.split(".");
    const other = [...contentGroups.keys()].find((g) => g !== group)!;
    for (const sent of [`${other}.${d1}`, d1!]) {
      const read = await counted("GET", "/v1/posts", { key: t.ck, headers: { "x-bookmark": sent } });
      expect(read.res.status, sent).toBe(200);
      // Never D1's bookmark of one database handed to another's session: the primary holds every write.
      expect(read.hops.sessions, sent).toEqual(["first-primary"]);
      expect(titles(read.text)).toContain("Moved");
      expect(read.res.headers.get("x-bookmark")).toMatch(new RegExp(`^${group}\\.`));
    }
  });

  it("a malformed bookmark is 400 problem+json, before any key or query; the same status for every malformed shape", async () => {
    const t = await tenant();
    const good = "0000007b-0000b26e-00001538-0c3e87bb37b3db5cc52eedb93cd3b96b";
    for (const bad of [
      "",
      "x",
      good.toUpperCase(),
      `${good}0`,
      good.slice(1),
      good.replace("-", "_"),
      `${good},${good}`,
      `g1.${good}`,
      `G000.${good}`,
      `g000${good}`,
      `g000.`,
      `.${good}`,
    ]) {
      const res = await counted("GET", "/v1/posts", { key: t.ck, headers: { "x-bookmark": bad } });
      expect(res.res.status, JSON.stringify(bad)).toBe(400);
      expect(res.res.headers.get("content-type")).toBe("application/problem+json");
      expect(JSON.parse(res.text).code).toBe("BAD_REQUEST");
      expect(res.hops.storage(), JSON.stringify(bad)).toBe(0);
    }
    for (const wellFormed of [good, `g000.${good}`]) {
      const res = await counted("GET", "/v1/posts", { key: t.ck, headers: { "x-bookmark": wellFormed } });
      expect(res.res.status).toBe(200);
    }
  });

  it("a read with the bookmark of a write is never answered from a cache older than that write", async () => {
    const t = await tenant();
    await createPost(t.ck, { title: "Before", status: "published", blocks_json: paragraph("A") });
    const reader = { key: t.pk, origin: ORIGIN, ip: "198.51.100.62" };
    const before = await call("GET", "/v1/posts", reader);
    expect(titles(await before.text())).toEqual(["Before"]);
    const hash = await hashApiKey((env as unknown as { API_KEY_PEPPER: string }).API_KEY_PEPPER, t.pk);
    const stale = keyContexts.get(hash, Date.now()) as KeyLookupRow;
    expect(stale).not.toBeNull();
    const written = await call("POST", "/v1/posts", {
      key: t.ck,
      body: { title: "After", status: "published", blocks_json: paragraph("B") },
    });
    const bookmark = written.headers.get("x-bookmark")!;
    // Another isolate still holds the key as it read it before the write (its content version included).
    keyContexts.set(hash, stale, Date.now());
    const without = await call("GET", "/v1/posts", reader);
    expect(titles(await without.text())).toEqual(["Before"]);
    keyContexts.set(hash, stale, Date.now());
    const withBookmark = await call("GET", "/v1/posts", { ...reader, headers: { "x-bookmark": bookmark } });
    expect(withBookmark.status).toBe(200);
    expect(titles(await withBookmark.text())).toEqual(["After", "Before"]);
  });
});
