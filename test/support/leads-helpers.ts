/**
 * Test helpers of forms and leads: a site with the forms app on (as sites pushes it), forms made through
 * the staff route, form tokens stamped at a chosen time, submissions through the anonymous route, leads
 * written straight to D1 in bulk, and the audit rows of a site.
 */

import { env } from "cloudflare:workers";
import { issueFormToken } from "../../src/content/forms/form-token";
import type { AuditEvent } from "../../src/content/leads/audit-store";
import { newId } from "../../src/lib/ids";
import type { SiteProjection } from "../../src/lib/rpc";
import { uniqueIp } from "./client-ip";
import { contentDbOf } from "./content-groups";
import { BASE, call, content, createKey, makeSite, ownerHeaders } from "./content-helpers";

const cursorSecret = (env as unknown as { CURSOR_SECRET: string }).CURSOR_SECRET;

export const CONTACT_FIELDS = [
  { name: "name", type: "text", required: true },
  { name: "email", type: "email", required: true },
  { name: "message", type: "textarea" },
  { name: "website", type: "url" },
  { name: "topic", type: "select", options: ["sales", "support"] },
  { name: "seats", type: "number" },
  { name: "consent", type: "checkbox", required: true },
];

export interface FormOut {
  id: string;
  name: string;
  fields: { name: string; type: string }[];
}

/** A site whose forms app is on (the projection carries the switch). */
export function formsSite(overrides: Partial<SiteProjection> = {}): Promise<SiteProjection> {
  return makeSite({ forms_enabled: true, ...overrides });
}

/** Pushes the site again with the forms switch changed (a newer projection). */
export async function setFormsApp(site: SiteProjection, enabled: boolean): Promise<SiteProjection> {
  const next = {
    ...site,
    forms_enabled: enabled,
    updated_at: new Date(Date.parse(site.updated_at) + 1000).toISOString(),
  };
  await content.syncSite(next);
  return next;
}

export async function createForm(
  site: SiteProjection,
  body: { name?: string; fields?: unknown[] } = {},
): Promise<FormOut> {
  const res = await call("POST", `/api/v1/sites/${site.id}/forms`, {
    headers: ownerHeaders(site),
    body: { name: body.name ?? "Contact", fields: body.fields ?? CONTACT_FIELDS },
  });
  if (res.status !== 201) throw new Error(`createForm: ${res.status} ${await res.text()}`);
  return (await res.json()) as FormOut;
}

/** A forms site with one contact form: the usual start of a submission test. */
export async function contactForm() {
  const site = await formsSite();
  const form = await createForm(site);
  return { site, form };
}

/** A key that may read leads (and export them). */
export async function leadsKey(site: SiteProjection, scopes: string[] = ["leads:read", "export"]) {
  return (await createKey(site, { scopes })).key;
}

/** A form token issued `agoMs` before now: a visitor who took that long to fill the form in. */
export function tokenIssued(siteId: string, formId: string, agoMs = 10_000): Promise<string> {
  return issueFormToken(cursorSecret, siteId, formId, Date.now() - agoMs);
}

/** A fresh client address per call, so the per-IP limit of one test never touches another's. */
export function freshIp(): string {
  return uniqueIp();
}

export function submissionPath(siteId: string, formId: string): string {
  return `/v1/sites/${siteId}/forms/${formId}/submissions`;
}

/** A valid contact submission's values (unique per call unless `values` says otherwise). */
export function contactValues(values: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: "Ana Souza",
    email: `ana-${newId().toLowerCase()}@example.com`,
    message: "Hello, I would like a quote.",
    consent: true,
    ...values,
  };
}

