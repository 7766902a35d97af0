/**
 * The identity rows of the credential matrix (src/identity/credentials.ts): for each (kind, ending event)
 * pair, make the credential through the gateway, use it, perform the event as a person (or identity's cron)
 * would, and use it again. Every `use` after the event must fail because of the credential, never because of
 * something else the event did (a session it ended, a rate limit): where the event ends the sessions too,
 * the row signs in again before it uses the credential.
 */
import { env } from "cloudflare:workers";
import { freshIp } from "../../support/identity-helpers";
import { cookieOf } from "../../support/oidc-browser";
import { call, createSite, type Session, uniqueEmail } from "../../support/platform";
import { type Agent, agentWorks, connectAgent } from "./agent-steps";
import {
  acceptInvitation,
  changePassword,
  deleteAccount,
  disown,
  enrolTotp,
  identityHourlyRun,
  invitationToken,
  linkToken,
  loginStart,
  loginVerify,
  loginWithTotp,
  type Mail,
  magicSignIn,
  mailbox,
  me,
  NEW_PASSWORD,
  newMail,
  orgMember,
  orgOf,
  type PasskeyPerson,
  type Person,
  passkeySignIn,
  person,
  refresh,
  registerPasskey,
  resetPassword,
  type SsoOrg,
  signInWith,
  signOutEverywhere,
  siteMemberByInvitation,
  ssoCallback,
  ssoOrg,
  ssoPerson,
  type TotpPerson,
  totpAt,
  withStepUp,
} from "./identity-steps";
import { type MatrixRow, type MatrixRows, row } from "./row";

const identityDb = (env as unknown as { TEST_IDENTITY_DB: D1Database }).TEST_IDENTITY_DB;

function expectStatus(what: string, res: { status: number; body: unknown }, status: number) {
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
}

/**
 * A single-use credential's row: its use before the event would spend it, so that use spends a twin made
 * the same way (an account, organization or site of its own), and the event and the use after it act on the
 * other one. The twin shows the credential works; the other shows the event ended it.
 */
function twins<T>(r: { arrange(): Promise<T> } & Omit<MatrixRow<NoInfer<T>>, "arrange">): MatrixRow<never> {
  return row({
    arrange: async () => {
      const [twin, subject] = await Promise.all([r.arrange(), r.arrange()]);
      return { twin, subject, spent: false };
    },
    use: (m) => {
      if (m.spent) return r.use(m.subject);
      m.spent = true;
      return r.use(m.twin);
    },
    end: (m) => r.end(m.subject),
    works: r.works,
    ended: r.ended,
    alone: r.alone,
  });
}

/** An account, and a second session of it (the one the rows use) beside the one that performs the event. */
async function twoSessions(): Promise<{ owner: Person; other: Session }> {
  const owner = await person();
  return { owner, other: await magicSignIn(owner) };
}

/** The "this was not me" of a factor the account's own token planted: the notice mailed to the owner. */
async function plantedTotpNotice(owner: Person) {
  await enrolTotp(owner);
  return newMail(owner.email, "factor_added_notice");
}

/** The rows of one session-bound kind: the same endings, one `use`. */
function sessionRows(kind: string, use: (s: Session) => Promise<number>, ended: number): MatrixRows {
  return {
    [`${kind} × sign_out_everywhere`]: row({
      arrange: twoSessions,
      use: ({ other }) => use(other),
      end: ({ owner }) => signOutEverywhere(owner),
      ended,
    }),
    [`${kind} × password_change`]: row({
      arrange: twoSessions,
      use: ({ other }) => use(other),
      end: ({ owner }) => changePassword(owner),
      ended,
    }),
    [`${kind} × password_reset`]: row({
      arrange: twoSessions,
      use: ({ other }) => use(other),
      end: ({ owner }) => resetPassword(owner),
      ended,
    }),
    [`${kind} × account_deletion`]: row({
      arrange: twoSessions,
      use: ({ other }) => use(other),
      end: ({ owner }) => deleteAccount(owner),
      ended,
    }),
    [`${kind} × undo`]: row({
      arrange: twoSessions,
      use: ({ other }) => use(other),
      end: async ({ owner }) => disown(await plantedTotpNotice(owner)),
      ended,
    }),
  };
}

/** `POST /auth/login/start` with the password: 428 MFA_NOT_ENROLLED once it matched (no second factor). */
async function passwordWorks(who: Person, password: string): Promise<number> {
  const res = await call("POST", "/api/v1/auth/login/start", {
    body: { email: who.email, password },
    headers: { "cf-connecting-ip": freshIp() },
  });
  return res.status;
}

// Second factors.

/** A TOTP account whose `use` signs in with the password and the next unspent TOTP step. */
async function totpAccount() {
  const owner = await enrolTotp(await person());
  return { owner, next: owner.step };
}
const totpSignIn = async (m: { owner: TotpPerson; next: number }) =>
  (await loginWithTotp(m.owner, m.next++)).status;

/** Removes the account's TOTP as its owner does (`DELETE /auth/mfa/totp`, step-up). */
async function removeTotp(owner: TotpPerson) {
  expectStatus("totp removal", await withStepUp(owner, "DELETE", "/api/v1/auth/mfa/totp"), 204);
}

/** A TOTP account that also proves a phone (the step-up: the account has a factor); its notice is kept. */
async function phoneAccount() {
  const owner = await enrolTotp(await person());
  const phone = `+1555${String(Math.floor(Math.random() * 1e7)).padStart(7, "0")}`;
  const seen = await mailbox(owner.email);
  const started = await withStepUp(owner, "POST", "/api/v1/auth/mfa/phone/start", { phone });
  expectStatus("phone start", started, 202);
  const sms = await newMail(phone, "phone_verify");
  const confirmed = await call("POST", "/api/v1/auth/mfa/phone/confirm", {
    token: owner.access_token,
    body: { code: sms.code },
  });
  expectStatus("phone confirm", confirmed, 200);
  return { owner, notice: await newMail(owner.email, "factor_added_notice", seen) };
}

