/**
 * Issue 19, item 1, replayed as the attacker did, through the gateway and across the real queues: before
 * offering a site, organization A gives a second account of its own `site_owner`, mints a `ck_` key and
 * registers a webhook. Once B accepts a `transfer`, every one of those grants is refused (member 404, no key
 * minted, key 401, webhook not delivered) until B's admins explicitly keep an integration; a `share` keeps
 * them all (the origin still owns the site).
 */
import type { TOTP } from "otpauth";
import { describe, expect, it } from "vitest";
import { freshIp } from "../support/identity-helpers";
import {
  type CallResult,
  call,
  createOrg,
  createSite,
  joinSiteByInvitation,
  PASSWORD,
  type Session,
  totpFor,
  verifiedUser,
} from "../support/platform";
import { eventually, inbox, payloads, received, trustSecrets } from "../support/webhook-helpers";

interface KeyView {
  id: string;
  carried_over: { from_org_id: string; at: string } | null;
}
interface HookView {
  id: string;
  carried_over: { from_org_id: string; at: string } | null;
}
interface TransferOut {
  id: string;
  will_end: {
    site_members: number;
    pending_invitations: number;
    api_keys: number | null;
    webhooks: number | null;
  } | null;
}

/** A second account of the origin's own, made `site_owner` of the site through an invitation. */
async function secondOwner(origin: Session, siteId: string) {
  const { session: joined, email } = await joinSiteByInvitation(origin.access_token, siteId, "owner", {
    "cf-connecting-ip": freshIp(),
  });
  // Staff sign in with a second factor: the account enrols TOTP, to open a fresh session later.
  const session = joined.access_token;
  const enrol = await call<{ secret: string }>("POST", "/api/v1/auth/mfa/totp", { token: session });
  expect(enrol.status).toBe(200);
  const totp = totpFor(enrol.body.secret);
  const confirmed = await call("POST", "/api/v1/auth/mfa/totp/confirm", {
    token: session,
    body: { code: totp.generate() },
  });
  expect(confirmed.status).toBeLessThan(300);
  return { email, access_token: session, totp };
}

/** A new session of the account (its own edge-context cache entry), with the next window's TOTP code. */
async function signIn(account: { email: string; totp: TOTP }): Promise<string> {
  const login = await call<{ access_token: string }>("POST", "/api/v1/auth/login", {
    body: {
      email: account.email,
      password: PASSWORD,
      totp_code: account.totp.generate({ timestamp: Date.now() + 30_000 }),
    },
    headers: { "cf-connecting-ip": freshIp() },
  });
  expect(login.status).toBe(200);
  return login.body.access_token;
}

/** The origin's integrations: a ck_ key that writes, reads leads and exports, and a post.published webhook. */
async function integrations(origin: Session, siteId: string) {
  const key = await call<{ id: string; key: string }>("POST", `/api/v1/sites/${siteId}/api-keys`, {
    token: origin.access_token,
    body: { name: "origin autoposter", kind: "secret", scopes: ["posts:write", "leads:read", "export"] },
  });
  expect(key.status).toBe(201);
  const { box, url } = inbox();
  const hook = await call<{ id: string; secret: string }>("POST", `/api/v1/sites/${siteId}/webhooks`, {
    token: origin.access_token,
    body: { url, events: ["post.published"] },
  });
  expect(hook.status).toBe(201);
  await trustSecrets(box, [hook.body.secret]);
  return { key: key.body, hook: hook.body, box };
}

const publish = (key: string, title: string) =>
  call<{ id: string }>("POST", "/v1/posts", { token: key, body: { title, status: "published" } });

async function parties() {
  const origin = await verifiedUser();
  const destination = await verifiedUser();
  const from = await createOrg(origin.access_token, "Origin");
  const to = await createOrg(destination.access_token, "Destination");
  const site = await createSite(origin.access_token, from.id);
  return { origin, destination, from, to, site };
}

async function offerAndAccept(
  p: Awaited<ReturnType<typeof parties>>,
  mode: "transfer" | "share",
): Promise<{ offer: CallResult<TransferOut>; listed: TransferOut }> {
  const offer = await call<TransferOut>("POST", `/api/v1/auth/orgs/${p.from.id}/transfers`, {
    token: p.origin.access_token,
    body: {
      site_id: p.site.id,
      to_org_slug: p.to.slug,
      mode,
      ...(mode === "share" ? { share_role: "editor" } : {}),
    },
  });
  expect(offer.status).toBe(200);
  const list = await call<{ incoming: TransferOut[] }>("GET", `/api/v1/auth/orgs/${p.to.id}/transfers`, {
    token: p.destination.access_token,
  });
  const listed = list.body.incoming.find((t) => t.id === offer.body.id)!;
  const accepted = await call("POST", `/api/v1/auth/orgs/${p.to.id}/transfers/${offer.body.id}/accept`, {
    token: p.destination.access_token,
  });
  expect(accepted.status).toBe(200);
  return { offer, listed };
}

const carried = <T extends { carried_over: unknown }>(items: T[]) =>
  items.filter((i) => i.carried_over !== null);

