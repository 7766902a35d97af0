/**
 * `POST /v1/media`: the upload form's rules, then the asset stored in R2, recorded as `processing`, and
 * its variants queued.
 */

import { newId } from "../../lib/ids";
import { batch } from "../../lib/sql";
import { tracedMessage } from "../../lib/trace";
import type { Env } from "../core/bindings";
import { optionalId } from "../core/id-param";
import { fail } from "../errors";
import { classifyImage } from "./ingest";
import { insertMediaStatements, type MediaRow, mediaKey } from "./store";

export const UPLOAD_MAX_BYTES = 8 * 1024 * 1024;
/** Multipart framing around the file: a request this much above the file limit is refused unread. */
const MULTIPART_OVERHEAD = 64 * 1024;
const MAX_TAGS = 20;

/** Limits of an asset's texts (issue 35). */
export const ALT_MAX = 500;
export const CAPTION_MAX = 1000;

/** A valid upload form: a non-empty file within the limit, an optional folder, distinct tags, alt and caption. */
export interface MediaUpload {
  file: Blob;
  folderId: string | null;
  tagIds: string[];
  alt: string | null;
  caption: string | null;
}

/** An optional text field of the form within `max` characters; empty is not given (null). */
function textField(form: FormData, name: string, max: number): string | null {
  const values = form.getAll(name);
  if (values.length === 0) return null;
  const value = values[0];
  if (values.length > 1 || typeof value !== "string") {
    fail("BAD_REQUEST", { detail: `${name} is one text field.`, details: { path: name } });
  }
  if (value.length > max) {
    fail("BAD_REQUEST", { detail: `${name} is at most ${max} characters.`, details: { path: name } });
  }
  return value === "" ? null : value;
}

function tooLarge(): never {
  fail("PAYLOAD_TOO_LARGE", "The file is larger than 8 MiB.");
}

/** The form's fields: `file` (required), `folder_id`, repeatable `tag_id`, `alt` and `caption`. */
export function parseUploadForm(form: FormData): MediaUpload {
  const file = form.get("file");
  if (file === null || typeof file === "string") {
    fail("BAD_REQUEST", "The form needs one field `file` with the file.");
  }
  if (file.size > UPLOAD_MAX_BYTES) tooLarge();
  if (file.size === 0) fail("BAD_REQUEST", "The file is empty.");
  const folderId = optionalId("folder_id", form.get("folder_id") as string | null);
  const tagIds = [
    ...new Set(form.getAll("tag_id").map((t) => optionalId("tag_id", typeof t === "string" ? t : null))),
  ].filter((t): t is string => t !== null);
  if (tagIds.length > MAX_TAGS) fail("BAD_REQUEST", `At most ${MAX_TAGS} tag_id values.`);
  const alt = textField(form, "alt", ALT_MAX);
  const caption = textField(form, "caption", CAPTION_MAX);
  return { file, folderId, tagIds, alt, caption };
}

/** The upload form of a request: refused unread when declared too large or not multipart. */
export async function readUploadForm(request: Request): Promise<MediaUpload> {
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > UPLOAD_MAX_BYTES + MULTIPART_OVERHEAD) tooLarge();
  if (!(request.headers.get("content-type") ?? "").toLowerCase().startsWith("multipart/form-data")) {
    fail("UNSUPPORTED_MEDIA_TYPE", "Send multipart/form-data with a field file.");
  }
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    fail("BAD_REQUEST", "The body is not valid multipart/form-data.");
  }
  return parseUploadForm(form);
}

/** Stores the upload as a media asset of the site; the type comes from the bytes, never the client. */
export async function uploadMedia(env: Env, siteId: string, upload: MediaUpload): Promise<MediaRow> {
  const outcome = classifyImage(new Uint8Array(await upload.file.arrayBuffer()));
  if (outcome.kind !== "ok") {
    fail("UNSUPPORTED_MEDIA_TYPE", {
      detail: "The file is not a supported image (PNG, JPEG, GIF, WebP, AVIF, ICO or a safe SVG).",
      details: { reason: outcome.reason },
    });
  }
  const id = newId();
  const row: MediaRow = {
    id,
    site_id: siteId,
    r2_key: mediaKey(siteId, id, outcome.ext),
    content_type: outcome.contentType,
    size_bytes: outcome.bytes.byteLength,
    status: "processing",
    folder_id: upload.folderId,
    variants_json: "[]",
    created_at: new Date().toISOString(),
    width: null,
    height: null,
    failure_reason: null,
    alt: upload.alt,
    caption: upload.caption,
    tag_ids: upload.tagIds.join(",") || null,
  };
  await env.MEDIA.put(row.r2_key, outcome.bytes, { httpMetadata: { contentType: outcome.contentType } });
  await batch(env.DB, insertMediaStatements(env.DB, row, upload.tagIds, { url: null, purpose: "upload" }));
  await env.MEDIA_VARIANTS.send(tracedMessage({ media_id: id, site_id: siteId }));
  return row;
}
