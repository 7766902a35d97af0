import { describe, expect, it } from "vitest";
import {
  BASE,
  call,
  content,
  countRows,
  createKey,
  createPost,
  makeSite,
  paragraph,
  seedMedia,
} from "../support/content-helpers";

const BULK_SCOPES = ["posts:write", "posts:read", "import", "export"];

interface LineResult {
  line: number;
  status: string;
  id?: string;
  error?: { code: string };
  warnings?: { field: string; code: string }[];
}
interface ImportResult {
  summary: { total: number; created: number; duplicate: number; failed: number };
  lines: LineResult[];
}

async function bulkTenant(name = "Ana") {
  const site = await makeSite();
  const key = await createKey(site, { scopes: BULK_SCOPES, name });
  return { site, ck: key.key };
}

async function exportText(key: string): Promise<string> {
  const res = await call("GET", "/v1/export?resource=posts", { key });
  expect(res.status).toBe(200);
  return res.text();
}

const lines = (text: string) =>
  text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);

async function importText(key: string, body: string): Promise<ImportResult> {
  const res = await content.fetch(
    new Request(`${BASE}/v1/import`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/x-ndjson" },
      body,
    }),
  );
  expect(res.status).toBe(200);
  return (await res.json()) as ImportResult;
}

async function seedCollection(ck: string, siteId: string) {
  const cover = await seedMedia(siteId);
  await createPost(ck, { title: "Draft with derived slug", blocks_json: paragraph("d") });
  await createPost(ck, {
    title: "Live",
    status: "published",
    published_at: "2025-01-02T03:04:05.000Z",
    tag_slugs: ["t"],
    category_slugs: ["c"],
    featured_image_id: cover,
  });
  await createPost(ck, { title: "Em português", language: "pt-BR", summary: "s", status: "published" });
  await createPost(ck, {
    title: "Later",
    status: "scheduled",
    published_at: new Date(Date.now() + 86_400_000).toISOString(),
  });
  return cover;
}

describe("export -> import (backup and restore)", () => {
  it("restoring a site's own export into it answers every unchanged line as a duplicate of its post", async () => {
    const t = await bulkTenant();
    await seedCollection(t.ck, t.site.id);
    const backup = await exportText(t.ck);
    const before = await countRows("posts", t.site.id);
    const restored = await importText(t.ck, backup);
    expect(restored.summary).toEqual({ total: 4, created: 0, duplicate: 4, failed: 0 });
    expect(await countRows("posts", t.site.id)).toBe(before);
    const ids = (await (
      await call("GET", "/v1/posts?status=draft,scheduled,published", { key: t.ck })
    ).json()) as {
      items: { id: string }[];
    };
    expect(restored.lines.map((l) => l.id).sort()).toEqual(ids.items.map((i) => i.id).sort());
    expect(restored.lines.every((l) => !l.warnings)).toBe(true);
    // Again: still duplicates (idempotent), and the export is unchanged.
    expect((await importText(t.ck, backup)).summary.duplicate).toBe(4);
    expect(await exportText(t.ck)).toBe(backup);
  });

  it("a changed line whose slug is taken is not overwritten: it fails alone with 409 SLUG_TAKEN", async () => {
    const t = await bulkTenant();
    await createPost(t.ck, { title: "Keep", slug: "keep" });
    const [line] = lines(await exportText(t.ck));
    const result = await importText(t.ck, `${JSON.stringify({ ...line, title: "Changed" })}\n`);
    expect(result.lines[0]).toMatchObject({ status: "failed", error: { code: "SLUG_TAKEN" } });
  });

  it("references the importing site cannot resolve are dropped with a warning on their line", async () => {
    const t = await bulkTenant();
    const other = await makeSite();
    const theirs = await seedMedia(other.id);
    const result = await importText(
      t.ck,
      [
        { title: "Cover elsewhere", featured_image_id: theirs },
        { title: "Odd type", post_type: "recipe" },
        { title: "Ghost author", author_slug: "nobody" },
      ]
        .map((l) => JSON.stringify(l))
        .join("\n"),
    );
    expect(result.summary).toEqual({ total: 3, created: 3, duplicate: 0, failed: 0 });
    expect(result.lines.map((l) => l.warnings)).toEqual([
      [expect.objectContaining({ field: "featured_image_id", code: "UNKNOWN_MEDIA" })],
      [expect.objectContaining({ field: "post_type", code: "UNKNOWN_POST_TYPE" })],
      [expect.objectContaining({ field: "author_slug", code: "UNKNOWN_AUTHOR" })],
    ]);
    const exported = lines(await exportText(t.ck));
    expect(exported.map((l) => [l.featured_image_id, l.post_type, l.author_slug])).toEqual([
      [null, "post", "ana"],
      [null, "post", "ana"],
      [null, "post", "ana"],
    ]);
  });

  it("export -> import into another site -> export is identical apart from dropped references", async () => {
    const a = await bulkTenant();
    await seedCollection(a.ck, a.site.id);
    const exportA = await exportText(a.ck);
    const b = await bulkTenant();
    const result = await importText(b.ck, exportA);
    expect(result.summary).toEqual({ total: 4, created: 4, duplicate: 0, failed: 0 });
    const exportB = await exportText(b.ck);
    // The only difference: A's cover is not a media asset of B, so that line dropped it (with a warning).
    const expected = lines(exportA).map((line, i) =>
      result.lines[i]!.warnings?.some((w) => w.field === "featured_image_id")
        ? { ...line, featured_image_id: null }
        : line,
    );
    expect(result.lines.flatMap((l) => l.warnings ?? []).map((w) => w.field)).toEqual(["featured_image_id"]);
    expect(lines(exportB)).toEqual(expected);
  });
});
