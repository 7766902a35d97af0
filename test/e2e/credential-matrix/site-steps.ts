/**
 * The steps the content and sites rows of the credential matrix share (test/e2e/credential-matrix/content.ts,
 * sites.ts): a tenant of its own, the people and keys a row needs, and the ending events as the person or
 * operator who ends them performs them through the gateway. Each call makes what it needs; nothing is
 * shared between rows but the platform operator, who only ever archives (never a credential under test).
 */
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { call, createOrg, createSite, outboxCode, type Session, verifiedUser } from "../../support/platform";
import { eventually, inbox, received, trustSecrets } from "../../support/webhook-helpers";

export interface Tenant {
  owner: Session;
  org: { id: string; slug: string };
  site: { id: string; slug: string };
}

/** A verified owner, an organization and a site of its own. */
export async function tenant(label = "Matrix"): Promise<Tenant> {
  const owner = await verifiedUser();
  const org = await createOrg(owner.access_token, label);
  const site = await createSite(owner.access_token, org.id);
  return { owner, org, site };
}

export interface MintedKey {
  id: string;
  key: string;
}

/** A key of the site, minted by the staff session `token` (which must hold `integrations`). */
export async function mintKey(
  token: string,
  siteId: string,
  body: { kind: "secret" | "public"; scopes: string[]; allowed_origins?: string[] },
): Promise<MintedKey> {
  const made = await call<MintedKey>("POST", `/api/v1/sites/${siteId}/api-keys`, {
    token,
    body: { name: `matrix ${body.kind} key`, ...body },
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return made.body;
}

/** The key's administrator revokes it (`key_revocation`). */
export async function revokeKey(token: string, siteId: string, keyId: string): Promise<void> {
  const revoked = await call("DELETE", `/api/v1/sites/${siteId}/api-keys/${keyId}`, { token });
  expect(revoked.status, JSON.stringify(revoked.body)).toBe(204);
}

/** A write by the key: 201 while it works, 401 (the revoked key's answer) once it does not. */
export async function writeWith(key: string): Promise<number> {
  const made = await call("POST", "/v1/posts", {
    token: key,
    body: { title: `Matrix ${crypto.randomUUID()}`, status: "draft" },
  });
  return made.status;
}

/** A new verified account added to the tenant's organization in `role` (`org_admin` holds `integrations`). */
export async function member(t: Tenant, role = "org_admin"): Promise<Session> {
  const person = await verifiedUser();
  const added = await call("POST", `/api/v1/auth/orgs/${t.org.id}/members`, {
    token: t.owner.access_token,
    body: { email: person.user.email, role },
  });
  expect(added.status, JSON.stringify(added.body)).toBe(201);
  return person;
}

/** An owner removes the member from the organization (`member_removal`). */
export async function removeMember(t: Tenant, person: Session): Promise<void> {
  const removed = await call("DELETE", `/api/v1/auth/orgs/${t.org.id}/members/${person.user.id}`, {
    token: t.owner.access_token,
  });
  expect(removed.status, JSON.stringify(removed.body)).toBe(204);
}

/** An owner changes the member's role to `org_member`, which reads only (`member_demotion`). */
export async function demoteMember(t: Tenant, person: Session): Promise<void> {
  const demoted = await call("PATCH", `/api/v1/auth/orgs/${t.org.id}/members/${person.user.id}`, {
    token: t.owner.access_token,
    body: { role: "org_member" },
  });
  expect(demoted.status, JSON.stringify(demoted.body)).toBe(200);
}

export interface Buyer {
  owner: Session;
  org: { id: string; slug: string };
}

/** Another organization of its own, to buy (or share) a site. */
export async function buyer(label = "Buyer"): Promise<Buyer> {
  const owner = await verifiedUser();
  return { owner, org: await createOrg(owner.access_token, label) };
}

/**
 * The site's organization offers it to `to` and `to`'s owner accepts (`site_transfer`, or a share when
 * `mode` says so). `from` is the organization that owns the site now (a second transfer passes the buyer).
 */
export async function handOver(
  from: { owner: Session; org: { id: string } },
  siteId: string,
  to: Buyer,
  mode: "transfer" | "share" = "transfer",
): Promise<void> {
  const offer = await call<{ id: string }>("POST", `/api/v1/auth/orgs/${from.org.id}/transfers`, {
    token: from.owner.access_token,
    body: {
      site_id: siteId,
      to_org_slug: to.org.slug,
      mode,
      ...(mode === "share" ? { share_role: "editor" } : {}),
    },
  });
  expect(offer.status, JSON.stringify(offer.body)).toBe(200);
  const accepted = await call("POST", `/api/v1/auth/orgs/${to.org.id}/transfers/${offer.body.id}/accept`, {
    token: to.owner.access_token,
  });
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
}

/** A new buyer organization accepts the tenant's site (`site_transfer`); the buyer is returned. */
export async function transferAway(t: Tenant): Promise<Buyer> {
  const to = await buyer();
  await handOver(t, t.site.id, to);
  return to;
}

/** The owner deletes the site (`site_deletion`: the customer's soft delete). */
export async function deleteSite(t: Tenant): Promise<void> {
  const deleted = await call("DELETE", `/api/v1/sites/${t.site.id}`, { token: t.owner.access_token });
  expect(deleted.status, JSON.stringify(deleted.body)).toBe(204);
}

let operator: Promise<Session> | null = null;

/** A platform operator (`operator_admin`), granted as `npm run operator -- grant` does; one per file. */
function platformOperator(): Promise<Session> {
  operator ??= (async () => {
    const person = await verifiedUser();
    await (env as unknown as { TEST_IDENTITY_DB: D1Database }).TEST_IDENTITY_DB.prepare(
      "INSERT INTO platform_operators (user_id, capability, granted_at) VALUES (?, 'operator_admin', ?)",
    )
      .bind(person.user.id, new Date().toISOString())
      .run();
    return person;
  })();
  return operator;
}

/** A platform operator archives the site (`site_archival`). */
export async function archiveSite(siteId: string): Promise<void> {
  const op = await platformOperator();
  const archived = await call<{ status: string }>("POST", `/api/v1/platform/sites/${siteId}/archive`, {
    token: op.access_token,
    body: { reason: "credential matrix" },
  });
  expect(archived.status, JSON.stringify(archived.body)).toBe(200);
  expect(archived.body.status).toBe("archived");
}

/**
 * The person asks for the account's deletion (with the step-up code) and identity's hourly run erases it
 * past the grace period (`account_deletion`), as its cron does through the service binding.
 */
export async function eraseAccount(person: Session): Promise<void> {
  const path = "/api/v1/auth/account";
  expect((await call("DELETE", path, { token: person.access_token })).status).toBe(428);
  const code = await outboxCode(person.user.email, "sensitive_action");
  const requested = await call<{ erase_after: string }>("DELETE", path, {
    token: person.access_token,
    headers: { "x-step-up-code": code },
  });
  expect(requested.status, JSON.stringify(requested.body)).toBe(202);
  type Scheduled = { scheduled(o: { cron: string; scheduledTime: Date }): Promise<unknown> };
  const identity = (env as unknown as { IDENTITY: Scheduled }).IDENTITY;
  const pastGrace = Date.parse(requested.body.erase_after) + 24 * 3600_000;
  await identity.scheduled({ cron: "0 * * * *", scheduledTime: new Date(pastGrace) });
}

export interface MadeWebhook {
  id: string;
  secret: string;
  box: string;
}

/** A webhook registered by the staff session `token`, its receiver trusting the secret shown once. */
export async function registerWebhook(
  token: string,
  siteId: string,
  events: string[] = ["post.published"],
): Promise<MadeWebhook> {
  const { box, url } = inbox();
  const made = await call<{ id: string; secret: string }>("POST", `/api/v1/sites/${siteId}/webhooks`, {
    token,
    body: { url, events },
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  await trustSecrets(box, [made.body.secret]);
  return { id: made.body.id, secret: made.body.secret, box };
}

interface Ping {
  status: number;
  /** Whether the receiver verified the signature of the ping it got (null: the ping was refused, 404). */
  verified: boolean | null;
}

/**
 * `POST …/webhooks/{id}/test` by the staff session `token`: one signed ping, sent now; the receiver's
 * verdict is read from what it recorded (it judges the signature whether or not the sender waited for its
 * answer: the tests' delivery deadline is 1 s, short on a machine busy with the matrix's other rows). A
 * ping that reached no receiver is sent once more (5 pings per webhook per minute).
 */
export async function pingWebhook(token: string, hook: MadeWebhook, siteId: string): Promise<Ping> {
  for (let attempt = 1; ; attempt++) {
    const before = (await received(hook.box)).length;
    const pinged = await call("POST", `/api/v1/sites/${siteId}/webhooks/${hook.id}/test`, { token });
    if (pinged.status !== 200) return { status: pinged.status, verified: null };
    const got = await eventually(
      () => received(hook.box),
      (ds) => ds.length > before,
      3_000,
    ).catch(() => null);
    if (got) return { status: 200, verified: got[got.length - 1]!.verified };
    if (attempt === 2) throw new Error(`the ping of webhook ${hook.id} reached no receiver, twice`);
  }
}