/** The phased sign-in offers SMS and sends its code: 202 while the phone is the account's, 400 after. */
async function smsCodeSent({ owner }: { owner: TotpPerson }): Promise<number> {
  const start = await loginStart(owner);
  if (start.status !== 200) return start.status;
  const sent = await call("POST", "/api/v1/auth/login/mfa/send", {
    body: { challenge: start.body.challenge, method: "sms" },
    headers: { "cf-connecting-ip": freshIp() },
  });
  return sent.status;
}

/** A TOTP account with a passkey registered with the step-up; its notice is kept. */
async function passkeyAccount() {
  const owner = await enrolTotp(await person());
  const seen = await mailbox(owner.email);
  const withPasskey = await registerPasskey(owner);
  return { owner: withPasskey, notice: await newMail(owner.email, "factor_added_notice", seen) };
}
const passkeyWorks = ({ owner }: { owner: PasskeyPerson }) => passkeySignIn(owner);

/** A recovery pool generated apart from the TOTP (step-up), with its own notice; `use` spends the next code. */
async function recoveryAccount() {
  const owner = await enrolTotp(await person());
  const seen = await mailbox(owner.email);
  const pool = await withStepUp<{ recovery_codes: string[] }>(
    owner,
    "POST",
    "/api/v1/auth/mfa/recovery-codes/generate",
  );
  expectStatus("recovery codes", pool, 200);
  const notice = await newMail(owner.email, "recovery_codes_notice", seen);
  return { owner, codes: [...pool.body.recovery_codes], notice };
}
const recoveryCodeWorks = (m: { owner: TotpPerson; codes: string[] }) =>
  signInWith(m.owner, "recovery_code", m.codes.shift()!);

// One-time codes and links.

/** A code mailed for `purpose` after `request`, to `email`. */
async function mailedCode(email: string, purpose: string, request: () => Promise<unknown>) {
  const seen = await mailbox(email);
  await request();
  return (await newMail(email, purpose, seen)).code!;
}

function requestMagicLink(email: string) {
  return call("POST", "/api/v1/auth/magic-link/request", {
    body: { email },
    headers: { "cf-connecting-ip": freshIp() },
  });
}

/**
 * Two magic-link codes of one account (a new request leaves the earlier ones live: a stranger's request must
 * not kill the owner's), so no twin is needed: `use` spends the first, and from then on tries the second.
 */
async function magicLinkCodes() {
  const owner = await person();
  const code = () => mailedCode(owner.email, "magic_link", () => requestMagicLink(owner.email));
  const first = await code();
  return { owner, codes: [first, await code()] };
}
const magicLinkWorks = async (m: { owner: Person; codes: string[] }) =>
  (
    await call("POST", "/api/v1/auth/magic-link/verify", {
      body: { email: m.owner.email, code: m.codes.length > 1 ? m.codes.shift()! : m.codes[0]! },
      headers: { "cf-connecting-ip": freshIp() },
    })
  ).status;

async function resetCodeAccount() {
  const owner = await person();
  const request = () =>
    call("POST", "/api/v1/auth/password/reset/request", {
      body: { email: owner.email },
      headers: { "cf-connecting-ip": freshIp() },
    });
  return { owner, code: await mailedCode(owner.email, "password_reset", request) };
}
const resetCodeWorks = async (m: { owner: Person; code: string }) =>
  (
    await call("POST", "/api/v1/auth/password/reset/confirm", {
      body: { email: m.owner.email, code: m.code, new_password: `${NEW_PASSWORD} again` },
      headers: { "cf-connecting-ip": freshIp() },
    })
  ).status;

/** A signed-up address not yet confirmed, and its confirmation code. */
async function pendingSignup() {
  const email = uniqueEmail("pending");
  const ip = freshIp();
  const signUp = () =>
    call("POST", "/api/v1/auth/signup", {
      body: { email, password: "correct horse battery staple 42" },
      headers: { "cf-connecting-ip": ip },
    });
  return { email, code: await mailedCode(email, "email_verify", signUp) };
}
const signupCodeWorks = async (m: { email: string; code: string }) =>
  (
    await call("POST", "/api/v1/auth/email/verify/confirm", {
      body: { email: m.email, code: m.code },
      headers: { "cf-connecting-ip": freshIp() },
    })
  ).status;

/**
 * Two addresses added to one account (`POST /auth/emails`) and the code mailed to each (a code is per
 * address), so no twin is needed: `use` proves the first, and from then on tries the second; `token` is the
 * session that offers them.
 */
async function addedAddressCodes() {
  const owner = await person();
  const added = async () => {
    const address = uniqueEmail("added");
    const add = () =>
      call("POST", "/api/v1/auth/emails", { token: owner.access_token, body: { email: address } });
    return { address, code: await mailedCode(address, "email_add", add) };
  };
  const first = await added();
  return { owner, token: owner.access_token, pending: [first, await added()] };
}
const addedAddressCodeWorks = async (m: { token: string; pending: { address: string; code: string }[] }) => {
  const { address, code } = m.pending.length > 1 ? m.pending.shift()! : m.pending[0]!;
  return (
    await call("POST", "/api/v1/auth/emails/verify", { token: m.token, body: { email: address, code } })
  ).status;
};

/** The step-up code mailed for `DELETE /auth/mfa/totp` (idempotent: 204 even without a TOTP). */
async function stepUpCode() {
  const owner = await person();
  const ask = () => call("DELETE", "/api/v1/auth/mfa/totp", { token: owner.access_token });
  return { owner, token: owner.access_token, code: await mailedCode(owner.email, "sensitive_action", ask) };
}
const stepUpCodeWorks = async (m: { token: string; code: string }) =>
  (await call("DELETE", "/api/v1/auth/mfa/totp", { token: m.token, headers: { "x-step-up-code": m.code } }))
    .status;

