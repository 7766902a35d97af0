/**
 * The credential matrix's rows for content's registry (`src/content/credentials.ts`): one row per (kind,
 * ending event) pair, each making its own tenant, performing the event through the gateway as the person
 * or operator who ends it, and using the credential as its holder would before and after.
 */
import { expect } from "vitest";
import { freshIp } from "../../support/identity-helpers";
import { call, type Session } from "../../support/platform";
import { eventually } from "../../support/webhook-helpers";
import { withStepUp } from "./identity-steps";
import { type MatrixRows, row } from "./row";
import {
  archiveSite,
  type Buyer,
  buyer,
  deleteSite,
  demoteMember,
  eraseAccount,
  handOver,
  type MadeWebhook,
  type MintedKey,
  member,
  mintKey,
  pingWebhook,
  registerWebhook,
  removeMember,
  revokeKey,
  type Tenant,
  tenant,
  transferAway,
  writeWith,
} from "./site-steps";

/** The browser origin the public keys of these rows allow. */
const READER_ORIGIN = "https://reader.matrix.test";

type Creator = "owner" | "member";

interface Made {
  t: Tenant;
  /** Who made the credential: the owner, or an `org_admin` member whose grant the event may end. */
  creator: Session;
  /** A staff session that administers the site now (the buyer's owner once a transfer is accepted). */
  admin: Session;
}

async function arrangeBy(creator: Creator): Promise<Made> {
  const t = await tenant();
  const person = creator === "owner" ? t.owner : await member(t);
  return { t, creator: person, admin: t.owner };
}

/**
 * The ending events a row can perform on a tenant, after which `made.admin` administers the site. A row
 * that erases an account runs `alone`: identity's hourly run, at a time past the grace, also purges every
 * pending code, outbox message, unconfirmed signup and pending transfer of the runtime (other rows' too).
 */
const END: Record<string, { creator: Creator; end(made: Made): Promise<void> }> = {
  member_removal: { creator: "member", end: (m) => removeMember(m.t, m.creator) },
  member_demotion: { creator: "member", end: (m) => demoteMember(m.t, m.creator) },
  account_deletion: { creator: "member", end: (m) => eraseAccount(m.creator) },
  site_transfer: {
    creator: "owner",
    async end(m) {
      const to = await transferAway(m.t);
      m.admin = to.owner;
      // The buyer administers the site's integrations now: what ends below is the origin's credential.
      await eventually(
        async () =>
          (await call("GET", `/api/v1/sites/${m.t.site.id}/webhooks`, { token: to.owner.access_token }))
            .status,
        (status) => status === 200,
      );
    },
  },
  site_deletion: { creator: "owner", end: (m) => deleteSite(m.t) },
  site_archival: { creator: "owner", end: (m) => archiveSite(m.t.site.id) },
};

// ---- API keys (ck_, pk_, the export) ----

type KeyMade = Made & { key: MintedKey };

const SECRET = { kind: "secret" as const, scopes: ["posts:write"] };
const PUBLIC = { kind: "public" as const, scopes: ["posts:read"], allowed_origins: [READER_ORIGIN] };
const EXPORTER = { kind: "secret" as const, scopes: ["posts:write", "export"] };

/** A read of what the public site shows, from an origin the public key allows. */
async function readAsBrowser(key: string): Promise<number> {
  const read = await call("GET", `/v1/site?key=${encodeURIComponent(key)}`, {
    headers: { origin: READER_ORIGIN },
  });
  return read.status;
}

async function exportPosts(key: string): Promise<number> {
  return (await call("GET", "/v1/export?resource=posts", { token: key })).status;
}

function keyRows(
  id: string,
  body: typeof SECRET | typeof PUBLIC | typeof EXPORTER,
  use: (key: string) => Promise<number>,
  works: number,
  events: string[],
): MatrixRows {
  const rows: MatrixRows = {};
  for (const event of events) {
    const ending: { creator: Creator; end(m: KeyMade): Promise<void> } =
      event === "key_revocation"
        ? { creator: "owner", end: (m) => revokeKey(m.admin.access_token, m.t.site.id, m.key.id) }
        : END[event]!;
    rows[`${id} × ${event}`] = row<KeyMade>({
      async arrange() {
        const made = await arrangeBy(ending.creator);
        return { ...made, key: await mintKey(made.creator.access_token, made.t.site.id, body) };
      },
      use: (m) => use(m.key.key),
      end: (m) => ending.end(m),
      works,
      ended: 401,
      alone: event === "account_deletion",
    });
  }
  return rows;
}

const KEY_EVENTS = ["key_revocation", "member_removal", "member_demotion", "site_transfer", "site_deletion"];

// ---- Webhooks and their secrets ----

type HookMade = Made & { hook: MadeWebhook };