describe("a transferred site stops working for the seller", () => {
  it("the origin's second owner, key and webhook are refused after a transfer; the offer said so", async () => {
    const p = await parties();
    const second = await secondOwner(p.origin, p.site.id);
    expect((await call("GET", `/api/v1/sites/${p.site.id}`, { token: second.access_token })).status).toBe(
      200,
    );
    const a = await integrations(p.origin, p.site.id);
    expect((await publish(a.key.key, "Before")).status).toBe(201);
    await eventually(
      () => received(a.box),
      (ds) => ds.length === 1,
    );

    const { offer, listed } = await offerAndAccept(p, "transfer");
    const whatEnds = { site_members: 1, pending_invitations: 0, api_keys: 1, webhooks: 1 };
    expect(offer.body.will_end).toEqual(whatEnds);
    expect(listed.will_end).toEqual(whatEnds);

    // At once, whether or not content has consumed site.transferred yet: the key's organization is no
    // longer the site's (or the key is carried over), so it writes nothing.
    const early = await publish(a.key.key, "Right after");
    expect(early.status).toBe(401);
    // The second account, even with the edge's cached memberships, mints no key on B's site.
    const minted = await call("POST", `/api/v1/sites/${p.site.id}/api-keys`, {
      token: second.access_token,
      body: { name: "backdoor", kind: "secret", scopes: ["posts:write"] },
    });
    expect(minted.status).toBe(404);
    // Its membership is gone: a fresh session sees the missing site's 404 and mints nothing either.
    const fresh = await signIn(second);
    const missing = await call("GET", "/api/v1/sites/01JAAAAAAAAAAAAAAAAAAAAAAA", { token: fresh });
    const read = await call("GET", `/api/v1/sites/${p.site.id}`, { token: fresh });
    expect(read.status).toBe(404);
    expect(read.body).toEqual(missing.body);
    const mintedFresh = await call("POST", `/api/v1/sites/${p.site.id}/api-keys`, {
      token: fresh,
      body: { name: "backdoor", kind: "secret", scopes: ["posts:write"] },
    });
    expect(mintedFresh.status).toBe(404);

    // Content converges: the key and the webhook are carried over (suspended), listed to B's admins.
    const keys = await eventually(
      async () =>
        (
          await call<{ items: KeyView[] }>("GET", `/api/v1/sites/${p.site.id}/api-keys`, {
            token: p.destination.access_token,
          })
        ).body.items,
      (items) => carried(items).length === 1,
    );
    expect(carried(keys)[0]).toMatchObject({ id: a.key.id, carried_over: { from_org_id: p.from.id } });
    const hooks = await call<{ items: HookView[] }>("GET", `/api/v1/sites/${p.site.id}/webhooks`, {
      token: p.destination.access_token,
    });
    expect(carried(hooks.body.items).map((h) => h.id)).toEqual([a.hook.id]);

    expect((await publish(a.key.key, "After")).status).toBe(401);
    expect((await call("GET", "/v1/leads", { token: a.key.key })).status).toBe(401);
    expect((await call("GET", "/v1/export?resource=posts", { token: a.key.key })).status).toBe(401);

    // B's own integration publishes; B's webhook hears it, A's does not.
    const b = await integrations(p.destination, p.site.id);
    const post = await publish(b.key.key, "B's news");
    expect(post.status).toBe(201);
    const heard = await eventually(
      () => received(b.box),
      (ds) => ds.length === 1,
    );
    expect(payloads(heard)[0]).toMatchObject({ type: "post.published", data: { post_id: post.body.id } });
    expect(await received(a.box)).toHaveLength(1);
  });

  it("the destination keeps a carried-over key and webhook explicitly; the origin cannot", async () => {
    const p = await parties();
    const a = await integrations(p.origin, p.site.id);
    await offerAndAccept(p, "transfer");
    const keepKey = `/api/v1/sites/${p.site.id}/api-keys/${a.key.id}/keep`;
    const keepHook = `/api/v1/sites/${p.site.id}/webhooks/${a.hook.id}/keep`;
    await eventually(
      async () => (await call("POST", keepKey, { token: p.origin.access_token })).status,
      (status) => status === 404,
    );
    await eventually(
      async () =>
        carried(
          (
            await call<{ items: KeyView[] }>("GET", `/api/v1/sites/${p.site.id}/api-keys`, {
              token: p.destination.access_token,
            })
          ).body.items,
        ).length,
      (n) => n === 1,
    );
    expect((await call("POST", keepHook, { token: p.origin.access_token })).status).toBe(404);

    const kept = await call<KeyView>("POST", keepKey, { token: p.destination.access_token });
    expect(kept.status).toBe(200);
    expect(kept.body.carried_over).toBeNull();
    const keptHook = await call<HookView>("POST", keepHook, { token: p.destination.access_token });
    expect(keptHook.status).toBe(200);
    expect(keptHook.body.carried_over).toBeNull();
    // Kept twice: nothing carried over any more, the same 404 as an unknown id.
    expect((await call("POST", keepKey, { token: p.destination.access_token })).status).toBe(404);

    const post = await publish(a.key.key, "Kept integration");
    expect(post.status).toBe(201);
    const got = await eventually(
      () => received(a.box),
      (ds) => ds.length === 1,
    );
    expect(payloads(got)[0]).toMatchObject({ data: { post_id: post.body.id } });
  });

  it("a share keeps the origin's grants: member, key and webhook go on working", async () => {
    const p = await parties();
    const second = await secondOwner(p.origin, p.site.id);
    const a = await integrations(p.origin, p.site.id);
    const { offer } = await offerAndAccept(p, "share");
    expect(offer.body.will_end).toBeNull();
    const fresh = await signIn(second);
    expect((await call("GET", `/api/v1/sites/${p.site.id}`, { token: fresh })).status).toBe(200);
    const post = await publish(a.key.key, "Still ours");
    expect(post.status).toBe(201);
    await eventually(
      () => received(a.box),
      (ds) => ds.length === 1,
    );
    const keys = await call<{ items: KeyView[] }>("GET", `/api/v1/sites/${p.site.id}/api-keys`, {
      token: p.origin.access_token,
    });
    expect(carried(keys.body.items)).toEqual([]);
  });
});