/** An open login challenge of a TOTP account (the password proven). */
async function openChallenge() {
  const owner = await enrolTotp(await person());
  const start = await loginStart(owner);
  expectStatus("login start", start, 200);
  return { owner, challenge: start.body.challenge };
}
/** Its e-mail code sent (the challenge is not spent): 202 while it is open, 401 once it is not. */
const challengeOpen = async (m: { challenge: string }) =>
  (
    await call("POST", "/api/v1/auth/login/mfa/send", {
      body: { challenge: m.challenge, method: "email" },
      headers: { "cf-connecting-ip": freshIp() },
    })
  ).status;

// Leaving the account.

async function askDeletion(owner: Person) {
  const asked = await withStepUp<{ erase_after: string }>(owner, "DELETE", "/api/v1/auth/account");
  expectStatus("account deletion", asked, 202);
  return asked.body.erase_after;
}

function cancelDeletion(email: string, code?: string) {
  return call("POST", "/api/v1/auth/account/deletion/cancel", {
    body: code ? { email, code } : { email },
    headers: { "cf-connecting-ip": freshIp() },
  });
}

async function restoreCodeAccount() {
  const owner = await person();
  const eraseAfter = await askDeletion(owner);
  const code = await mailedCode(owner.email, "account_restore", () => cancelDeletion(owner.email));
  return { owner, eraseAfter, code };
}

// Organizations and sites.

/** An organization invitation of a new address, sent by `inviter` (an administrator of `orgId`). */
async function orgInvitation(inviter: Person, orgId: string) {
  const email = uniqueEmail("invitee");
  const invited = await call("POST", `/api/v1/auth/orgs/${orgId}/members`, {
    token: inviter.access_token,
    body: { email, role: "org_member" },
  });
  expectStatus("invitation", invited, 202);
  return invitationToken(email);
}
const invitationWorks = async (m: { token: string }) => (await acceptInvitation(m.token)).status;

/** The site's organization offers it to `buyer`'s organization; `by` is an administrator of the origin. */
async function offer(by: Person, fromOrgId: string, siteId: string, toOrgSlug: string) {
  const made = await call<{ id: string }>("POST", `/api/v1/auth/orgs/${fromOrgId}/transfers`, {
    token: by.access_token,
    body: { site_id: siteId, to_org_slug: toOrgSlug, mode: "transfer" },
  });
  expectStatus("transfer offer", made, 200);
  return made.body.id;
}

/** A site of a new organization, offered to another organization by `offeredBy` (default: the owner). */
async function offeredSite(offeredBy?: (o: Awaited<ReturnType<typeof orgOf>>) => Promise<Person>) {
  const origin = await orgOf();
  const buyer = await orgOf();
  const site = await createSite(origin.owner.access_token, origin.org.id);
  const by = offeredBy ? await offeredBy(origin) : origin.owner;
  const id = await offer(by, origin.org.id, site.id, buyer.org.slug);
  return { origin, buyer, site, by, id };
}
const offerAccepted = async (m: Awaited<ReturnType<typeof offeredSite>>) =>
  (
    await call("POST", `/api/v1/auth/orgs/${m.buyer.org.id}/transfers/${m.id}/accept`, {
      token: m.buyer.owner.access_token,
    })
  ).status;

/** Transfers the site to a new organization (offered by its owner, accepted by the buyer's owner). */
async function transferSite(origin: Awaited<ReturnType<typeof orgOf>>, siteId: string) {
  const buyer = await orgOf();
  const id = await offer(origin.owner, origin.org.id, siteId, buyer.org.slug);
  const accepted = await call("POST", `/api/v1/auth/orgs/${buyer.org.id}/transfers/${id}/accept`, {
    token: buyer.owner.access_token,
  });
  expectStatus("transfer accept", accepted, 200);
}

async function removeFromOrg(o: Awaited<ReturnType<typeof orgOf>>, who: Person) {
  const removed = await call("DELETE", `/api/v1/auth/orgs/${o.org.id}/members/${who.user.id}`, {
    token: o.owner.access_token,
  });
  expectStatus("member removal", removed, 204);
}

async function demoteInOrg(o: Awaited<ReturnType<typeof orgOf>>, who: Person) {
  const demoted = await call("PATCH", `/api/v1/auth/orgs/${o.org.id}/members/${who.user.id}`, {
    token: o.owner.access_token,
    body: { role: "org_member" },
  });
  expectStatus("member demotion", demoted, 200);
}

/**
 * A site owned by an organization, and two site owners who joined by invitation (a site keeps one owner:
 * the second lets the first be removed or demoted). `use` lists the site's members as the first owner
 * (identity's own site route: a stored site-owner membership, or the organization's `members:manage`).
 */
async function siteOwners() {
  const o = await orgOf();
  const site = await createSite(o.owner.access_token, o.org.id);
  const [first] = await Promise.all([
    siteMemberByInvitation(o.owner, site.id, "owner"),
    siteMemberByInvitation(o.owner, site.id, "owner"),
  ]);
  return { o, site, first: first! };
}
const siteMembersListed = async (m: { site: { id: string }; first: Person }) =>
  (await call("GET", `/api/v1/auth/sites/${m.site.id}/members`, { token: m.first.access_token })).status;

let operator: Promise<Person> | null = null;

/** A platform operator (`operator_admin`), granted as `npm run operator -- grant` writes it; one per file. */
function platformOperator(): Promise<Person> {
  operator ??= (async () => {
    const who = await person("operator");
    await identityDb
      .prepare(
        "INSERT INTO platform_operators (user_id, capability, granted_at) VALUES (?, 'operator_admin', ?)",
      )
      .bind(who.user.id, new Date().toISOString())
      .run();
    return who;
  })();
  return operator;
}

/** A platform operator archives the site (`POST /api/v1/platform/sites/{id}/archive`). */
async function archiveSite(siteId: string) {
  const op = await platformOperator();
  const archived = await call("POST", `/api/v1/platform/sites/${siteId}/archive`, {
    token: op.access_token,
    body: { reason: "credential matrix" },
  });
  expectStatus("archive", archived, 200);
}

