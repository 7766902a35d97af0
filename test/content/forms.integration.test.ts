/** Forms administration by site staff (through the edge) and the forms app's switch in content's projection. */
import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { contentDbOf } from "../support/content-groups";
import { call, content, makeSite, ownerHeaders, staffHeaders } from "../support/content-helpers";
import { CONTACT_FIELDS, createForm, formsSite, setFormsApp } from "../support/leads-helpers";

async function formsAppState(siteId: string) {
  return (await contentDbOf(siteId))
    .prepare("SELECT enabled, updated_at FROM forms_app_state WHERE site_id = ?")
    .bind(siteId)
    .first<{ enabled: number; updated_at: string }>();
}

describe("the forms app's switch (site projection)", () => {
  it("follows the pushes of the site; an older push never overwrites a newer one; a push without it keeps it", async () => {
    const site = await makeSite();
    expect(await formsAppState(site.id)).toBeNull();
    const on = await setFormsApp(site, true);
    expect(await formsAppState(site.id)).toMatchObject({ enabled: 1 });
    await content.syncSite({ ...site, forms_enabled: false });
    expect(await formsAppState(site.id)).toMatchObject({ enabled: 1 });
    const { forms_enabled: _, ...withoutSwitch } = on;
    await content.syncSite({
      ...withoutSwitch,
      name: "Renamed",
      updated_at: new Date(Date.now() + 9000).toISOString(),
    });
    expect(await formsAppState(site.id)).toMatchObject({ enabled: 1 });
    await setFormsApp(on, false);
    expect(await formsAppState(site.id)).toMatchObject({ enabled: 0 });
  });
});