/** A signed ping sent now by the site's current administrator: 200, and verified, while the webhook works. */
async function pingAsAdmin(m: HookMade): Promise<number> {
  const ping = await pingWebhook(m.admin.access_token, m.hook, m.t.site.id);
  if (ping.status === 200) expect(ping.verified, "the receiver verified the ping").toBe(true);
  return ping.status;
}

function webhookRow(event: string) {
  const ending =
    event === "undo"
      ? {
          creator: "owner" as const,
          async end(m: HookMade) {
            const deleted = await call("DELETE", `/api/v1/sites/${m.t.site.id}/webhooks/${m.hook.id}`, {
              token: m.admin.access_token,
            });
            expect(deleted.status).toBe(204);
          },
        }
      : END[event]!;
  return row<HookMade>({
    async arrange() {
      const made = await arrangeBy(ending.creator);
      const hook = await registerWebhook(made.creator.access_token, made.t.site.id, [
        "post.published",
        "lead.created",
      ]);
      return { ...made, hook };
    },
    use: pingAsAdmin,
    end: (m) => ending.end(m),
    ended: 404,
    alone: event === "account_deletion",
  });
}

// ---- Kept integrations ----

type KeptMade = Made & { key: MintedKey; to: Buyer };

/** A key of the origin carried over by a transfer, then kept by the buyer's owner. */
async function keptKey(): Promise<KeptMade> {
  const made = await arrangeBy("owner");
  const key = await mintKey(made.t.owner.access_token, made.t.site.id, SECRET);
  const to = await transferAway(made.t);
  const keep = `/api/v1/sites/${made.t.site.id}/api-keys/${key.id}/keep`;
  // The carry-over happens in content's site-transferred consumer; until then there is nothing to keep.
  await eventually(
    async () => (await call("POST", keep, { token: to.owner.access_token })).status,
    (status) => status === 200,
  );
  return { ...made, admin: to.owner, key, to };
}

// ---- Preview links ----

type PreviewMade = Made & { key: MintedKey; postId: string; path: string };

async function previewLink(): Promise<PreviewMade> {
  const made = await arrangeBy("owner");
  return { ...made, ...(await previewOf(made)) };
}

/** A key of `made.creator`, a draft post written with it, and a preview link of the post made by the key. */
async function previewOf(made: Made): Promise<{ key: MintedKey; postId: string; path: string }> {
  const key = await mintKey(made.creator.access_token, made.t.site.id, SECRET);
  const post = await call<{ id: string }>("POST", "/v1/posts", {
    token: key.key,
    body: { title: "Draft under review", status: "draft" },
  });
  expect(post.status).toBe(201);
  const link = await call<{ url: string }>("POST", `/v1/posts/${post.body.id}/preview`, {
    token: key.key,
    body: { expires_in: 3600 },
  });
  expect(link.status, JSON.stringify(link.body)).toBe(200);
  return { key, postId: post.body.id, path: new URL(link.body.url).pathname };
}

function previewRow(end: (m: PreviewMade) => Promise<void>) {
  return row<PreviewMade>({
    arrange: previewLink,
    use: async (m) => (await call("GET", m.path)).status,
    end,
    ended: 404,
  });
}

async function byKey(m: PreviewMade, method: string, path: string) {
  const res = await call(method, path, { token: m.key.key });
  expect(res.status, JSON.stringify(res.body)).toBe(204);
}

// ---- A person's content access and the preview links a person makes (the dashboard routes, issue 34) ----

/** The site's dashboard path of the row's tenant. */
const dashboard = (m: Made) => `/api/v1/sites/${m.t.site.id}`;

