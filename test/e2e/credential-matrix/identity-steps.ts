/**
 * What the identity rows of the credential matrix do, as a person (or the operator's cron) does it through
 * the gateway: accounts, sign-ins, the step-up, the ending events (password change and reset, sign out
 * everywhere, the account's deletion and erasure, the owner's one-click undo), and the dev outbox.
 */
import { env, exports } from "cloudflare:workers";
import type { TOTP } from "otpauth";
import { proofValue } from "../../../src/identity/sso/domain-proof";
import { freshIp, softAuthenticator } from "../../support/identity-helpers";
import { cookieOf, dnsZone, followProvider, fragmentToken, idpAccount } from "../../support/oidc-browser";
import { IDP_CLIENT, IDP_HOST, IDP_ISSUER } from "../../support/oidc-constants";
import {
  BASE,
  type CallResult,
  call,
  createOrg,
  PASSWORD,
  type Session,
  totpFor,
  uniqueEmail,
  verifiedUser,
} from "../../support/platform";

export const NEW_PASSWORD = "another quite unusual passphrase 77";

export interface Mail {
  purpose: string;
  code: string | null;
  link: string | null;
  subject: string;
}

/** The messages sent to `to` (newest first), as the dev outbox shows them. */
export async function mailbox(to: string): Promise<Mail[]> {
  const res = await call<{ messages: Mail[] }>(
    "GET",
    `/api/v1/auth/__dev/outbox?to=${encodeURIComponent(to)}`,
  );
  return res.body.messages;
}

/**
 * The newest message of `purpose` to `to` that `seen` does not hold yet (identity mails some messages after
 * it answers, so the outbox is polled briefly, as a person waits for the message).
 */
