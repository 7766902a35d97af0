/** `GET /v1/export?resource=leads`: NDJSON and CSV, audited, on the strict limit, streamed. */
import { describe, expect, it } from "vitest";
import { contentDbOf } from "../support/content-groups";
import { call, createKey, problem } from "../support/content-helpers";
import {
  auditRows,
  contactValues,
  createForm,
  formsSite,
  type LeadOut,
  leadsKey,
  seedLeads,
  setFormsApp,
  submit,
} from "../support/leads-helpers";

function exportPath(query: string) {
  return `/v1/export?resource=leads${query}`;
}

/** RFC 4180 rows of a CSV text (quoted cells, doubled quotes, CRLF). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      row.push(cell);
      cell = "";
    } else if (ch === "\r" && text[i + 1] === "\n") {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
      i++;
    } else cell += ch;
  }
  return rows;
}

describe("GET /v1/export?resource=leads", () => {
  it("NDJSON (the default): one lead per line in the list item shape, oldest first, clean by default", async () => {
    const site = await formsSite();
    const form = await createForm(site);
    await submit(site, form.id, contactValues({ name: "One" }));
    await submit(site, form.id, { ...contactValues({ name: "Spam" }), _hp: "x" });
    await submit(site, form.id, contactValues({ name: "Two" }));
    const key = await leadsKey(site);
    const res = await call("GET", exportPath(""), { key });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/x-ndjson");
    expect(res.headers.get("content-disposition")).toMatch(
      new RegExp(`^attachment; filename="leads-${site.id}-\\d{4}-\\d{2}-\\d{2}\\.ndjson"$`),
    );
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    const lines = (await res.text())
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as LeadOut);
    expect(lines.map((l) => l.fields.name)).toEqual(["One", "Two"]);
    const listed = (await (await call("GET", `/v1/leads/${lines[0]!.id}`, { key })).json()) as LeadOut;
    expect(lines[0]).toEqual(listed);
    const all = await call("GET", exportPath("&status=all&format=ndjson"), { key });
    expect((await all.text()).trimEnd().split("\n")).toHaveLength(3);
    const spam = await call("GET", exportPath(`&status=spam&form_id=${form.id}`), { key });
    expect(
      (await spam.text())
        .trimEnd()
        .split("\n")
        .map((l) => (JSON.parse(l) as LeadOut).fields.name),
    ).toEqual(["Spam"]);
  });

  it("CSV has the form's own columns, RFC 4180 quoting and no formula injection", async () => {
    const site = await formsSite();
    const form = await createForm(site);
    await submit(site, form.id, {
      ...contactValues({
        name: '=HYPERLINK("http://evil.example","click")',
        email: "a@example.com",
        message: 'He said "hi",\nthen left',
        topic: "support",
        seats: -3,
      }),
      _page: "https://s.example/contact",
    });
    await submit(
      site,
      form.id,
      contactValues({ name: "+cmd|' /C calc'!A0", email: "b@example.com", consent: true }),
    );
    await submit(site, form.id, contactValues({ name: "-2+3", email: "c@example.com" }));
    await submit(site, form.id, contactValues({ name: "@SUM(A1:A2)", email: "d@example.com" }));
    const key = await leadsKey(site);
    const res = await call("GET", exportPath(`&format=csv&form_id=${form.id}`), { key });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toMatch(
      new RegExp(`filename="leads-${form.id}-.*\\.csv"`),
    );
    const text = await res.text();
    expect(text.endsWith("\r\n")).toBe(true);
    const rows = parseCsv(text);
    expect(rows[0]).toEqual([
      "id",
      "created_at",
      "status",
      "spam_reasons",
      "page_url",
      "name",
      "email",
      "message",
      "website",
      "topic",
      "seats",
      "consent",
    ]);
    expect(rows).toHaveLength(5);
    const [first, second, third, fourth] = rows.slice(1);
    expect(first!.slice(2)).toEqual([
      "clean",
      "",
      "https://s.example/contact",
      `'=HYPERLINK("http://evil.example","click")`,
      "a@example.com",
      'He said "hi",\nthen left',
      "",
      "support",
      "-3",
      "true",
    ]);
    expect(second![5]).toBe("'+cmd|' /C calc'!A0");
    expect(third![5]).toBe("'-2+3");
    expect(fourth![5]).toBe("'@SUM(A1:A2)");
    // The raw text: the quoted cell with doubled quotes.
    expect(text).toContain(`"'=HYPERLINK(""http://evil.example"",""click"")"`);
  });

  it("CSV needs form_id (400); bad filters answer like the list (400, 422); another site's form is 422", async () => {
    const site = await formsSite();
    await createForm(site);
    const other = await formsSite();
    const otherForm = await createForm(other);
    const key = await leadsKey(site);
    const cases: [string, number, string][] = [
      ["&format=csv", 400, "FORM_ID_REQUIRED"],
      ["&format=xlsx", 400, "BAD_REQUEST"],
      ["&status=junk", 400, "INVALID_STATUS"],
      ["&de=2025-13-01", 400, "INVALID_DATE"],
      ["&form_id=nope", 400, "INVALID_FORM_ID"],
      ["&de=2025-03-02&ate=2025-03-01", 422, "INVALID_DATE_RANGE"],
      [`&form_id=${otherForm.id}&format=csv`, 422, "UNKNOWN_FORM"],
    ];
    for (const [query, status, code] of cases) {
      const res = await call("GET", exportPath(query), { key });
      expect(res.status, query).toBe(status);
      expect((await problem(res)).code, query).toBe(code);
    }
    expect(await auditRows(site.id)).toEqual([]);
  });

  it("needs export and leads:read with a ck_ key; a site without the forms app is 404", async () => {
    const site = await formsSite();
    await createForm(site);
    for (const scopes of [["export"], ["leads:read"], ["export", "posts:write"]]) {
      const key = await createKey(site, { scopes });
      expect((await call("GET", exportPath(""), { key: key.key })).status, scopes.join()).toBe(403);
    }
    const key = await leadsKey(site);
    await setFormsApp(site, false);
    expect((await call("GET", exportPath(""), { key })).status).toBe(404);
    expect((await auditRows(site.id)).map((r) => [r.action, r.outcome])).toEqual([
      ["leads.export", "not_found"],
    ]);
  });

  it("is audited: the row is opened (started) before the first byte and closed with the count (completed)", async () => {
    const site = await formsSite();
    const form = await createForm(site);
    await seedLeads(site.id, form.id, 30, { spamEvery: 3 });
    const key = await leadsKey(site);
    const res = await call("GET", exportPath(`&form_id=${form.id}&status=clean&de=2025-01-01&format=csv`), {
      key,
    });
    expect(res.status).toBe(200);
    await res.text();
    const [row] = await auditRows(site.id);
    expect(row).toMatchObject({
      action: "leads.export",
      outcome: "completed",
      item_count: 20,
      resource_ids: [],
      details: {
        form_id: form.id,
        status: "clean",
        from: "2025-01-01T00:00:00.000Z",
        to_exclusive: null,
        format: "csv",
      },
    });
    expect(row!.completed_at).not.toBeNull();
  });

  it("streams: 10,000 leads show their first lines before the last row is read, and every row arrives once", async () => {
    const site = await formsSite();
    const form = await createForm(site);
    await seedLeads(site.id, form.id, 10_000);
    const key = await leadsKey(site);
    const res = await call("GET", exportPath(`&form_id=${form.id}`), { key });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    const firstText = new TextDecoder().decode(first.value);
    // The first chunk is one page of lines, far from the whole export...
    const firstLines = firstText.split("\n").filter((l) => l !== "");
    expect(firstLines.length).toBeGreaterThan(0);
    expect(firstLines.length).toBeLessThanOrEqual(250);
    expect((JSON.parse(firstLines[0]!) as LeadOut).fields.name).toBe("Lead 1");
    // ...and the export is still open: its audit row is not closed until the last page is read.
    expect((await auditRows(site.id))[0]).toMatchObject({ outcome: "started", completed_at: null });
    let text = firstText;
    const decoder = new TextDecoder();
    let chunks = 1;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks++;
      text += decoder.decode(value, { stream: true });
    }
    const lines = text.trimEnd().split("\n");
    expect(lines).toHaveLength(10_000);
    expect(new Set(lines.map((l) => (JSON.parse(l) as LeadOut).id)).size).toBe(10_000);
    expect(chunks).toBeGreaterThanOrEqual(40);
    expect((await auditRows(site.id))[0]).toMatchObject({ outcome: "completed", item_count: 10_000 });
  });

  it("a client that stops reading closes the audit row as aborted with what was sent", async () => {
    const site = await formsSite();
    const form = await createForm(site);
    await seedLeads(site.id, form.id, 2_000);
    const key = await leadsKey(site);
    const res = await call("GET", exportPath(""), { key });
    const reader = res.body!.getReader();
    await reader.read();
    await reader.cancel();
    let row = (await auditRows(site.id))[0];
    for (let i = 0; i < 20 && row?.outcome === "started"; i++) {
      await new Promise((r) => setTimeout(r, 50));
      row = (await auditRows(site.id))[0];
    }
    expect(row).toMatchObject({ action: "leads.export", outcome: "aborted" });
    expect(row!.item_count).toBeGreaterThan(0);
    expect(row!.item_count).toBeLessThan(2_000);
  });

  it("another site's leads are never exported", async () => {
    const a = await formsSite();
    await createForm(a);
    const b = await formsSite();
    const bForm = await createForm(b);
    await submit(b, bForm.id, contactValues());
    const res = await call("GET", exportPath("&status=all"), { key: await leadsKey(a) });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("");
    const leadCount = await (await contentDbOf(b.id))
      .prepare("SELECT count(*) AS n FROM leads WHERE site_id = ?")
      .bind(b.id)
      .first<{ n: number }>();
    expect(leadCount!.n).toBe(1);
  });
});