/** The byline a person's posts need (identity's display name). */
async function named(person: Session): Promise<void> {
  const res = await call("PATCH", "/api/v1/auth/me", {
    token: person.access_token,
    body: { display_name: `Matrix ${person.user.id.slice(-6)}` },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** A write as the person: a draft on the dashboard route (201 while the grant holds). */
async function writeAsPerson(m: Made): Promise<number> {
  const made = await call("POST", `${dashboard(m)}/posts`, {
    token: m.creator.access_token,
    body: { title: `Matrix ${crypto.randomUUID()}`, status: "draft" },
  });
  return made.status;
}

/** What a person's next write answers once the event ended their grant, as the operation answers it. */
const PERSON_ENDED: Record<string, number> = {
  member_removal: 404,
  member_demotion: 403,
  site_transfer: 404,
  site_deletion: 404,
  site_archival: 404,
  account_deletion: 401,
  sign_out_everywhere: 401,
};

function personGrantRow(event: string) {
  const ending =
    event === "sign_out_everywhere"
      ? {
          creator: "member" as const,
          async end(m: Made) {
            const who = { email: m.creator.user.email, access_token: m.creator.access_token };
            const out = await withStepUp(who, "DELETE", "/api/v1/auth/sessions");
            expect(out.status, JSON.stringify(out.body)).toBe(204);
          },
        }
      : END[event]!;
  return row<Made>({
    async arrange() {
      const made = await arrangeBy(ending.creator);
      await named(made.creator);
      return made;
    },
    use: writeAsPerson,
    end: (m) => ending.end(m),
    works: 201,
    ended: PERSON_ENDED[event]!,
    alone: event === "account_deletion",
  });
}

type PersonPreviewMade = Made & { postId: string; path: string };

/** A draft of the person and a preview link of it, both made on the dashboard routes. */
async function personPreviewOf(made: Made): Promise<PersonPreviewMade> {
  await named(made.creator);
  const post = await call<{ id: string }>("POST", `${dashboard(made)}/posts`, {
    token: made.creator.access_token,
    body: { title: "A person's draft under review", status: "draft" },
  });
  expect(post.status, JSON.stringify(post.body)).toBe(201);
  const link = await call<{ url: string }>("POST", `${dashboard(made)}/posts/${post.body.id}/preview`, {
    token: made.creator.access_token,
    body: { expires_in: 3600 },
  });
  expect(link.status, JSON.stringify(link.body)).toBe(200);
  return { ...made, postId: post.body.id, path: new URL(link.body.url).pathname };
}

function personPreviewRow(event: string) {
  const asPerson = (method: string, path: (m: PersonPreviewMade) => string) => ({
    creator: "member" as const,
    async end(m: PersonPreviewMade) {
      const res = await call(method, path(m), { token: m.creator.access_token });
      expect(res.status, JSON.stringify(res.body)).toBe(204);
    },
  });
  const ending =
    event === "rotation"
      ? asPerson("DELETE", (m) => `${dashboard(m)}/posts/${m.postId}/preview`)
      : event === "post_deletion"
        ? asPerson("DELETE", (m) => `${dashboard(m)}/posts/${m.postId}`)
        : END[event]!;
  return row<PersonPreviewMade>({
    arrange: async () => personPreviewOf(await arrangeBy(ending.creator)),
    use: async (m) => (await call("GET", m.path)).status,
    end: (m) => ending.end(m),
    ended: 404,
    alone: event === "account_deletion",
  });
}

const PERSON_GRANT_EVENTS = [
  "member_removal",
  "member_demotion",
  "site_transfer",
  "site_deletion",
  "site_archival",
  "account_deletion",
  "sign_out_everywhere",
];
const PERSON_PREVIEW_EVENTS = [
  "rotation",
  "post_deletion",
  "member_removal",
  "member_demotion",
  "account_deletion",
  "site_transfer",
  "site_deletion",
  "site_archival",
];

// ---- Form tokens ----

interface FormMade {
  t: Tenant;
  formId: string;
  token: string;
  issuedAt: number;
  leadsKey: MintedKey;
}

/** The forms app, a contact form, a key that reads leads, and a visitor's token for the form. */
async function formToken(): Promise<FormMade> {
  const t = await tenant();
  const token = t.owner.access_token;
  const on = await call("PUT", `/api/v1/sites/${t.site.id}/applets/forms`, {
    token,
    body: { enabled: true },
  });
  expect(on.status, JSON.stringify(on.body)).toBe(200);
  const form = await call<{ id: string }>("POST", `/api/v1/sites/${t.site.id}/forms`, {
    token,
    body: { name: "Contact", fields: [{ name: "email", type: "email", required: true }] },
  });
  expect(form.status, JSON.stringify(form.body)).toBe(201);
  const visitor = await call<{ token: string }>("GET", `/v1/sites/${t.site.id}/forms/${form.body.id}`);
  expect(visitor.status).toBe(200);
  const issuedAt = Date.now();
  const leadsKey = await mintKey(token, t.site.id, { kind: "secret", scopes: ["leads:read"] });
  return { t, formId: form.body.id, token: visitor.body.token, issuedAt, leadsKey };
}

interface LeadOut {
  status: "clean" | "spam";
  spam_reasons: string[];
  fields: Record<string, unknown>;
}

/**
 * A submission with the token. The visitor always gets 202 (the spam model: a bot learns nothing), so the
 * answer here is what the token bought: 202 for a clean lead, 403 for one flagged `reused_token` (the
 * refusal the submitter is never shown).
 */
async function submitWithToken(m: FormMade): Promise<number> {
  // A clean lead needs a token at least 3 s old (`too_fast` otherwise): the form page open a moment.
  const wait = m.issuedAt + 3_200 - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  const email = `visitor-${crypto.randomUUID()}@example.com`;
  const sent = await call("POST", `/v1/sites/${m.t.site.id}/forms/${m.formId}/submissions`, {
    body: { email, _token: m.token },
    headers: { origin: "https://visitor.matrix.test", "cf-connecting-ip": freshIp() },
  });
  expect(sent.status).toBe(202);
  const leads = await call<{ items: LeadOut[] }>("GET", `/v1/leads?status=all&form_id=${m.formId}`, {
    token: m.leadsKey.key,
  });
  expect(leads.status).toBe(200);
  const lead = leads.body.items.find((l) => l.fields.email === email);
  expect(lead, "the submission is kept as a lead").toBeDefined();
  if (lead!.status === "clean") return 202;
  expect(lead!.spam_reasons).toEqual(["reused_token"]);
  return 403;
}

/** A preview link made by a member's key, which ends with the member's grant (`end`). */
function previewByMemberRow(end: (m: PreviewMade) => Promise<void>) {
  return row<PreviewMade>({
    async arrange() {
      const made = await arrangeBy("member");
      return { ...made, ...(await previewOf(made)) };
    },
    use: async (m) => (await call("GET", m.path)).status,
    end,
    ended: 404,
  });
}

export const rows: MatrixRows = {
  ...keyRows("content.secret_key", SECRET, writeWith, 201, [
    ...KEY_EVENTS,
    "account_deletion",
    "site_archival",
  ]),
  ...keyRows("content.public_key", PUBLIC, readAsBrowser, 200, [...KEY_EVENTS, "site_archival"]),
  ...keyRows("content.export", EXPORTER, exportPosts, 200, ["key_revocation", "site_transfer"]),

  "content.webhook × undo": webhookRow("undo"),
  "content.webhook × member_removal": webhookRow("member_removal"),
  "content.webhook × member_demotion": webhookRow("member_demotion"),
  "content.webhook × account_deletion": webhookRow("account_deletion"),
  "content.webhook × site_transfer": webhookRow("site_transfer"),
  "content.webhook × site_deletion": webhookRow("site_deletion"),
  "content.webhook × site_archival": webhookRow("site_archival"),

  "content.webhook_secret × rotation": row<HookMade>({
    async arrange() {
      const made = await arrangeBy("owner");
      return { ...made, hook: await registerWebhook(made.creator.access_token, made.t.site.id) };
    },
    // What the receiver, trusting the secret shown at registration, answers to a signed ping: 204 when the
    // signature verifies, 401 when it does not.
    async use(m) {
      const ping = await pingWebhook(m.admin.access_token, m.hook, m.t.site.id);
      expect(ping.status).toBe(200);
      return ping.verified ? 204 : 401;
    },
    async end(m) {
      const rotated = await call("POST", `/api/v1/sites/${m.t.site.id}/webhooks/${m.hook.id}/rotate-secret`, {
        token: m.admin.access_token,
      });
      expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    },
    works: 204,
    ended: 401,
  }),

  "content.kept_integration × key_revocation": row<KeptMade>({
    arrange: keptKey,
    use: (m) => writeWith(m.key.key),
    end: (m) => revokeKey(m.to.owner.access_token, m.t.site.id, m.key.id),
    works: 201,
    ended: 401,
  }),
  "content.kept_integration × site_transfer": row<KeptMade>({
    arrange: keptKey,
    use: (m) => writeWith(m.key.key),
    end: async (m) => handOver(m.to, m.t.site.id, await buyer()),
    works: 201,
    ended: 401,
  }),

  "content.preview_link × rotation": previewRow((m) => byKey(m, "DELETE", `/v1/posts/${m.postId}/preview`)),
  "content.preview_link × post_deletion": previewRow((m) => byKey(m, "DELETE", `/v1/posts/${m.postId}`)),
  "content.preview_link × key_revocation": previewRow((m) =>
    revokeKey(m.admin.access_token, m.t.site.id, m.key.id),
  ),
  "content.preview_link × member_removal": previewByMemberRow((m) => removeMember(m.t, m.creator)),
  "content.preview_link × member_demotion": previewByMemberRow((m) => demoteMember(m.t, m.creator)),
  "content.preview_link × site_transfer": previewRow(async (m) => {
    await transferAway(m.t);
  }),
  "content.preview_link × site_deletion": previewRow((m) => deleteSite(m.t)),
  "content.preview_link × site_archival": previewRow((m) => archiveSite(m.t.site.id)),

  ...Object.fromEntries(
    PERSON_GRANT_EVENTS.map((event) => [`content.person_grant × ${event}`, personGrantRow(event)]),
  ),
  ...Object.fromEntries(
    PERSON_PREVIEW_EVENTS.map((event) => [`content.person_preview_link × ${event}`, personPreviewRow(event)]),
  ),

  "content.form_token × use": row<FormMade>({
    arrange: formToken,
    use: submitWithToken,
    // The ending is the use itself: the first submission above already spent the token; this is the reuse
    // a replaying bot makes, and the next use shows the token buys no clean lead any more.
    async end(m) {
      await submitWithToken(m);
    },
    works: 202,
    ended: 403,
  }),
};
