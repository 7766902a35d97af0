import { describe, expect, it } from "vitest";
import { optionalId } from "../../src/content/core/id-param";
import { parseMediaLimit } from "../../src/content/media/listing";
import { parseUploadForm, readUploadForm, UPLOAD_MAX_BYTES } from "../../src/content/media/upload";
import { newId } from "../../src/lib/ids";

const problem = (status: number, code: string, detail?: string) =>
  expect.objectContaining({ status, code, ...(detail ? { detail } : {}) });

function form(fields: [string, string | Blob][]): FormData {
  const data = new FormData();
  for (const [name, value] of fields) data.append(name, value);
  return data;
}

const png = new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], { type: "image/png" });

describe("POST /v1/media: the upload form", () => {
  it("needs one field file holding a file", () => {
    const missing = problem(400, "BAD_REQUEST", "The form needs one field `file` with the file.");
    expect(() => parseUploadForm(form([]))).toThrow(missing);
    expect(() => parseUploadForm(form([["file", "just text"]]))).toThrow(missing);
  });

  it("an empty file is 400; a file above 8 MiB is 413", () => {
    expect(() => parseUploadForm(form([["file", new Blob([])]]))).toThrow(
      problem(400, "BAD_REQUEST", "The file is empty."),
    );
    expect(() => parseUploadForm(form([["file", new Blob([new Uint8Array(UPLOAD_MAX_BYTES + 1)])]]))).toThrow(
      problem(413, "PAYLOAD_TOO_LARGE", "The file is larger than 8 MiB."),
    );
  });

  it("folder_id and tag_id are ULIDs or UUIDs; tags are distinct, at most 20", () => {
    const folder = newId();
    const tag = newId();
    const upload = parseUploadForm(
      form([
        ["file", png],
        ["folder_id", folder],
        ["tag_id", tag],
        ["tag_id", tag],
        ["tag_id", ""],
      ]),
    );
    expect(upload).toMatchObject({ folderId: folder, tagIds: [tag] });
    expect(() =>
      parseUploadForm(
        form([
          ["file", png],
          ["folder_id", "inbox"],
        ]),
      ),
    ).toThrow(problem(400, "BAD_REQUEST", "folder_id must be a ULID or UUID."));
    const tags = Array.from({ length: 21 }, (): [string, string] => ["tag_id", newId()]);
    expect(() => parseUploadForm(form([["file", png], ...tags]))).toThrow(
      problem(400, "BAD_REQUEST", "At most 20 tag_id values."),
    );
  });

  it("a request declared far above 8 MiB is 413 and one not multipart is 415, both unread", async () => {
    const request = (headers: Record<string, string>) =>
      new Request("http://content.test/v1/media", { method: "POST", headers, body: "x" });
    await expect(
      readUploadForm(
        request({ "content-type": "multipart/form-data; boundary=x", "content-length": "9000000" }),
      ),
    ).rejects.toMatchObject({ status: 413, code: "PAYLOAD_TOO_LARGE" });
    await expect(readUploadForm(request({ "content-type": "image/png" }))).rejects.toMatchObject({
      status: 415,
      code: "UNSUPPORTED_MEDIA_TYPE",
      detail: "Send multipart/form-data with a field file.",
    });
    await expect(
      readUploadForm(request({ "content-type": "multipart/form-data; boundary=x" })),
    ).rejects.toMatchObject({
      status: 400,
      code: "BAD_REQUEST",
      detail: "The body is not valid multipart/form-data.",
    });
  });
});

describe("GET /v1/media: the query", () => {
  it("limit 1..500 (default 50), else 400 INVALID_LIMIT, never clamped", () => {
    expect(parseMediaLimit(undefined)).toBe(50);
    expect(parseMediaLimit("500")).toBe(500);
    for (const limit of ["0", "501", "-1", "ten", ""]) {
      expect(() => parseMediaLimit(limit), limit).toThrow(
        problem(400, "INVALID_LIMIT", "limit must be an integer from 1 to 500."),
      );
    }
  });

  it("an id filter that is absent or empty filters nothing", () => {
    expect(optionalId("folder_id", undefined)).toBeNull();
    expect(optionalId("folder_id", "")).toBeNull();
    expect(() => optionalId("tag_id", "x")).toThrow(
      problem(400, "BAD_REQUEST", "tag_id must be a ULID or UUID."),
    );
  });
});