export async function submit(
  site: SiteProjection,
  formId: string,
  body: Record<string, unknown> | string,
  options: { ip?: string; contentType?: string; token?: string | null } = {},
): Promise<Response> {
  const contentType = options.contentType ?? "application/json";
  let payload: string;
  if (typeof body === "string") {
    payload = body;
  } else {
    const token = options.token === undefined ? await tokenIssued(site.id, formId) : options.token;
    const full = token === null ? body : { _token: token, ...body };
    payload =
      contentType === "application/x-www-form-urlencoded"
        ? new URLSearchParams(Object.entries(full).map(([k, v]) => [k, String(v)])).toString()
        : JSON.stringify(full);
  }
  return content.fetch(
    new Request(`${BASE}${submissionPath(site.id, formId)}`, {
      method: "POST",
      headers: { "content-type": contentType, "cf-connecting-ip": options.ip ?? freshIp() },
      body: payload,
    }),
  );
}

export interface LeadOut {
  id: string;
  form_id: string;
  status: "clean" | "spam";
  spam_reasons: string[];
  fields: Record<string, unknown>;
  page_url: string | null;
  created_at: string;
}

/** The site's stored leads, newest first (straight from D1). */
export async function storedLeads(siteId: string) {
  const { results } = await (await contentDbOf(siteId))
    .prepare(
      "SELECT id, form_id, status, spam_reasons_json, fields_json, page_url, created_at FROM leads WHERE site_id = ? ORDER BY created_at DESC, id DESC",
    )
    .bind(siteId)
    .all<{
      id: string;
      status: string;
      spam_reasons_json: string;
      fields_json: string;
      page_url: string | null;
    }>();
  return results.map((r) => ({
    ...r,
    spam_reasons: JSON.parse(r.spam_reasons_json) as string[],
    fields: JSON.parse(r.fields_json) as Record<string, unknown>,
  }));
}

/**
 * `count` leads of the form written straight to D1 (one statement, generated inside SQLite), one second
 * apart from `start`; every `spamEvery`-th is spam. Ids sort with time, like real ULIDs.
 */
export async function seedLeads(
  siteId: string,
  formId: string,
  count: number,
  options: { start?: string; spamEvery?: number; idPrefix?: string } = {},
): Promise<void> {
  const start = Date.parse(options.start ?? "2025-01-01T00:00:00.000Z") / 1000;
  // A ULID's first 10 characters are its millisecond, so two calls in one millisecond (the files of a lane
  // share one runtime) shared them. newId() is monotonic: within one millisecond it adds 1 to the random
  // part, so its last 6 characters differ from call to call. The counter after them keeps the ids of one
  // call ordered, and every id 26 characters long.
  const id = newId();
  const prefix = options.idPrefix ?? `${id.slice(0, 10)}${id.slice(20)}`;
  await (await contentDbOf(siteId))
    .prepare(
      `WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ?1)
     INSERT INTO leads (id, site_id, form_id, status, spam_reasons_json, fields_json, content_hash, page_url, created_at)
     SELECT ?2 || printf('%0' || (26 - length(?2)) || 'd', i), ?3, ?4,
            CASE WHEN ?5 > 0 AND i % ?5 = 0 THEN 'spam' ELSE 'clean' END,
            CASE WHEN ?5 > 0 AND i % ?5 = 0 THEN '["honeypot"]' ELSE '[]' END,
            json_object('name', 'Lead ' || i, 'email', 'lead' || i || '@example.com', 'consent', json('true')),
            'hash-' || i, NULL,
            strftime('%Y-%m-%dT%H:%M:%fZ', ?6 + i, 'unixepoch')
     FROM seq`,
    )
    .bind(count, prefix, siteId, formId, options.spamEvery ?? 0, start)
    .run();
}

/** An audit row as the tests read it back: the stored event (`leads/audit-store.ts`) and its actor type. */
export type AuditRow = Omit<AuditEvent, "site_id"> & { actor_type: string };

/** The site's audit rows, oldest first. */
export async function auditRows(siteId: string): Promise<AuditRow[]> {
  const { results } = await (await contentDbOf(siteId))
    .prepare("SELECT * FROM audit_events WHERE site_id = ? ORDER BY created_at, id")
    .bind(siteId)
    .all<Record<string, unknown>>();
  return results.map((r) => ({
    ...(r as unknown as AuditRow),
    resource_ids: JSON.parse(r.resource_ids_json as string) as string[],
    details: JSON.parse(r.details_json as string) as Record<string, unknown>,
  }));
}
