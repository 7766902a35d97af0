import { describe, it } from "vitest";
import { call, createKey, tenant } from "../support/content-helpers";

describe("probe", () => {
  it("media + export + import junk", async () => {
    const t = await tenant();
    const k = await createKey(t.site, { scopes: ["media:read", "media:write", "export", "import", "posts:write"] });
    const cases: [string, string, unknown, Record<string, string>?][] = [
      ["GET", "/v1/media?limit=1e1", undefined],
      ["GET", "/v1/media?limit=1&limit=2", undefined],
      ["GET", "/v1/media?folder_id=%00", undefined],
      ["GET", "/v1/media?tag_id=a%00b", undefined],
      ["GET", "/v1/media/%00", undefined],
      ["DELETE", "/v1/media/a%00b", undefined],
      ["POST", "/v1/media", "junk", { "content-type": "multipart/form-data" }],
      ["POST", "/v1/media", "junk", { "content-type": "multipart/form-data; boundary=x" }],
      ["POST", "/v1/media", "--x\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\n\r\n--x--\r\n", { "content-type": "multipart/form-data; boundary=x" }],
      ["GET", "/v1/export?resource=posts&format=%00", undefined],
      ["GET", "/v1/export", undefined],
      ["POST", "/v1/import", "\u0000\n{}\n[]\nnull\n{\"title\":\"a\\u0000\"}", { "content-type": "application/x-ndjson" }],
      ["POST", "/v1/import", "", { "content-type": "application/x-ndjson" }],
      ["POST", "/v1/import?resource=%00", "{}", { "content-type": "application/x-ndjson" }],
      ["GET", "/media/%00", undefined],
      ["GET", "/media/..%2F..%2Fx", undefined],
      ["POST", "/api/v1/sites/x/api-keys", "{bad", undefined],
      ["DELETE", `/api/v1/sites/${t.site.id}/api-keys/%00`, undefined],
    ];
    for (const [m, p, b, h] of cases) {
      const res = await call(m, p, { key: k.key, body: b, headers: h });
      console.log(m, p.slice(0, 60), res.status, (await res.text()).slice(0, 160));
    }
  });
});
