import { describe, expect, it } from "vitest";
import { call, createOrg, createSite, verifiedUser } from "../support/platform";

/**
 * Forms and leads across the Workers, through the gateway only: the forms app is installed through the
 * applets route (stored as `settings.applets.forms.enabled`), content learns it from the site push, staff define a form, a visitor submits it anonymously, and a key with
 * `leads:read` reads and exports the lead.
 */
describe("forms and leads journey", () => {
  it("from the forms app switch to an exported lead", async () => {
    const owner = await verifiedUser();
    const org = await createOrg(owner.access_token, "Forms org");
    const site = await createSite(owner.access_token, org.id);
    const token = owner.access_token;
    const definition = {
      name: "Contact",
      fields: [
        { name: "name", type: "text", required: true },
        { name: "email", type: "email", required: true },
      ],
    };

    // Without the app the forms area does not exist.
    expect((await call("POST", `/api/v1/sites/${site.id}/forms`, { token, body: definition })).status).toBe(
      404,
    );
    const installed = await call("PUT", `/api/v1/sites/${site.id}/applets/forms`, {
      token,
      body: { enabled: true },
    });
    expect(installed.status).toBe(200);

    const form = await call<{ id: string }>("POST", `/api/v1/sites/${site.id}/forms`, {
      token,
      body: definition,
    });
    expect(form.status).toBe(201);
    // The edge forwards no session to content's anonymous routes and needs none.
    const visitor = await call<{ token: string }>("GET", `/v1/sites/${site.id}/forms/${form.body.id}`);
    expect(visitor.status).toBe(200);
    const formToken = visitor.body.token;
    const [issued, mac] = formToken.split(".");
    expect(issued && mac).toBeTruthy();

    const submitted = await call("POST", `/v1/sites/${site.id}/forms/${form.body.id}/submissions`, {
      body: { name: "Visitor", email: "visitor@example.com", _token: formToken },
      headers: { origin: "https://visitor.example" },
    });
    expect(submitted.status).toBe(202);
    expect(submitted.headers.get("access-control-allow-origin")).toBe("https://visitor.example");

    const key = await call<{ key: string; scopes: string[] }>("POST", `/api/v1/sites/${site.id}/api-keys`, {
      token,
      body: { name: "CRM sync", kind: "secret", scopes: ["leads:read", "export"] },
    });
    expect(key.status).toBe(201);
    const headers = { authorization: `Bearer ${key.body.key}` };
    // Sent at once with the token of the form: flagged too_fast, kept as spam.
    const spam = await call<{ items: { fields: Record<string, string>; spam_reasons: string[] }[] }>(
      "GET",
      "/v1/leads?status=spam",
      { headers },
    );
    expect(spam.status).toBe(200);
    expect(spam.body.items.map((l) => [l.fields.name, l.spam_reasons])).toEqual([["Visitor", ["too_fast"]]]);
    const exported = await call(
      "GET",
      `/v1/export?resource=leads&status=all&format=csv&form_id=${form.body.id}`,
      {
        headers,
      },
    );
    expect(exported.status).toBe(200);
    expect(String(exported.body)).toContain("visitor@example.com");

    // Switching the app off hides the area at once (the push), and keeps the data.
    const uninstalled = await call("PUT", `/api/v1/sites/${site.id}/applets/forms`, {
      token,
      body: { enabled: false },
    });
    expect(uninstalled.status).toBe(200);
    expect((await call("GET", "/v1/leads?status=all", { headers })).status).toBe(404);
  });
});
