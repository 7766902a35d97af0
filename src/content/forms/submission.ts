/**
 * The anonymous side of a form: its definition for visitors (with a fresh form token) and the submission.
 * Every way a form can be unavailable (no such site or form, another site's form, a deleted form, the
 * forms app off, a site that is not live) is the same 404. A submission is validated against the declared
 * fields (400 naming the field), limited per (site, client IP), checked against the spam rules and stored,
 * clean or flagged; the answer never tells which.
 */
import { readCappedBytes } from "../../lib/capped-body";
import { newId, parseId } from "../../lib/ids";
import type { ApiError } from "../../lib/problem";
import { tracedMessage } from "../../lib/trace";
import type { Env } from "../core/bindings";
import { fail, problem } from "../errors";
import type { BucketSpec } from "../keys/gate";
import { sha256Base64url } from "../keys/key-hash";
import { insertLead } from "../leads/store";
import { leadCreatedEvent } from "../webhooks/events";
import { type FormField, submittedValues } from "./fields";
import { issueFormToken, verifyFormToken } from "./form-token";
import { countLinks, SPAM_RULES, spamReasons } from "./spam";
import { type FormRecord, getSubmittableForm } from "./store";

/** Body limit of one submission (413 above). */
export const SUBMISSION_MAX_BYTES = 32 * 1024;
/** Reserved body fields: the honeypot input, the form token, the page the form was on. */
export const HONEYPOT_FIELD = "_hp" as const;
export const TOKEN_FIELD = "_token" as const;
export const PAGE_FIELD = "_page" as const;

/**
 * Per (site, client IP): 20 submissions, one back every 30 s. Empty: 429 (a flood is refused, not stored).
 * More than `SUBMISSION_BURST` below full: stored as spam (`rate`).
 */
export const SUBMISSION_BUCKET: BucketSpec = {
  name: "submissions",
  policy: "form-submissions",
  capacity: 20,
  windowSeconds: 600,
};
export const SUBMISSION_BURST = 3;

export function formNotFound(): ApiError {
  return problem("NOT_FOUND", "No such form.");
}

async function submittableForm(env: Env, rawSiteId: string, rawFormId: string): Promise<FormRecord> {
  const siteId = parseId(rawSiteId);
  const formId = parseId(rawFormId);
  const form = siteId && formId ? await getSubmittableForm(env.DB, siteId, formId) : null;
  if (!form) throw formNotFound();
  return form;
}

export interface VisitorForm {
  id: string;
  name: string;
  fields: FormField[];
  token: string;
  honeypot_field: typeof HONEYPOT_FIELD;
  token_field: typeof TOKEN_FIELD;
  page_field: typeof PAGE_FIELD;
}

/** What a page needs to render the form: its fields and a token stamped now. */
export async function formForVisitors(
  env: Env,
  rawSiteId: string,
  rawFormId: string,
  nowMs: number,
): Promise<VisitorForm> {
  const form = await submittableForm(env, rawSiteId, rawFormId);
  return {
    id: form.id,
    name: form.name,
    fields: form.fields,
    token: await issueFormToken(env.CURSOR_SECRET, form.site_id, form.id, nowMs),
    honeypot_field: HONEYPOT_FIELD,
    token_field: TOKEN_FIELD,
    page_field: PAGE_FIELD,
  };
}

/** Reads at most `max` bytes of the body; more is a 413 whatever Content-Length claimed. */
async function readCapped(request: Request, max: number): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > max) fail("PAYLOAD_TOO_LARGE", `A submission is at most ${max} bytes.`);
  const bytes = await readCappedBytes(request.body, max);
  if (!bytes) fail("PAYLOAD_TOO_LARGE", `A submission is at most ${max} bytes.`);
  return new TextDecoder().decode(bytes);
}