/** An account with TOTP signed in again through the phased login with `trust_device` (a 90-day session). */
async function trustedDevice() {
  const owner = await enrolTotp(await person());
  const start = await loginStart(owner);
  expectStatus("login start", start, 200);
  const trusted = await loginVerify(start.body.challenge, "totp", totpAt(owner, owner.step), true);
  expectStatus("trusted sign-in", trusted, 200);
  return { owner, trusted: trusted.body };
}

/** An address added and proven with the owner's token, past its cooling-off; the "not my address" notice. */
async function addedAddress() {
  const owner = await person();
  const address = uniqueEmail("added");
  const seen = await mailbox(owner.email);
  const code = await mailedCode(address, "email_add", () =>
    call("POST", "/api/v1/auth/emails", { token: owner.access_token, body: { email: address } }),
  );
  const proven = await call("POST", "/api/v1/auth/emails/verify", {
    token: owner.access_token,
    body: { email: address, code },
  });
  expectStatus("address proof", proven, 200);
  const notice = await newMail(owner.email, "email_verified_notice", seen);
  await identityDb
    .prepare("UPDATE email_addresses SET usable_at = ? WHERE address = ?")
    .bind(new Date(Date.now() - 1000).toISOString(), address)
    .run();
  return { owner, address, notice };
}

async function disownAddress(notice: Mail) {
  const token = new URL(notice.link!).searchParams.get("token");
  expectStatus("not my address", await call("POST", "/api/v1/auth/emails/disown", { body: { token } }), 204);
}

// Single sign-on.

/** The provider's sign-in start as the hosted page asks for it: 200 with the authorization URL, or 404. */
async function ssoStarts(o: SsoOrg) {
  const res = await call("GET", `/api/v1/auth/sso/start?org=${o.org.slug}`, {
    headers: { accept: "application/json" },
  });
  return res.status;
}

async function undoSso(o: SsoOrg) {
  const undo = await call("POST", `/api/v1/auth/orgs/${o.org.id}/sso/undo`, {
    body: { token: linkToken(o.notice) },
  });
  expectStatus("sso undo", undo, 200);
}

async function removeSso(o: SsoOrg) {
  expectStatus("sso removal", await withStepUp(o.owner, "DELETE", `/api/v1/auth/orgs/${o.org.id}/sso`), 204);
}

/**
 * What the hosted page does after the callback: the refresh with the session cookie the callback set (200),
 * or with none when it set none (401 REFRESH_FAILED).
 */
async function sessionOf(callback: Response) {
  const refreshToken = cookieOf(callback, "svc_refresh");
  if (!refreshToken) return (await call("POST", "/api/v1/auth/refresh")).status;
  return refresh({ refresh_token: decodeURIComponent(refreshToken) });
}

async function ssoMember() {
  const o = await ssoOrg();
  return { o, member: await ssoPerson(o) };
}
/** The SSO session on its organization's member list (identity reads the session's liveness in D1). */
const ssoSessionWorks = async ({ o, member }: { o: SsoOrg; member: Person }) =>
  (await call("GET", `/api/v1/auth/orgs/${o.org.id}/members`, { token: member.access_token })).status;

// MCP agents (issue 37): a grant made through the public API (register, consent, approve, redeem).

/**
 * An organization with a site, an administrator of its own (`org_admin`: every scope but leads) and the
 * administrator's agent on the site with `posts:read posts:write`.
 */
async function agentOnSite(o?: Awaited<ReturnType<typeof orgOf>>) {
  const org = o ?? (await orgOf());
  const site = await createSite(org.owner.access_token, org.org.id);
  const member = await orgMember(org, "org_admin");
  // The agent's posts are bylined with the person's display name.
  const named = await call("PATCH", "/api/v1/auth/me", {
    token: member.access_token,
    body: { display_name: "Matrix Agent Person" },
  });
  expectStatus("display name", named, 200);
  const agent = await connectAgent(member, site.id);
  return { o: org, site, member, agent };
}
const agentUse = ({ agent }: { agent: Agent }) => agentWorks(agent);
/** For the site's own endings, which identity is not told of: the agent's token alone (its refresh may live). */
const agentUseOnly = ({ agent }: { agent: Agent }) => agentWorks(agent, { refreshMustFail: false });

/** An owner (re)adds the person to the organization in `role` (an existing member's role changes). */
async function setOrgRole(o: Awaited<ReturnType<typeof orgOf>>, who: Person, role: string) {
  const res = await call("POST", `/api/v1/auth/orgs/${o.org.id}/members`, {
    token: o.owner.access_token,
    body: { email: who.email, role },
  });
  if (res.status !== 200 && res.status !== 201)
    throw new Error(`set role: ${res.status} ${JSON.stringify(res.body)}`);
}

