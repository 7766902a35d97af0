/** The anonymous side of forms: a form's definition for visitors and the submission route. */
import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { BASE, call, content, ownerHeaders, problem, tenant } from "../support/content-helpers";
import {
  contactForm,
  contactValues,
  createForm,
  freshIp,
  setFormsApp,
  storedLeads,
  submissionPath,
  submit,
  tokenIssued,
} from "../support/leads-helpers";

describe("GET /v1/sites/{site_id}/forms/{form_id} (anonymous)", () => {
  it("answers the declared fields and a fresh form token, never cached", async () => {
    const { site, form } = await contactForm();
    const res = await call("GET", `/v1/sites/${site.id}/forms/${form.id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      id: form.id,
      name: "Contact",
      honeypot_field: "_hp",
      token_field: "_token",
      page_field: "_page",
    });
    expect((body.fields as { name: string }[]).map((f) => f.name)).toEqual([
      "name",
      "email",
      "message",
      "website",
      "topic",
      "seats",
      "consent",
    ]);
    expect(body.token).toMatch(/^[0-9a-z]+\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{22}$/);
  });
});

describe("POST /v1/sites/{site_id}/forms/{form_id}/submissions: clean submissions", () => {
  it("a JSON submission with a token older than the minimum fill time is stored clean: 202 received", async () => {
    const { site, form } = await contactForm();
    const res = await submit(site, form.id, {
      ...contactValues({
        email: "ana@example.com",
        website: "https://ana.example",
        topic: "sales",
        seats: 3,
      }),
      _page: "https://site.example/contact?utm=x",
      _hp: "",
      submit: "Send",
    });
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ status: "received" });
    const [lead] = await storedLeads(site.id);
    expect(lead).toMatchObject({
      status: "clean",
      spam_reasons: [],
      page_url: "https://site.example/contact?utm=x",
      fields: {
        name: "Ana Souza",
        email: "ana@example.com",
        message: "Hello, I would like a quote.",
        website: "https://ana.example",
        topic: "sales",
        seats: 3,
        consent: true,
      },
    });
    // Undeclared names (a submit button) are not stored.
    expect(Object.keys(lead!.fields)).not.toContain("submit");
  });

  it("a form-encoded submission (an HTML form) is stored clean, with checkbox and number read from text", async () => {
    const { site, form } = await contactForm();
    const res = await submit(site, form.id, contactValues({ consent: "on", seats: "12" }), {
      contentType: "application/x-www-form-urlencoded",
    });
    expect(res.status).toBe(202);
    const [lead] = await storedLeads(site.id);
    expect(lead).toMatchObject({ status: "clean", fields: { consent: true, seats: 12 } });
  });
});

describe("spam rules: flagged and kept, answered like a clean submission", () => {
  async function reasonsOf(body: Record<string, unknown>, options: Parameters<typeof submit>[3] = {}) {
    const { site, form } = await contactForm();
    const res = await submit(site, form.id, body, options);
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ status: "received" });
    const leads = await storedLeads(site.id);
    expect(leads).toHaveLength(1);
    return { status: leads[0]!.status, reasons: leads[0]!.spam_reasons };
  }

  it("honeypot: the hidden field filled in", async () => {
    expect(await reasonsOf({ ...contactValues(), _hp: "http://buy.example" })).toEqual({
      status: "spam",
      reasons: ["honeypot"],
    });
  });

  it("no token at all", async () => {
    expect(await reasonsOf(contactValues(), { token: null })).toEqual({
      status: "spam",
      reasons: ["no_token"],
    });
  });

  it("a token that does not verify, or was made for another form", async () => {
    expect(await reasonsOf(contactValues(), { token: "lzz0.AAAAAAAAAAAAAAAAAAAAAA" })).toEqual({
      status: "spam",
      reasons: ["bad_token"],
    });
    const other = await tokenIssued(newId(), newId());
    expect(await reasonsOf(contactValues(), { token: other })).toEqual({
      status: "spam",
      reasons: ["bad_token"],
    });
  });

  it("minimum fill time: sent back within 3 s of the token (the token of GET form, used at once)", async () => {
    const { site, form } = await contactForm();
    const { token } = (await (await call("GET", `/v1/sites/${site.id}/forms/${form.id}`)).json()) as {
      token: string;
    };
    expect((await submit(site, form.id, contactValues(), { token })).status).toBe(202);
    expect((await storedLeads(site.id))[0]).toMatchObject({ status: "spam", spam_reasons: ["too_fast"] });
  });

  it("a token older than 24 hours (a replayed harvest)", async () => {
    const { site, form } = await contactForm();
    const token = await tokenIssued(site.id, form.id, 25 * 60 * 60 * 1000);
    const stale = await submit(site, form.id, contactValues(), { token });
    expect(stale.status).toBe(202);
    expect((await storedLeads(site.id))[0]!.spam_reasons).toEqual(["stale_token"]);
  });

  it("links: more than 2 in the text (url fields not counted)", async () => {
    const two = await reasonsOf(
      contactValues({ message: "see https://a.example and www.b.example", website: "https://mine.example" }),
    );
    expect(two).toEqual({ status: "clean", reasons: [] });
    const three = await reasonsOf(
      contactValues({ message: "https://a.example http://b.example [url=c]cheap[/url]" }),
    );
    expect(three).toEqual({ status: "spam", reasons: ["links"] });
  });

  it("duplicate: the same values to the same form within 10 minutes", async () => {
    const { site, form } = await contactForm();
    const values = contactValues();
    expect((await submit(site, form.id, values)).status).toBe(202);
    expect((await submit(site, form.id, values)).status).toBe(202);
    const [second, first] = await storedLeads(site.id);
    expect(first).toMatchObject({ status: "clean", spam_reasons: [] });
    expect(second).toMatchObject({ status: "spam", spam_reasons: ["duplicate"] });
    // Other values are not a duplicate.
    expect((await submit(site, form.id, contactValues())).status).toBe(202);
    expect((await storedLeads(site.id))[0]).toMatchObject({ status: "clean" });
  });

  it("per-IP burst: more than 3 quick submissions from one address to one site are flagged (rate)", async () => {
    const { site, form } = await contactForm();
    const ip = freshIp();
    for (let i = 0; i < 5; i++)
      expect((await submit(site, form.id, contactValues(), { ip })).status).toBe(202);
    const statuses = (await storedLeads(site.id)).reverse().map((l) => [l.status, l.spam_reasons]);
    expect(statuses).toEqual([
      ["clean", []],
      ["clean", []],
      ["clean", []],
      ["spam", ["rate"]],
      ["spam", ["rate"]],
    ]);
    // Another address is unaffected.
    expect((await submit(site, form.id, contactValues())).status).toBe(202);
    expect((await storedLeads(site.id))[0]).toMatchObject({ status: "clean" });
  });

  it("several rules at once are all recorded", async () => {
    expect(
      await reasonsOf(
        { ...contactValues({ message: "https://a https://b https://c" }), _hp: "x" },
        { token: null },
      ),
    ).toEqual({ status: "spam", reasons: ["honeypot", "no_token", "links"] });
  });
});

describe("per-IP limit", () => {
  it("the 21st submission from one address to one site inside the window is 429 with Retry-After, not stored", async () => {
    const { site, form } = await contactForm();
    const ip = freshIp();
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await submit(site, form.id, contactValues(), { ip })).status);
    expect(statuses.every((s) => s === 202)).toBe(true);
    const limited = await submit(site, form.id, contactValues(), { ip });
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(30);
    expect((await problem(limited)).code).toBe("RATE_LIMITED");
    expect(await storedLeads(site.id)).toHaveLength(20);
  });
});

describe("unavailable forms: one opaque 404", () => {
  it("app off, missing form, another site's form, a deleted form, a bad id, a site that is not live: same status and body", async () => {
    const { site, form } = await contactForm();
    const other = await contactForm();
    const off = await contactForm();
    await setFormsApp(off.site, false);
    const gone = await createForm(site, { name: "Old" });
    await call("DELETE", `/api/v1/sites/${site.id}/forms/${gone.id}`, { headers: ownerHeaders(site) });
    const archived = await contactForm();
    await content.syncSite({
      ...archived.site,
      status: "archived",
      updated_at: new Date(Date.now() + 5000).toISOString(),
    });

    const missing = await submit(site, newId(), contactValues());
    expect(missing.status).toBe(404);
    const body = await missing.text();
    const cases: [string, Promise<Response>][] = [
      ["another site's form", submit(site, other.form.id, contactValues())],
      ["form under the wrong site", submit(other.site, form.id, contactValues())],
      ["forms app off", submit(off.site, off.form.id, contactValues())],
      ["deleted form", submit(site, gone.id, contactValues())],
      ["archived site", submit(archived.site, archived.form.id, contactValues())],
      ["malformed form id", submit(site, "not-an-id", contactValues())],
    ];
    for (const [name, pending] of cases) {
      const res = await pending;
      expect(res.status, name).toBe(404);
      expect(await res.text(), name).toBe(body);
    }
    const visitorGet = await call("GET", `/v1/sites/${off.site.id}/forms/${off.form.id}`);
    expect(visitorGet.status).toBe(404);
    expect(await visitorGet.text()).toBe(body);
    expect(await storedLeads(site.id)).toHaveLength(0);
    expect(await storedLeads(off.site.id)).toHaveLength(0);
  });

  it("switching the app back on restores the form (nothing was deleted)", async () => {
    const { site, form } = await contactForm();
    const off = await setFormsApp(site, false);
    expect((await submit(site, form.id, contactValues())).status).toBe(404);
    await setFormsApp(off, true);
    expect((await submit(site, form.id, contactValues())).status).toBe(202);
  });

  it("a site key's own routes are no way in: the submission route needs no key and ignores one", async () => {
    const t = await tenant({ forms_enabled: true });
    const form = await createForm(t.site);
    const res = await content.fetch(
      new Request(`${BASE}${submissionPath(t.site.id, form.id)}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${t.ck}` },
        body: JSON.stringify({ ...contactValues(), _token: await tokenIssued(t.site.id, form.id) }),
      }),
    );
    expect(res.status).toBe(202);
  });
});

describe("validation of declared fields: 400 naming the field", () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ["a required field missing", { name: undefined }, "name"],
    ["a required field blank", { name: "   " }, "name"],
    ["an invalid e-mail", { email: "not-an-email" }, "email"],
    ["a url that is not http(s)", { website: "javascript:alert(1)" }, "website"],
    ["a select outside its options", { topic: "refunds" }, "topic"],
    ["a number that is not one", { seats: "twelve" }, "seats"],
    ["a required checkbox unchecked", { consent: false }, "consent"],
    ["a text longer than its maximum", { name: "x".repeat(201) }, "name"],
    ["control characters in a one-line field", { name: "Ana\u0000" }, "name"],
    ["a line break in a one-line field", { name: "Ana\nSouza" }, "name"],
    ["an object for a value", { message: { html: "<b>" } }, "message"],
  ];
  for (const [name, change, field] of cases) {
    it(name, async () => {
      const { site, form } = await contactForm();
      const values = contactValues(change);
      for (const [k, v] of Object.entries(change)) if (v === undefined) delete values[k];
      const res = await submit(site, form.id, values);
      expect(res.status).toBe(400);
      const body = (await res.json()) as { code: string; details: { field: string } };
      expect(body.code).toBe("INVALID_FIELD");
      expect(body.details.field).toBe(field);
      expect(await storedLeads(site.id)).toHaveLength(0);
    });
  }

  it("a textarea keeps its line breaks", async () => {
    const { site, form } = await contactForm();
    expect((await submit(site, form.id, contactValues({ message: "line 1\r\nline 2" }))).status).toBe(202);
    expect((await storedLeads(site.id))[0]!.fields.message).toBe("line 1\nline 2");
  });
});

describe("body limits and types", () => {
  it("above 32 KiB is 413; neither JSON nor form-encoded is 415; a JSON array or broken JSON is 400", async () => {
    const { site, form } = await contactForm();
    const big = await submit(site, form.id, contactValues({ message: "x".repeat(33 * 1024) }));
    expect(big.status).toBe(413);
    expect((await problem(big)).code).toBe("PAYLOAD_TOO_LARGE");
    const multipart = await submit(site, form.id, "name=x", { contentType: "text/plain" });
    expect(multipart.status).toBe(415);
    expect((await submit(site, form.id, "[1,2]")).status).toBe(400);
    expect((await submit(site, form.id, "{broken")).status).toBe(400);
    expect(await storedLeads(site.id)).toHaveLength(0);
  });

  it("a field sent twice in a form-encoded body is refused, not guessed", async () => {
    const { site, form } = await contactForm();
    const token = await tokenIssued(site.id, form.id);
    const body = `name=Ana&name=Bob&email=a%40example.com&consent=on&_token=${encodeURIComponent(token)}`;
    const res = await submit(site, form.id, body, { contentType: "application/x-www-form-urlencoded" });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { details: { field: string } }).details.field).toBe("name");
  });

  it("a browser preflight for a submission allows POST with Content-Type", async () => {
    const { site, form } = await contactForm();
    const res = await content.fetch(
      new Request(`${BASE}${submissionPath(site.id, form.id)}`, {
        method: "OPTIONS",
        headers: { origin: "https://site.example", "access-control-request-method": "POST" },
      }),
    );
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-methods")).toBe("POST");
    expect(res.headers.get("access-control-allow-headers")).toBe("Content-Type");
  });
});