export async function newMail(to: string, purpose: string, seen: readonly Mail[] = []): Promise<Mail> {
  const known = new Set(seen.map((m) => `${m.code}|${m.link}`));
  for (let attempt = 0; attempt < 50; attempt++) {
    const found = (await mailbox(to)).find((m) => m.purpose === purpose && !known.has(`${m.code}|${m.link}`));
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no new ${purpose} message for ${to}`);
}

/** The `token` query parameter of a mailed link. */
export function linkToken(mail: Mail): string {
  return new URL(mail.link!).searchParams.get("token")!;
}

/** An account and its password, e-mail and first session (signed up and confirmed, no second factor). */
export interface Person extends Session {
  email: string;
  password: string;
}

export async function person(label = "matrix"): Promise<Person> {
  const email = uniqueEmail(label);
  const session = await verifiedUser(email);
  return { ...session, email, password: PASSWORD };
}

/**
 * A step-up operation as the owner performs it: the call, and on 428 STEP_UP_REQUIRED the code mailed to
 * the primary address in `X-Step-Up-Code` on a second call (what the hosted pages do).
 */
export async function withStepUp<T = Record<string, unknown>>(
  who: { email: string; access_token: string },
  method: string,
  path: string,
  body?: unknown,
) {
  const first = await call<T>(method, path, { token: who.access_token, body });
  if (first.status !== 428) return first;
  const code = (await newMail(who.email, "sensitive_action")).code!;
  return call<T>(method, path, { token: who.access_token, body, headers: { "x-step-up-code": code } });
}

function expectStatus(what: string, res: { status: number; body: unknown }, status: number) {
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
}

/** A new session by magic link (for an account without a second factor: the code alone signs in). */
export async function magicSignIn(who: { email: string }): Promise<Session> {
  const seen = await mailbox(who.email);
  const ip = freshIp();
  const sent = await call("POST", "/api/v1/auth/magic-link/request", {
    body: { email: who.email },
    headers: { "cf-connecting-ip": ip },
  });
  expectStatus("magic-link request", sent, 202);
  const code = (await newMail(who.email, "magic_link", seen)).code!;
  const res = await call<Session>("POST", "/api/v1/auth/magic-link/verify", {
    body: { email: who.email, code },
    headers: { "cf-connecting-ip": ip },
  });
  expectStatus("magic-link verify", res, 200);
  return res.body;
}

/** The refresh call; on 200 the session's refresh token moves on (a refresh token is used once). */
export async function refresh(session: { refresh_token: string; access_token?: string }): Promise<number> {
  const res = await call<Session>("POST", "/api/v1/auth/refresh", {
    body: { refresh_token: session.refresh_token },
  });
  if (res.status === 200) {
    session.refresh_token = res.body.refresh_token;
    session.access_token = res.body.access_token;
  }
  return res.status;
}

/** An identity route a session's access token reaches (its liveness is read in D1 on every call). */
export async function me(accessToken: string): Promise<number> {
  return (await call("GET", "/api/v1/auth/me", { token: accessToken })).status;
}

// The ending events.

/** `DELETE /auth/sessions` (step-up): every session of the account ends, the caller's too. */
export async function signOutEverywhere(who: Person): Promise<void> {
  expectStatus("sign out everywhere", await withStepUp(who, "DELETE", "/api/v1/auth/sessions"), 204);
}

/** `POST /auth/password/change` (current password and step-up): every other session ends. */
export async function changePassword(who: Person): Promise<void> {
  const body = { current_password: who.password, new_password: NEW_PASSWORD };
  expectStatus("password change", await withStepUp(who, "POST", "/api/v1/auth/password/change", body), 204);
  who.password = NEW_PASSWORD;
}

/** The reset as the owner does it: a code mailed to the address, then `POST /auth/password/reset/confirm`. */
export async function resetPassword(who: Person): Promise<void> {
  const seen = await mailbox(who.email);
  const ip = freshIp();
  const sent = await call("POST", "/api/v1/auth/password/reset/request", {
    body: { email: who.email },
    headers: { "cf-connecting-ip": ip },
  });
  expectStatus("reset request", sent, 202);
  const code = (await newMail(who.email, "password_reset", seen)).code!;
  const reset = await call("POST", "/api/v1/auth/password/reset/confirm", {
    body: { email: who.email, code, new_password: NEW_PASSWORD },
    headers: { "cf-connecting-ip": ip },
  });
  expectStatus("reset confirm", reset, 204);
  who.password = NEW_PASSWORD;
}

type Scheduled = { scheduled(o: { cron: string; scheduledTime: Date }): Promise<unknown> };

/** Identity's hourly run (through the gateway's service binding), at `at`. */
export async function identityHourlyRun(at: number): Promise<void> {
  await (env as unknown as { IDENTITY: Scheduled }).IDENTITY.scheduled({
    cron: "0 * * * *",
    scheduledTime: new Date(at),
  });
}

/**
 * The account's deletion as its owner asks for it (`DELETE /auth/account`, step-up), then its erasure by
 * identity's hourly run at a time past the 30-day grace.
 */
export async function deleteAccount(who: Person): Promise<void> {
  const asked = await withStepUp<{ erase_after: string }>(who, "DELETE", "/api/v1/auth/account");
  expectStatus("account deletion", asked, 202);
  await identityHourlyRun(Date.parse(asked.body.erase_after) + 3600_000);
}

/** The owner's one-click undo of what a notice names (`POST /auth/disown` with the link's token). */
export async function disown(notice: Mail): Promise<void> {
  expectStatus(
    "disown",
    await call("POST", "/api/v1/auth/disown", { body: { token: linkToken(notice) } }),
    204,
  );
}

// Second factors.

export interface TotpPerson extends Person {
  totp: TOTP;
  /** The TOTP step of the enrolment; each later login spends the next one (a step is accepted once). */
  step: number;
  recoveryCodes: string[];
}

/** A TOTP code for the given 30-second step. */
export function totpAt(who: TotpPerson, step: number): string {
  return who.totp.generate({ timestamp: step * 30_000 });
}

/**
 * Waits out the last 5 s of a TOTP step. The previous step's code is inside identity's window (one step
 * either side) only while identity is still in this step: computed 1 s before a step ends, it reached
 * identity after the boundary under load and was refused (one matrix row in a clean-clone run). Identity's
 * TOTP clock is its real one, which an e2e test cannot move, so this is the one wait of the file.
 */
async function clearOfStepEnd(): Promise<void> {
  const left = 30_000 - (Date.now() % 30_000);
  if (left < 5_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

/**
 * The account enrols TOTP (its first factor: the access token alone) and confirms it with the previous
 * step's code, so the current and the next step stay free for two sign-ins within the drift window.
 */
export async function enrolTotp(who: Person): Promise<TotpPerson> {
  const enrol = await call<{ secret: string }>("POST", "/api/v1/auth/mfa/totp", { token: who.access_token });
  expectStatus("totp enrol", enrol, 200);
  const totp = totpFor(enrol.body.secret);
  await clearOfStepEnd();
  const step = Math.floor(Date.now() / 30_000);
  const confirmed = await call<{ recovery_codes: string[] }>("POST", "/api/v1/auth/mfa/totp/confirm", {
    token: who.access_token,
    body: { code: totp.generate({ timestamp: (step - 1) * 30_000 }) },
  });
  expectStatus("totp confirm", confirmed, 200);
  return { ...who, totp, step, recoveryCodes: confirmed.body.recovery_codes };
}

/** `POST /auth/login` with the password and the TOTP code of `step`. */
export async function loginWithTotp(who: TotpPerson, step: number) {
  return call<Session>("POST", "/api/v1/auth/login", {
    body: { email: who.email, password: who.password, totp_code: totpAt(who, step) },
    headers: { "cf-connecting-ip": freshIp() },
  });
}

/** `POST /auth/login/start`: the phased sign-in's first step (its challenge and methods on 200). */
export async function loginStart(who: { email: string; password: string }) {
  return call<{ challenge: string; methods: string[] }>("POST", "/api/v1/auth/login/start", {
    body: { email: who.email, password: who.password },
    headers: { "cf-connecting-ip": freshIp() },
  });
}

/** `POST /auth/login/mfa/verify` of a challenge with one method's code. */
export async function loginVerify(challenge: string, method: string, code: string, trustDevice = false) {
  return call<Session>("POST", "/api/v1/auth/login/mfa/verify", {
    body: { challenge, method, code, ...(trustDevice ? { trust_device: true } : {}) },
    headers: { "cf-connecting-ip": freshIp() },
  });
}

/** The whole phased sign-in with one method: the status of its verification (a start refused: its status). */
export async function signInWith(who: { email: string; password: string }, method: string, code: string) {
  const start = await loginStart(who);
  if (start.status !== 200) return start.status;
  return (await loginVerify(start.body.challenge, method, code)).status;
}

// Passkeys, with a software authenticator (test/support/identity-helpers.ts).

export const WEBAUTHN = { origin: "http://localhost:8787", rpId: "localhost" };

export type Authenticator = Awaited<ReturnType<typeof softAuthenticator>>;

export interface PasskeyPerson extends TotpPerson {
  authenticator: Authenticator;
  passkeyId: string;
  /** The authenticator's signature counter (each assertion moves it on). */
  counter: number;
}

/**
 * A passkey registered as the owner does it: `register/begin` with the step-up code, the authenticator's
 * attestation, `register/finish`. The account has TOTP first, so removing the passkey leaves a strong factor.
 */
export async function registerPasskey(who: TotpPerson): Promise<PasskeyPerson> {
  const begin = await withStepUp<{ publicKey: { challenge: string } }>(
    who,
    "POST",
    "/api/v1/auth/mfa/passkey/register/begin",
    {},
  );
  expectStatus("passkey begin", begin, 200);
  const authenticator = await softAuthenticator();
  const credential = await authenticator.attest({
    challenge: begin.body.publicKey.challenge,
    ...WEBAUTHN,
    credProps: { rk: true },
  });
  const finish = await call<{ id: string }>("POST", "/api/v1/auth/mfa/passkey/register/finish", {
    token: who.access_token,
    body: { credential, name: "matrix passkey" },
  });
  expectStatus("passkey finish", finish, 201);
  return { ...who, authenticator, passkeyId: finish.body.id, counter: 0 };
}

const userHandle = (userId: string) =>
  btoa(userId).replaceAll("+", "-").replaceAll("/", "_").replaceAll("=", "");

/** Passkey-first sign-in (no address, no password): the status of `login/passkey/finish`. */
export async function passkeySignIn(who: PasskeyPerson): Promise<number> {
  const ip = freshIp();
  const begin = await call<{ publicKey: { challenge: string } }>("POST", "/api/v1/auth/login/passkey/begin", {
    body: {},
    headers: { "cf-connecting-ip": ip },
  });
  expectStatus("passkey sign-in begin", begin, 200);
  who.counter += 1;
  const credential = await who.authenticator.assert({
    challenge: begin.body.publicKey.challenge,
    ...WEBAUTHN,
    counter: who.counter,
    userHandle: userHandle(who.user.id),
  });
  const finish = await call("POST", "/api/v1/auth/login/passkey/finish", {
    body: { credential },
    headers: { "cf-connecting-ip": ip },
  });
  return finish.status;
}

// Organizations, sites and their people.

export interface Org {
  owner: Person;
  org: { id: string; slug: string };
}

export async function orgOf(owner?: Person): Promise<Org> {
  const who = owner ?? (await person("owner"));
  return { owner: who, org: await createOrg(who.access_token, "Matrix") };
}

/** An account of its own added to the organization in `role` by its owner. */
export async function orgMember(o: Org, role = "org_admin"): Promise<Person> {
  const who = await person("member");
  const added = await call("POST", `/api/v1/auth/orgs/${o.org.id}/members`, {
    token: o.owner.access_token,
    body: { email: who.email, role },
  });
  expectStatus("add member", added, 201);
  return who;
}

/** The invitation's link token, from the invitee's mailbox (the newest invitation). */
export async function invitationToken(email: string, seen: readonly Mail[] = []): Promise<string> {
  return linkToken(await newMail(email, "invitation", seen));
}

/** `POST /auth/invitations/accept` with the link's token (a new account gets the password). */
export async function acceptInvitation(token: string): Promise<CallResult<Session>> {
  return call<Session>("POST", "/api/v1/auth/invitations/accept", {
    body: { token, password: PASSWORD },
    headers: { "cf-connecting-ip": freshIp() },
  });
}

/** A new account that joins the site in `role` through the site invitation sent by `inviter`. */
export async function siteMemberByInvitation(
  inviter: { access_token: string },
  siteId: string,
  role: string,
): Promise<Person> {
  const email = uniqueEmail("site-member");
  const invited = await call("POST", `/api/v1/auth/sites/${siteId}/invitations`, {
    token: inviter.access_token,
    body: { email, role },
  });
  expectStatus("site invitation", invited, 202);
  const accepted = await acceptInvitation(await invitationToken(email));
  expectStatus("accept", accepted, 200);
  return { ...accepted.body, email, password: PASSWORD };
}

// Organization single sign-on, with the tests' OpenID provider (https://idp.test, test/support/fakes/oidc.ts).

export interface SsoOrg extends Org {
  domain: string;
  settings: Record<string, unknown>;
  /** The owners' notice of the configuration, with its one-click undo link. */
  notice: Mail;
}

/** An organization whose owner sets up SSO (step-up) with a DNS-proved domain; not enforced. */
export async function ssoOrg(): Promise<SsoOrg> {
  const o = await orgOf();
  const domain = `matrix-${crypto.randomUUID().slice(0, 8)}.test`;
  await dnsZone(IDP_HOST, { A: ["93.184.216.34"] });
  await dnsZone(`_platform-verify.${domain}`, { TXT: [await proofValue(o.org.id, domain)] });
  const settings = {
    issuer: IDP_ISSUER,
    ...IDP_CLIENT,
    domains: [domain],
    enforced: false,
    allow_passwords: true,
  };
  const seen = await mailbox(o.owner.email);
  const set = await withStepUp(o.owner, "PUT", `/api/v1/auth/orgs/${o.org.id}/sso`, settings);
  expectStatus("sso setup", set, 200);
  return { ...o, domain, settings, notice: await newMail(o.owner.email, "sso_notice", seen) };
}

/** Signs in at the provider as `email` and comes back: the callback's answer (303 to the hosted page). */
export async function ssoCallback(email: string): Promise<Response> {
  const ip = freshIp();
  const start = await exports.default.fetch(
    `${BASE}/api/v1/auth/sso/start?email=${encodeURIComponent(email)}`,
    {
      headers: { "cf-connecting-ip": ip },
      redirect: "manual",
    },
  );
  expectStatus("sso start", { status: start.status, body: await start.text() }, 303);
  const callbackPath = await followProvider(start.headers.get("location") ?? "");
  return exports.default.fetch(`${BASE}${callbackPath}`, {
    headers: { "cf-connecting-ip": ip, cookie: `svc_sso=${cookieOf(start, "svc_sso")}` },
    redirect: "manual",
  });
}

/** A person of the vouched domain registers through the provider (`POST /auth/sso/register`): an SSO session. */
export async function ssoPerson(o: SsoOrg): Promise<Person> {
  const email = `person-${crypto.randomUUID().slice(0, 8)}@${o.domain}`;
  await idpAccount({ email, name: "Matrix person" });
  const back = await ssoCallback(email);
  expectStatus("sso callback", { status: back.status, body: null }, 303);
  const registration_token = fragmentToken(back.headers.get("location") ?? "", "register");
  const registered = await call<Session>("POST", "/api/v1/auth/sso/register", {
    body: { registration_token, display_name: "Matrix person", password: PASSWORD },
  });
  expectStatus("sso register", registered, 201);
  return { ...registered.body, email, password: PASSWORD };
}
