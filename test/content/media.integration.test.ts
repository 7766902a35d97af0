import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { contentDbOf } from "../support/content-groups";
import {
  BASE,
  call,
  content,
  createKey,
  makeSite,
  ORIGIN,
  problem,
  testEnv,
} from "../support/content-helpers";

const PNG_1X1 = Uint8Array.from(
  atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="),
  (ch) => ch.charCodeAt(0),
);
const MiB = 1024 * 1024;

interface Asset {
  id: string;
  status: string;
  url: string;
  content_type: string;
  size_bytes: number;
  folder_id: string | null;
  tag_ids: string[];
  width: number | null;
  height: number | null;
  variants: { name: string; url: string; width: number | null; height: number | null }[];
}

async function mediaTenant() {
  const site = await makeSite();
  const ck = await createKey(site, { scopes: ["media:write", "media:read"] });
  const pk = await createKey(site, { kind: "public", scopes: ["media:read"] });
  return { site, ck: ck.key, pk: pk.key };
}

function pngOfSize(size: number): Uint8Array {
  const out = new Uint8Array(size);
  out.set(PNG_1X1);
  return out;
}

function upload(
  key: string,
  file: Uint8Array | string,
  fields: Record<string, string | string[]> = {},
  name = "a.png",
) {
  const form = new FormData();
  form.append("file", new File([file], name));
  for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) form.append(k, one);
  return content.fetch(
    new Request(`${BASE}/v1/media`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}` },
      body: form,
    }),
  );
}

describe("POST /v1/media", () => {
  it("stores the file on the key's site and answers 202 processing; variants follow asynchronously", async () => {
    const t = await mediaTenant();
    const res = await upload(t.ck, PNG_1X1);
    expect(res.status).toBe(202);
    const a = (await res.json()) as Asset;
    expect(a).toMatchObject({ status: "processing", content_type: "image/png", size_bytes: PNG_1X1.length });
    expect(a.url).toBe(`${testEnv.MEDIA_PUBLIC_BASE}/sites/${t.site.id}/${a.id}.png`);
    const served = await call("GET", `/media/sites/${t.site.id}/${a.id}.png`);
    expect(served.status).toBe(200);
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(PNG_1X1);
    let current = a;
    for (let i = 0; i < 50 && current.status === "processing"; i++) {
      await new Promise((r) => setTimeout(r, 100));
      current = (await (await call("GET", `/v1/media/${a.id}`, { key: t.ck })).json()) as Asset;
    }
    expect(current.status).toBe("ready");
    // 1x1: no variant width is smaller, so the original is the only one (variants: media-variants tests).
    expect(current).toMatchObject({ width: 1, height: 1 });
    expect(current.variants).toEqual([
      {
        name: "original",
        url: a.url,
        width: 1,
        height: 1,
        content_type: "image/png",
        size_bytes: PNG_1X1.length,
      },
    ]);
  });

  it("8 MiB is accepted; one byte more is 413", async () => {
    const t = await mediaTenant();
    expect((await upload(t.ck, pngOfSize(8 * MiB))).status).toBe(202);
    const res = await upload(t.ck, pngOfSize(8 * MiB + 1));
    expect(res.status).toBe(413);
  });

  it("a file that is not a supported image is 415; a hostile SVG is 415", async () => {
    const t = await mediaTenant();
    const text = await upload(t.ck, "hello, not an image", {}, "a.png");
    expect(text.status).toBe(415);
    expect((await problem(text)).code).toBe("UNSUPPORTED_MEDIA_TYPE");
    const svg = await upload(
      t.ck,
      '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
      {},
      "x.svg",
    );
    expect(svg.status).toBe(415);
    const notMultipart = await call("POST", "/v1/media", { key: t.ck, body: { file: "x" } });
    expect(notMultipart.status).toBe(415);
  });

  it("without a file field, or with a bad folder_id, is 400", async () => {
    const t = await mediaTenant();
    const form = new FormData();
    form.append("other", "x");
    const res = await content.fetch(
      new Request(`${BASE}/v1/media`, {
        method: "POST",
        headers: { authorization: `Bearer ${t.ck}` },
        body: form,
      }),
    );
    expect(res.status).toBe(400);
    expect((await upload(t.ck, PNG_1X1, { folder_id: "nope" })).status).toBe(400);
  });

  it("needs media:write and a ck_ key", async () => {
    const t = await mediaTenant();
    const reader = await createKey(t.site, { scopes: ["media:read"] });
    expect((await upload(reader.key, PNG_1X1)).status).toBe(403);
    const form = new FormData();
    form.append("file", new File([PNG_1X1], "a.png"));
    const pk = await content.fetch(
      new Request(`${BASE}/v1/media`, {
        method: "POST",
        headers: { authorization: `Bearer ${t.pk}`, origin: ORIGIN },
        body: form,
      }),
    );
    expect(pk.status).toBe(403);
  });
});

describe("GET /v1/media", () => {
  it("lists newest first, filters by folder_id and tag_id, limit 1..500", async () => {
    const t = await mediaTenant();
    const folder = newId();
    const tag = newId();
    const a = (await (await upload(t.ck, PNG_1X1, { folder_id: folder })).json()) as Asset;
    const b = (await (await upload(t.ck, PNG_1X1, { tag_id: [tag, newId()] })).json()) as Asset;
    const c = (await (await upload(t.ck, PNG_1X1)).json()) as Asset;
    const list = async (q: string) =>
      (
        (await (await call("GET", `/v1/media${q}`, { key: t.ck })).json()) as {
          items: Asset[];
        }
      ).items;
    expect((await list("")).map((i) => i.id)).toEqual([c.id, b.id, a.id]);
    expect((await list(`?folder_id=${folder}`)).map((i) => i.id)).toEqual([a.id]);
    expect((await list(`?tag_id=${tag}`)).map((i) => i.id)).toEqual([b.id]);
    expect((await list("?limit=1")).map((i) => i.id)).toEqual([c.id]);
    expect((await list("?limit=500")).length).toBe(3);
    for (const bad of ["0", "501", "x"]) {
      const res = await call("GET", `/v1/media?limit=${bad}`, { key: t.ck });
      expect(res.status, bad).toBe(400);
    }
    expect((await call("GET", "/v1/media?tag_id=bad", { key: t.ck })).status).toBe(400);
  });
});

describe("GET and DELETE /v1/media/{id}", () => {
  it("another site's id is 404 exactly like a missing one, for reads and deletes", async () => {
    const a = await mediaTenant();
    const b = await mediaTenant();
    const theirs = (await (await upload(b.ck, PNG_1X1)).json()) as Asset;
    const missing = await call("GET", `/v1/media/${newId()}`, { key: a.ck });
    const missingBody = await missing.text();
    expect(missing.status).toBe(404);
    const get = await call("GET", `/v1/media/${theirs.id}`, { key: a.ck });
    expect(get.status).toBe(404);
    expect(await get.text()).toBe(missingBody);
    const del = await call("DELETE", `/v1/media/${theirs.id}`, { key: a.ck });
    expect(del.status).toBe(404);
    expect(await del.text()).toBe(missingBody);
    expect((await call("GET", `/v1/media/${theirs.id}`, { key: b.ck })).status).toBe(200);
  });

  it("soft delete: 204, then 404, gone from the list and from the public URL", async () => {
    const t = await mediaTenant();
    const a = (await (await upload(t.ck, PNG_1X1)).json()) as Asset;
    expect((await call("DELETE", `/v1/media/${a.id}`, { key: t.ck })).status).toBe(204);
    expect((await call("GET", `/v1/media/${a.id}`, { key: t.ck })).status).toBe(404);
    expect((await call("DELETE", `/v1/media/${a.id}`, { key: t.ck })).status).toBe(404);
    const list = (await (await call("GET", "/v1/media", { key: t.ck })).json()) as { items: Asset[] };
    expect(list.items).toEqual([]);
    expect((await call("GET", `/media/sites/${t.site.id}/${a.id}.png`)).status).toBe(404);
    const row = await (await contentDbOf(t.site.id))
      .prepare("SELECT status, deleted_at FROM media WHERE id = ?")
      .bind(a.id)
      .first<{
        status: string;
        deleted_at: string;
      }>();
    expect(row!.status).toBe("deleted");
    expect(row!.deleted_at).toBeTruthy();
  });
});