/** The body as an object of name -> value: JSON (an object) or form-encoded (a repeated name: a list). */
export async function readSubmissionBody(request: Request): Promise<Record<string, unknown>> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json" && type !== "application/x-www-form-urlencoded") {
    fail("UNSUPPORTED_MEDIA_TYPE", "Send application/json or application/x-www-form-urlencoded.");
  }
  const text = await readCapped(request, SUBMISSION_MAX_BYTES);
  if (type === "application/json") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      fail("BAD_REQUEST", "The body is not JSON.");
    }
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
      fail("BAD_REQUEST", "The body must be a JSON object of field name -> value.");
    }
    return parsed as Record<string, unknown>;
  }
  const body: Record<string, unknown> = Object.create(null);
  for (const [name, value] of new URLSearchParams(text)) {
    const seen = body[name];
    body[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return body;
}

function optionalText(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}

/** `_page`: kept when it is an http(s) URL of at most 2048 characters, else dropped (never an error). */
function pageUrl(value: unknown): string | null {
  const text = optionalText(value);
  if (!text || text.length > 2048) return null;
  try {
    const url = new URL(text);
    return url.protocol === "https:" || url.protocol === "http:" ? url.href : null;
  } catch {
    return null;
  }
}

/** The submitter's bucket: 429 when empty; `burst` when the soft tier is passed. */
async function takeSubmissionToken(env: Env, siteId: string, ip: string): Promise<{ burst: boolean }> {
  const gate = env.KEY_GATE.get(env.KEY_GATE.idFromName(`form-submissions:${siteId}:${ip}`));
  const result = await gate.take([SUBMISSION_BUCKET]);
  if (!result.allowed) {
    fail("RATE_LIMITED", {
      detail: "Too many submissions from this address; try again later.",
      headers: { "retry-after": String(result.retryAfterSeconds) },
    });
  }
  return { burst: result.buckets[0]!.remaining < SUBMISSION_BUCKET.capacity - SUBMISSION_BURST };
}

/** Validates, classifies and stores one submission; the lead's id and status (for the log, not the wire). */
export async function submitLead(
  env: Env,
  input: { siteId: string; formId: string; request: Request; ip: string; nowMs: number },
): Promise<{ id: string; status: "clean" | "spam"; spam_reasons: string[] }> {
  const form = await submittableForm(env, input.siteId, input.formId);
  const { burst } = await takeSubmissionToken(env, form.site_id, input.ip);
  const body = await readSubmissionBody(input.request);
  const values = submittedValues(form.fields, body);
  const token = optionalText(body[TOKEN_FIELD]);
  const verified = token ? await verifyFormToken(env.CURSOR_SECRET, form.site_id, form.id, token) : null;
  const reasons = spamReasons({
    honeypot: body[HONEYPOT_FIELD] === undefined ? null : String(body[HONEYPOT_FIELD]),
    tokenIssuedMs: token ? (verified?.issuedMs ?? null) : "missing",
    links: countLinks(form.fields, values),
    burst,
    nowMs: input.nowMs,
  });
  const fieldsJson = JSON.stringify(values);
  const id = newId();
  const stored = await insertLead(
    env.DB,
    {
      id,
      site_id: form.site_id,
      form_id: form.id,
      spam_reasons: reasons,
      fields_json: fieldsJson,
      content_hash: await sha256Base64url(`${form.id}\n${fieldsJson}`),
      page_url: pageUrl(body[PAGE_FIELD]),
      created_at: new Date(input.nowMs).toISOString(),
    },
    new Date(input.nowMs - SPAM_RULES.duplicateWindowMs).toISOString(),
    // A verified token's id is remembered until the token would be stale anyway (its age limit and
    // the minute of clock skew tokens are allowed): a second submission with it is `reused_token`.
    verified
      ? {
          id: verified.id,
          expiresAt: new Date(verified.issuedMs + SPAM_RULES.maxTokenAgeMs + 60_000).toISOString(),
          now: new Date(input.nowMs).toISOString(),
        }
      : null,
  );
  // A clean lead is announced (`lead.created`); spam never leaves the service.
  if (stored.status === "clean") {
    const lead = {
      id,
      site_id: form.site_id,
      form_id: form.id,
      fields: values,
      page_url: pageUrl(body[PAGE_FIELD]),
    };
    await env.CONTENT_EVENTS.send(
      tracedMessage(leadCreatedEvent({ ...lead, created_at: new Date(input.nowMs).toISOString() })),
    );
  }
  return { id, ...stored };
}