describe("POST|GET /api/v1/sites/{site_id}/forms, DELETE …/{form_id}", () => {
  it("the site's administrators create, list and delete forms; fields are stored with their defaults", async () => {
    const site = await formsSite();
    const form = await createForm(site, { name: "Contact" });
    expect(form).toMatchObject({ name: "Contact", created_by: `user-${site.id}` });
    expect(form.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(form.fields).toEqual([
      { name: "name", label: "name", type: "text", required: true, max_length: 200, options: null },
      { name: "email", label: "email", type: "email", required: true, max_length: 254, options: null },
      {
        name: "message",
        label: "message",
        type: "textarea",
        required: false,
        max_length: 5000,
        options: null,
      },
      { name: "website", label: "website", type: "url", required: false, max_length: 2048, options: null },
      {
        name: "topic",
        label: "topic",
        type: "select",
        required: false,
        max_length: null,
        options: ["sales", "support"],
      },
      { name: "seats", label: "seats", type: "number", required: false, max_length: null, options: null },
      {
        name: "consent",
        label: "consent",
        type: "checkbox",
        required: true,
        max_length: null,
        options: null,
      },
    ]);
    const second = await createForm(site, { name: "Newsletter", fields: [{ name: "email", type: "email" }] });
    const list = await call("GET", `/api/v1/sites/${site.id}/forms`, { headers: ownerHeaders(site) });
    expect(list.status).toBe(200);
    expect(((await list.json()) as { items: { id: string }[] }).items.map((f) => f.id)).toEqual([
      second.id,
      form.id,
    ]);
    const del = await call("DELETE", `/api/v1/sites/${site.id}/forms/${second.id}`, {
      headers: ownerHeaders(site),
    });
    expect(del.status).toBe(204);
    const again = await call("DELETE", `/api/v1/sites/${site.id}/forms/${second.id}`, {
      headers: ownerHeaders(site),
    });
    expect(again.status).toBe(404);
    const after = (await (
      await call("GET", `/api/v1/sites/${site.id}/forms`, { headers: ownerHeaders(site) })
    ).json()) as { items: { id: string }[] };
    expect(after.items.map((f) => f.id)).toEqual([form.id]);
  });

  it("refuses bad definitions with 400 naming the field", async () => {
    const site = await formsSite();
    const bad: [unknown[], string | null][] = [
      [
        [
          { name: "email", type: "email" },
          { name: "email", type: "text" },
        ],
        "email",
      ],
      [[{ name: "status", type: "text" }], "status"],
      [[{ name: "topic", type: "select" }], "topic"],
      [[{ name: "note", type: "text", options: ["a"] }], "note"],
      [[{ name: "note", type: "text", max_length: 5000 }], "note"],
      [[{ name: "seats", type: "number", max_length: 5 }], "seats"],
      [[{ name: "Bad Name", type: "text" }], null],
      [[{ name: "x", type: "file" }], null],
      [[], null],
      [Array.from({ length: 31 }, (_, i) => ({ name: `f${i}`, type: "text" })), null],
    ];
    for (const [fields, field] of bad) {
      const res = await call("POST", `/api/v1/sites/${site.id}/forms`, {
        headers: ownerHeaders(site),
        body: { name: "Bad", fields },
      });
      expect(res.status, JSON.stringify(fields)).toBe(400);
      const body = (await res.json()) as { code: string; details?: { field: string } };
      if (field) expect(body).toMatchObject({ code: "INVALID_FORM_FIELDS", details: { field } });
    }
  });

  it("no session is 401; a non-administrator, another organization or a reader gets the opaque 404 of a missing site", async () => {
    const site = await formsSite();
    const path = `/api/v1/sites/${site.id}/forms`;
    const body = { name: "x", fields: CONTACT_FIELDS };
    expect((await call("POST", path, { body })).status).toBe(401);
    const missing = await call("POST", `/api/v1/sites/${newId()}/forms`, {
      headers: ownerHeaders(site),
      body,
    });
    expect(missing.status).toBe(404);
    const missingBody = await missing.text();
    const outsiders = [
      staffHeaders("u1", { org: [{ org_id: site.org_id, role: "org_member" }] }),
      staffHeaders("u2", { org: [{ org_id: newId(), role: "org_owner" }] }),
      staffHeaders("u3", { site: [{ site_id: site.id, role: "site_editor" }] }),
      { ...ownerHeaders(site), "x-session-kind": "reader" },
    ];
    for (const headers of outsiders) {
      const res = await call("POST", path, { headers, body });
      expect(res.status).toBe(404);
      expect(await res.text()).toBe(missingBody);
    }
    const siteOwner = staffHeaders("u4", { site: [{ site_id: site.id, role: "site_owner" }] });
    expect((await call("POST", path, { headers: siteOwner, body })).status).toBe(201);
  });

  it("with the forms app off the area is gone (404) and nothing is deleted", async () => {
    const site = await formsSite();
    const form = await createForm(site);
    const off = await setFormsApp(site, false);
    for (const [method, path] of [
      ["GET", `/api/v1/sites/${site.id}/forms`],
      ["POST", `/api/v1/sites/${site.id}/forms`],
      ["DELETE", `/api/v1/sites/${site.id}/forms/${form.id}`],
    ] as const) {
      const res = await call(method, path, {
        headers: ownerHeaders(site),
        body: method === "POST" ? { name: "x", fields: CONTACT_FIELDS } : undefined,
      });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    await setFormsApp(off, true);
    const list = (await (
      await call("GET", `/api/v1/sites/${site.id}/forms`, { headers: ownerHeaders(site) })
    ).json()) as { items: { id: string }[] };
    expect(list.items.map((f) => f.id)).toEqual([form.id]);
  });
});

describe("the OpenAPI document", () => {
  it("lists the forms, submission, lead and leads export operations with their rules", async () => {
    const doc = (await (await call("GET", "/openapi.json")).json()) as {
      paths: Record<string, Record<string, { description?: string; parameters?: { name: string }[] }>>;
    };
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations).toEqual(
      expect.arrayContaining([
        "POST /api/v1/sites/{site_id}/forms",
        "GET /api/v1/sites/{site_id}/forms",
        "DELETE /api/v1/sites/{site_id}/forms/{form_id}",
        "GET /v1/sites/{site_id}/forms/{form_id}",
        "POST /v1/sites/{site_id}/forms/{form_id}/submissions",
        "GET /v1/leads",
        "GET /v1/leads/{id}",
        "GET /v1/export",
      ]),
    );
    const submission = doc.paths["/v1/sites/{site_id}/forms/{form_id}/submissions"]!.post!;
    for (const rule of ["_hp", "_token", "429", "32768 bytes", "duplicate", "links"]) {
      expect(submission.description).toContain(rule);
    }
    const exportParams = doc.paths["/v1/export"]!.get!.parameters!.map((p) => p.name);
    expect(exportParams).toEqual(
      expect.arrayContaining(["resource", "format", "form_id", "status", "de", "ate"]),
    );
    const listParams = doc.paths["/v1/leads"]!.get!.parameters!.map((p) => p.name);
    expect(listParams.sort()).toEqual([
      "ate",
      "cursor",
      "de",
      "form_id",
      "include",
      "limit",
      "ordem",
      "status",
    ]);
  });
});