export const rows: MatrixRows = {
  ...sessionRows("identity.session", refresh, 401),
  // The reuse of a rotated refresh token (a thief's copy) ends the whole family, the owner's copy too.
  "identity.session × rotation": row({
    arrange: async () => {
      const owner = await person();
      return { owner, first: owner.refresh_token };
    },
    use: ({ owner }) => refresh(owner),
    end: async ({ first }) => {
      const replayed = await call("POST", "/api/v1/auth/refresh", { body: { refresh_token: first } });
      if (replayed.status !== 401) throw new Error(`the replayed refresh token answered ${replayed.status}`);
    },
    ended: 401,
  }),
  ...sessionRows("identity.access_token", (s) => me(s.access_token), 401),

  "identity.password × password_reset": row({
    arrange: async () => {
      const owner = await person();
      return { owner, old: owner.password };
    },
    use: ({ owner, old }) => passwordWorks(owner, old),
    end: ({ owner }) => resetPassword(owner),
    works: 428,
    ended: 401,
  }),
  "identity.password × password_change": row({
    arrange: async () => {
      const owner = await person();
      return { owner, old: owner.password };
    },
    use: ({ owner, old }) => passwordWorks(owner, old),
    end: ({ owner }) => changePassword(owner),
    works: 428,
    ended: 401,
  }),
  "identity.password × account_deletion": row({
    arrange: person,
    use: (owner) => passwordWorks(owner, owner.password),
    end: deleteAccount,
    works: 428,
    ended: 401,
  }),
  ...{
    "identity.trusted_device × sign_out_everywhere": row({
      arrange: trustedDevice,
      use: ({ trusted }) => refresh(trusted),
      end: ({ owner }) => signOutEverywhere(owner),
      ended: 401,
    }),
    "identity.trusted_device × password_change": row({
      arrange: trustedDevice,
      use: ({ trusted }) => refresh(trusted),
      end: ({ owner }) => changePassword(owner),
      ended: 401,
    }),
    "identity.trusted_device × password_reset": row({
      arrange: trustedDevice,
      use: ({ trusted }) => refresh(trusted),
      end: ({ owner }) => resetPassword(owner),
      ended: 401,
    }),
  },

  // An added address signs in once its 72-hour cooling-off has passed (the clock moved in D1, as
  // test/identity/added-address-cooling-off.security.test.ts does): the password start by that address.
  "identity.email_address × undo": row({
    arrange: addedAddress,
    use: ({ owner, address }) => passwordWorks({ ...owner, email: address }, owner.password),
    end: ({ notice }) => disownAddress(notice),
    works: 428,
    ended: 401,
  }),
  "identity.email_address × account_deletion": row({
    arrange: addedAddress,
    use: ({ owner, address }) => passwordWorks({ ...owner, email: address }, owner.password),
    end: ({ owner }) => deleteAccount(owner),
    works: 428,
    ended: 401,
  }),

  // TOTP: the one-step staff login with the password and the next unspent step. Once the TOTP is gone the
  // account has no factor a password sign-in could finish with (428 MFA_NOT_ENROLLED).
  "identity.totp × undo": row({
    arrange: async () => {
      const m = await totpAccount();
      return { ...m, notice: await newMail(m.owner.email, "factor_added_notice") };
    },
    use: totpSignIn,
    end: ({ notice }) => disown(notice),
    ended: 428,
  }),
  "identity.totp × factor_removal": row({
    arrange: totpAccount,
    use: totpSignIn,
    end: ({ owner }) => removeTotp(owner),
    ended: 428,
  }),
  "identity.totp × account_deletion": row({
    arrange: totpAccount,
    use: totpSignIn,
    end: ({ owner }) => deleteAccount(owner),
    ended: 401,
  }),

  "identity.phone × undo": row({
    arrange: phoneAccount,
    use: smsCodeSent,
    end: ({ notice }) => disown(notice),
    works: 202,
    // The undo ends every session and the TOTP stays: the phased sign-in no longer offers SMS.
    ended: 400,
  }),
  "identity.phone × factor_removal": row({
    arrange: phoneAccount,
    use: smsCodeSent,
    end: async ({ owner }) => {
      const removed = await call("DELETE", "/api/v1/auth/mfa/phone", { token: owner.access_token });
      expectStatus("phone removal", removed, 204);
    },
    works: 202,
    ended: 400,
  }),
  "identity.phone × account_deletion": row({
    arrange: phoneAccount,
    use: smsCodeSent,
    end: ({ owner }) => deleteAccount(owner),
    works: 202,
    ended: 401,
  }),

  // A passkey signs in alone (passkey-first sign-in).
  "identity.passkey × undo": row({
    arrange: passkeyAccount,
    use: passkeyWorks,
    end: ({ notice }) => disown(notice),
    ended: 401,
  }),
  "identity.passkey × factor_removal": row({
    arrange: passkeyAccount,
    use: passkeyWorks,
    end: async ({ owner }) => {
      const path = `/api/v1/auth/mfa/passkey/${owner.passkeyId}`;
      expectStatus("passkey removal", await withStepUp(owner, "DELETE", path), 204);
    },
    ended: 401,
  }),
  "identity.passkey × account_deletion": row({
    arrange: passkeyAccount,
    use: passkeyWorks,
    end: ({ owner }) => deleteAccount(owner),
    ended: 401,
  }),
  // No passkey is registered without the step-up any more: the row makes one as every passkey from before
  // issue 31 is stored (`stepped_up` 0, what migration 0011 left on them).
  "identity.passkey_without_step_up × password_reset": row({
    arrange: async () => {
      const m = await passkeyAccount();
      await identityDb
        .prepare("UPDATE passkeys SET stepped_up = 0 WHERE id = ?")
        .bind(m.owner.passkeyId)
        .run();
      return m;
    },
    use: passkeyWorks,
    end: ({ owner }) => resetPassword(owner),
    ended: 401,
  }),

  "identity.recovery_codes × rotation": row({
    arrange: recoveryAccount,
    use: recoveryCodeWorks,
    end: async ({ owner }) => {
      const path = "/api/v1/auth/mfa/recovery-codes/generate";
      expectStatus("new recovery codes", await withStepUp(owner, "POST", path), 200);
    },
    ended: 401,
  }),
  // The undo voids the whole pool: the phased sign-in no longer offers recovery codes (400 METHOD_NOT_AVAILABLE).
  "identity.recovery_codes × undo": row({
    arrange: recoveryAccount,
    use: recoveryCodeWorks,
    end: ({ notice }) => disown(notice),
    ended: 400,
  }),
  "identity.recovery_codes × account_deletion": row({
    arrange: recoveryAccount,
    use: recoveryCodeWorks,
    end: ({ owner }) => deleteAccount(owner),
    ended: 401,
  }),

  // One-time codes: the use before the event spends a sibling (magic links, added addresses) or a twin's
  // (see `twins`).
  "identity.magic_link × use": row({
    arrange: magicLinkCodes,
    use: magicLinkWorks,
    end: async (m) => expectStatus("magic link", { status: await magicLinkWorks(m), body: null }, 200),
    ended: 401,
  }),
  "identity.magic_link × password_change": row({
    arrange: magicLinkCodes,
    use: magicLinkWorks,
    end: ({ owner }) => changePassword(owner),
    ended: 401,
  }),
  "identity.magic_link × password_reset": row({
    arrange: magicLinkCodes,
    use: magicLinkWorks,
    end: ({ owner }) => resetPassword(owner),
    ended: 401,
  }),

  "identity.password_reset_code × use": twins({
    arrange: resetCodeAccount,
    use: resetCodeWorks,
    end: async (m) => expectStatus("reset", { status: await resetCodeWorks(m), body: null }, 204),
    works: 204,
    ended: 401,
  }),
  "identity.password_reset_code × password_change": twins({
    arrange: resetCodeAccount,
    use: resetCodeWorks,
    end: ({ owner }) => changePassword(owner),
    works: 204,
    ended: 401,
  }),
  // Another reset of the account (with a code of its own, mailed after this one) voids this one.
  "identity.password_reset_code × password_reset": twins({
    arrange: resetCodeAccount,
    use: resetCodeWorks,
    end: ({ owner }) => resetPassword(owner),
    works: 204,
    ended: 401,
  }),

  "identity.email_verify_code × use": twins({
    arrange: pendingSignup,
    use: signupCodeWorks,
    end: async (m) => expectStatus("confirm", { status: await signupCodeWorks(m), body: null }, 200),
    ended: 401,
  }),
  // Once used, the address is proven: the same code again answers 409 EMAIL_ALREADY_ADDED (no code burned).
  "identity.email_add_code × use": row({
    arrange: addedAddressCodes,
    use: addedAddressCodeWorks,
    end: async (m) => expectStatus("verify", { status: await addedAddressCodeWorks(m), body: null }, 200),
    ended: 409,
  }),
  "identity.email_add_code × password_change": row({
    arrange: addedAddressCodes,
    use: addedAddressCodeWorks,
    end: ({ owner }) => changePassword(owner),
    ended: 401,
  }),
  // The reset ends every session too: the owner signs in again (magic link) to offer the code.
  "identity.email_add_code × password_reset": row({
    arrange: addedAddressCodes,
    use: addedAddressCodeWorks,
    end: async (m) => {
      await resetPassword(m.owner);
      m.token = (await magicSignIn(m.owner)).access_token;
    },
    ended: 401,
  }),

  "identity.step_up_code × use": twins({
    arrange: stepUpCode,
    use: stepUpCodeWorks,
    end: async (m) => expectStatus("step-up", { status: await stepUpCodeWorks(m), body: null }, 204),
    works: 204,
    ended: 401,
  }),
  // A new step-up code of the account (any operation) replaces it.
  "identity.step_up_code × rotation": twins({
    arrange: stepUpCode,
    use: stepUpCodeWorks,
    end: async (m) => {
      await mailedCode(m.owner.email, "sensitive_action", () =>
        call("DELETE", "/api/v1/auth/sessions", { token: m.token }),
      );
    },
    works: 204,
    ended: 401,
  }),
  "identity.step_up_code × password_change": twins({
    arrange: stepUpCode,
    use: stepUpCodeWorks,
    end: ({ owner }) => changePassword(owner),
    works: 204,
    ended: 401,
  }),
  "identity.step_up_code × password_reset": twins({
    arrange: stepUpCode,
    use: stepUpCodeWorks,
    end: async (m) => {
      await resetPassword(m.owner);
      m.token = (await magicSignIn(m.owner)).access_token;
    },
    works: 204,
    ended: 401,
  }),

  "identity.login_challenge × use": row({
    arrange: openChallenge,
    use: challengeOpen,
    end: async ({ owner, challenge }) =>
      expectStatus("verify", await loginVerify(challenge, "totp", totpAt(owner, owner.step)), 200),
    works: 202,
    ended: 401,
  }),
  "identity.login_challenge × password_change": row({
    arrange: openChallenge,
    use: challengeOpen,
    end: ({ owner }) => changePassword(owner),
    works: 202,
    ended: 401,
  }),
  "identity.login_challenge × password_reset": row({
    arrange: openChallenge,
    use: challengeOpen,
    end: ({ owner }) => resetPassword(owner),
    works: 202,
    ended: 401,
  }),
  "identity.login_challenge × undo": row({
    arrange: async () => {
      const m = await openChallenge();
      return { ...m, notice: await newMail(m.owner.email, "factor_added_notice") };
    },
    use: challengeOpen,
    end: ({ notice }) => disown(notice),
    works: 202,
    ended: 401,
  }),

  // The deletion request stands while sign-in answers 403 ACCOUNT_PENDING_DELETION (after the password
  // matched); cancelled, the account signs in again (428: no second factor yet). Alone: another row's
  // hourly run would erase the account.
  "identity.account_deletion_request × undo": row({
    arrange: async () => {
      const owner = await person();
      await askDeletion(owner);
      return owner;
    },
    use: (owner) => passwordWorks(owner, owner.password),
    end: async (owner) => {
      const code = await mailedCode(owner.email, "account_restore", () => cancelDeletion(owner.email));
      expectStatus("cancel", await cancelDeletion(owner.email, code), 200);
    },
    works: 403,
    ended: 428,
    alone: true,
  }),
  "identity.account_restore_code × use": twins({
    arrange: restoreCodeAccount,
    use: async (m) => (await cancelDeletion(m.owner.email, m.code)).status,
    end: async (m) => expectStatus("cancel", await cancelDeletion(m.owner.email, m.code), 200),
    ended: 401,
    alone: true,
  }),
  "identity.account_restore_code × account_deletion": twins({
    arrange: restoreCodeAccount,
    use: async (m) => (await cancelDeletion(m.owner.email, m.code)).status,
    end: (m) => identityHourlyRun(Date.parse(m.eraseAfter) + 3600_000),
    ended: 401,
    alone: true,
  }),

  // Invitations: accepting spends one (twins).
  "identity.invitation × use": twins({
    arrange: async () => {
      const o = await orgOf();
      return { token: await orgInvitation(o.owner, o.org.id) };
    },
    use: invitationWorks,
    end: async (m) => expectStatus("accept", { status: await invitationWorks(m), body: null }, 200),
    ended: 404,
  }),
  // The administrator who sent it is removed: what they granted ends with their grant.
  "identity.invitation × member_removal": twins({
    arrange: async () => {
      const o = await orgOf();
      const admin = await orgMember(o, "org_admin");
      return { o, admin, token: await orgInvitation(admin, o.org.id) };
    },
    use: invitationWorks,
    end: ({ o, admin }) => removeFromOrg(o, admin),
    ended: 404,
  }),
  "identity.invitation × member_demotion": twins({
    arrange: async () => {
      const o = await orgOf();
      const admin = await orgMember(o, "org_admin");
      return { o, admin, token: await orgInvitation(admin, o.org.id) };
    },
    use: invitationWorks,
    end: ({ o, admin }) => demoteInOrg(o, admin),
    ended: 404,
  }),
  "identity.invitation × site_transfer": twins({
    arrange: async () => {
      const o = await orgOf();
      const site = await createSite(o.owner.access_token, o.org.id);
      const email = uniqueEmail("site-invitee");
      const invited = await call("POST", `/api/v1/auth/sites/${site.id}/invitations`, {
        token: o.owner.access_token,
        body: { email, role: "editor" },
      });
      expectStatus("site invitation", invited, 202);
      return { o, site, token: await invitationToken(email) };
    },
    use: invitationWorks,
    end: ({ o, site }) => transferSite(o, site.id),
    ended: 404,
  }),

  // An organization membership, used where its role counts: listing the members (any member) or the
  // pending invitations (`members:manage`, which `org_admin` has and `org_member` has not).
  "identity.org_membership × member_removal": row({
    arrange: async () => {
      const o = await orgOf();
      return { o, member: await orgMember(o, "org_member") };
    },
    use: async ({ o, member }) =>
      (await call("GET", `/api/v1/auth/orgs/${o.org.id}/members`, { token: member.access_token })).status,
    end: ({ o, member }) => removeFromOrg(o, member),
    ended: 404,
  }),
  "identity.org_membership × member_demotion": row({
    arrange: async () => {
      const o = await orgOf();
      return { o, member: await orgMember(o, "org_admin") };
    },
    use: async ({ o, member }) =>
      (await call("GET", `/api/v1/auth/orgs/${o.org.id}/invitations`, { token: member.access_token })).status,
    end: ({ o, member }) => demoteInOrg(o, member),
    ended: 403,
  }),

  "identity.site_membership × member_removal": row({
    arrange: siteOwners,
    use: siteMembersListed,
    end: async ({ site, first, o }) => {
      const removed = await call("DELETE", `/api/v1/auth/sites/${site.id}/members/${first.user.id}`, {
        token: o.owner.access_token,
      });
      expectStatus("site member removal", removed, 204);
    },
    ended: 404,
  }),
  "identity.site_membership × member_demotion": row({
    arrange: siteOwners,
    use: siteMembersListed,
    end: async ({ site, first, o }) => {
      const demoted = await call("PATCH", `/api/v1/auth/sites/${site.id}/members/${first.user.id}`, {
        token: o.owner.access_token,
        body: { role: "editor" },
      });
      expectStatus("site member demotion", demoted, 200);
    },
    ended: 404,
  }),
  // The site owners joined by invitation are no members of the buyer: their memberships end.
  "identity.site_membership × site_transfer": row({
    arrange: siteOwners,
    use: siteMembersListed,
    end: ({ o, site }) => transferSite(o, site.id),
    ended: 404,
  }),
  "identity.site_membership × site_deletion": row({
    arrange: siteOwners,
    use: siteMembersListed,
    end: async ({ o, site }) => {
      const deleted = await call("DELETE", `/api/v1/sites/${site.id}`, { token: o.owner.access_token });
      expectStatus("site deletion", deleted, 204);
    },
    ended: 404,
  }),
  "identity.site_membership × site_archival": row({
    arrange: siteOwners,
    use: siteMembersListed,
    end: async ({ site }) => archiveSite(site.id),
    ended: 404,
  }),

  // Transfer offers: accepting spends one (twins); `ended` is the accept's answer for an offer no longer
  // pending (409 NOT_PENDING).
  "identity.transfer_offer × use": twins({
    arrange: () => offeredSite(),
    use: offerAccepted,
    end: async (m) => expectStatus("accept", { status: await offerAccepted(m), body: null }, 200),
    ended: 409,
  }),
  "identity.transfer_offer × undo": twins({
    arrange: () => offeredSite(),
    use: offerAccepted,
    end: async ({ origin, id }) => {
      const cancelled = await call("POST", `/api/v1/auth/orgs/${origin.org.id}/transfers/${id}/cancel`, {
        token: origin.owner.access_token,
      });
      expectStatus("cancel", cancelled, 204);
    },
    ended: 409,
  }),
  // An administrator offered the site, then is removed: their offer ends with their grant.
  "identity.transfer_offer × member_removal": twins({
    arrange: () => offeredSite((origin) => orgMember(origin, "org_admin")),
    use: offerAccepted,
    end: ({ origin, by }) => removeFromOrg(origin, by),
    ended: 409,
  }),
  "identity.org_membership × sso_enforcement": row({
    arrange: async () => {
      const o = await ssoOrg();
      return { o, member: await orgMember(o, "org_member") };
    },
    use: async ({ o, member }) =>
      (await call("GET", `/api/v1/auth/orgs/${o.org.id}/members`, { token: member.access_token })).status,
    end: async ({ o }) => {
      const path = `/api/v1/auth/orgs/${o.org.id}/sso`;
      expectStatus("enforce", await withStepUp(o.owner, "PUT", path, { ...o.settings, enforced: true }), 200);
    },
    ended: 404,
  }),

  "identity.sso_configuration × undo": row({ arrange: ssoOrg, use: ssoStarts, end: undoSso, ended: 404 }),
  "identity.sso_configuration × sso_removal": row({
    arrange: ssoOrg,
    use: ssoStarts,
    end: removeSso,
    ended: 404,
  }),

  "identity.sso_session × sso_removal": row({
    arrange: ssoMember,
    use: ssoSessionWorks,
    end: ({ o }) => removeSso(o),
    ended: 401,
  }),
  "identity.sso_session × undo": row({
    arrange: ssoMember,
    use: ssoSessionWorks,
    end: ({ o }) => undoSso(o),
    ended: 401,
  }),
  "identity.sso_session × member_removal": row({
    arrange: ssoMember,
    use: ssoSessionWorks,
    end: ({ o, member }) => removeFromOrg(o, member),
    ended: 401,
  }),
  "identity.sso_session × sign_out_everywhere": row({
    arrange: ssoMember,
    use: ssoSessionWorks,
    end: ({ member }) => signOutEverywhere(member),
    ended: 401,
  }),
  // Removing SSO drops the links: set up again, the provider's sign-in of the person asks to link the
  // account with a mailed code (`#link=`) and sets no session, where the link gave one at once (`#done`).
  "identity.sso_link × sso_removal": row({
    arrange: ssoMember,
    use: async ({ member }) => sessionOf(await ssoCallback(member.email)),
    end: async ({ o }) => {
      await removeSso(o);
      const path = `/api/v1/auth/orgs/${o.org.id}/sso`;
      expectStatus("sso set up again", await withStepUp(o.owner, "PUT", path, o.settings), 200);
    },
    ended: 401,
  }),
  // The link signs the person in again through the provider with no further proof (303 to the page's
  // `#done`); once the organization removed the person, the callback refuses (403 FORBIDDEN).
  "identity.sso_link × member_removal": row({
    arrange: ssoMember,
    use: async ({ member }) => (await ssoCallback(member.email)).status,
    end: ({ o, member }) => removeFromOrg(o, member),
    works: 303,
    ended: 403,
  }),
  // MCP agents' grants (issue 37). `use` lists the tools and creates a post at `/v1/mcp` with the agent's
  // token, and once refused checks the refresh no longer mints tokens. Where the event alone would refuse
  // the agent (a membership, the site's owner, enforcement), `end` puts that back before the use, so the
  // refusal is the grant's own: the member re-added or promoted again, the site transferred back,
  // enforcement turned off again.
  "identity.oauth_grant × undo": row({
    arrange: agentOnSite,
    use: agentUse,
    end: async ({ agent }) => {
      const undone = await call("POST", "/api/v1/auth/oauth/undo", {
        body: { token: linkToken(agent.notice) },
      });
      expectStatus("undo", undone, 200);
    },
    ended: 401,
  }),
  "identity.oauth_grant × password_reset": row({
    arrange: agentOnSite,
    use: agentUse,
    end: ({ member }) => resetPassword(member),
    ended: 401,
  }),
  "identity.oauth_grant × password_change": row({
    arrange: agentOnSite,
    use: agentUse,
    end: ({ member }) => changePassword(member),
    ended: 401,
  }),
  "identity.oauth_grant × account_deletion": row({
    arrange: agentOnSite,
    use: agentUse,
    end: ({ member }) => deleteAccount(member),
    ended: 401,
  }),
  "identity.oauth_grant × member_removal": row({
    arrange: agentOnSite,
    use: agentUse,
    end: async ({ o, member }) => {
      await removeFromOrg(o, member);
      await setOrgRole(o, member, "org_admin");
    },
    ended: 401,
  }),
  // Demoted to `org_member` (reads only): the approved `posts:write` is no longer covered, so the grant ends
  // (it is never narrowed in place); promoted back, the agent stays out.
  "identity.oauth_grant × member_demotion": row({
    arrange: agentOnSite,
    use: agentUse,
    end: async ({ o, member }) => {
      await demoteInOrg(o, member);
      await setOrgRole(o, member, "org_admin");
    },
    ended: 401,
  }),
  "identity.oauth_grant × site_transfer": row({
    arrange: agentOnSite,
    use: agentUse,
    end: async ({ o, site }) => {
      const buyer = await orgOf();
      const there = await offer(o.owner, o.org.id, site.id, buyer.org.slug);
      const accepted = await call("POST", `/api/v1/auth/orgs/${buyer.org.id}/transfers/${there}/accept`, {
        token: buyer.owner.access_token,
      });
      expectStatus("transfer accept", accepted, 200);
      const back = await offer(buyer.owner, buyer.org.id, site.id, o.org.slug);
      const returned = await call("POST", `/api/v1/auth/orgs/${o.org.id}/transfers/${back}/accept`, {
        token: o.owner.access_token,
      });
      expectStatus("transfer back", returned, 200);
    },
    ended: 401,
  }),
  // The site's deletion and archival reach identity through no event: content refuses every use while the
  // site is deleted or archived (the registry says so).
  "identity.oauth_grant × site_deletion": row({
    arrange: agentOnSite,
    use: agentUseOnly,
    end: async ({ o, site }) => {
      const deleted = await call("DELETE", `/api/v1/sites/${site.id}`, { token: o.owner.access_token });
      expectStatus("site deletion", deleted, 204);
    },
    ended: 401,
  }),
  "identity.oauth_grant × site_archival": row({
    arrange: agentOnSite,
    use: agentUseOnly,
    end: ({ site }) => archiveSite(site.id),
    ended: 401,
  }),
  "identity.oauth_grant × sso_enforcement": row({
    arrange: async () => {
      const sso = await ssoOrg();
      return { ...(await agentOnSite(sso)), sso };
    },
    use: agentUse,
    end: async ({ sso }) => {
      const path = `/api/v1/auth/orgs/${sso.org.id}/sso`;
      const enforce = (enforced: boolean) =>
        withStepUp(sso.owner, "PUT", path, { ...sso.settings, enforced });
      expectStatus("enforce", await enforce(true), 200);
      expectStatus("enforce off", await enforce(false), 200);
    },
    ended: 401,
  }),
};
