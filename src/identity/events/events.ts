/**
 * The account's and the organization's security events (issue 18, beyond the spec). One statement
 * builder, `recordEvent`, makes the INSERT that a change's own D1 batch includes, so the row exists iff
 * the change committed; `ifChanged` makes it conditional on the batch's previous statement having
 * changed a row (compare-and-set writes). Where the state lives in a Durable Object (password lockout,
 * login challenges) the row is written by the same call path with `writeEvent` (three tries). The
 * client is kept as a network prefix (/24, /48) and a "browser on OS" family, never the address or the
 * full user agent. docs/decisions/security-events.md lists which event is written where.
 */
import { newId } from "../../lib/ids";
import type { Logger } from "../../lib/log";
import { ApiError } from "../../lib/problem";
import type { RequestFacts, Services } from "../core/context";
import { nowIso } from "../core/crypto";
import type { Env } from "../core/worker-env";
import { findVerifiedOwner } from "../signup/accounts-store";
import { insertEventStatement } from "./store";

/** Events whose subject is an account: only its owner reads them. */
export const ACCOUNT_EVENT_TYPES = [
  "sign_in_succeeded",
  "sign_in_failed",
  "sign_in_locked",
  "factor_added",
  "factor_removed",
  "recovery_codes_generated",
  "recovery_code_used",
  "address_added",
  "address_verified",
  "address_made_primary",
  "address_removed",
  "password_changed",
  "password_reset",
  "sessions_revoked",
  "not_me_used",
  "account_deletion_requested",
  "account_deletion_cancelled",
  "account_erased",
  // An MCP agent's grant approved on the consent page (issue 37).
  "oauth_grant.created",
  // An MCP agent's grant (issue 37): its first use of each day, and its end.
  "oauth_grant.used",
  "oauth_grant.revoked",
] as const;

/** Events whose subject is an organization: its members with `members:manage` read them. */
export const ORG_EVENT_TYPES = [
  "invitation_sent",
  "invitation_accepted",
  "invitation_revoked",
  "member_added",
  "member_removed",
  "role_changed",
  "transfer_offered",
  "transfer_accepted",
  "transfer_rejected",
  "transfer_cancelled",
  "transfer_reopened",
  "integrations_ended",
] as const;

export type AccountEventType = (typeof ACCOUNT_EVENT_TYPES)[number];
export type OrgEventType = (typeof ORG_EVENT_TYPES)[number];

/** How a sign-in was attempted: the factor that failed, or for a success the session's method. */
export type SignInMethod = "password" | "totp" | "email" | "sms" | "passkey" | "recovery_code" | "magic_link";

/** What is kept of the client: its network, and its browser and OS families. */
export interface EventOrigin {
  ipPrefix: string | null;
  userAgent: string | null;
}

interface EventFields {
  method?: string | null;
  actorUserId?: string | null;
  target?: string | null;
  detail?: string | null;
}

export type EventInput =
  | ({ userId: string; type: AccountEventType } & EventFields)
  | ({ orgId: string; type: OrgEventType } & EventFields);

function ipv6Groups(ip: string): number[] | null {
  const halves = ip.split("::");
  if (halves.length > 2) return null;
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((g) => Number.parseInt(g, 16)));
  const head = parse(halves[0]!);
  const tail = halves.length === 2 ? parse(halves[1]!) : [];
  const missing = 8 - head.length - tail.length;
  if (missing < 0 || (halves.length === 1 && missing !== 0)) return null;
  const groups = [...head, ...new Array<number>(missing).fill(0), ...tail];
  return groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

/** An IPv4 address as its /24 ("203.0.113.0/24"), an IPv6 address as its /48; null for anything else. */
export function ipPrefix(ip: string | null | undefined): string | null {
  if (!ip) return null;
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (v4) {
    const octets = v4.slice(1, 4).map(Number);
    return octets.every((o) => o <= 255) && Number(v4[4]) <= 255 ? `${octets.join(".")}.0/24` : null;
  }
  if (!/^[0-9a-f:]+$/i.test(ip)) return null;
  const groups = ipv6Groups(ip);
  return groups
    ? `${groups
        .slice(0, 3)
        .map((g) => g.toString(16))
        .join(":")}::/48`
    : null;
}

const BROWSERS: [RegExp, string][] = [
  [/\bEdg(e|A|iOS)?\//, "Edge"],
  [/\b(OPR|Opera)\//, "Opera"],
  [/\bSamsungBrowser\//, "Samsung Internet"],
  [/\b(Firefox|FxiOS)\//, "Firefox"],
  [/\b(Chrome|CriOS|Chromium)\//, "Chrome"],
  [/\bVersion\/[\d.]+.*Safari\//, "Safari"],
  [/\bcurl\//, "curl"],
];

const SYSTEMS: [RegExp, string][] = [
  [/\b(iPhone|iPad|iPod)\b/, "iOS"],
  [/\bAndroid\b/, "Android"],
  [/\bCrOS\b/, "ChromeOS"],
  [/\bWindows\b/, "Windows"],
  [/\bMac OS X\b|\bMacintosh\b/, "macOS"],
  [/\bLinux\b/, "Linux"],
];

/** A user agent reduced to "Browser on OS" (each "Other" when unknown); null without a user agent. */
export function userAgentFamily(ua: string | null | undefined): string | null {
  if (!ua) return null;
  const browser = BROWSERS.find(([re]) => re.test(ua))?.[1] ?? "Other";
  const system = SYSTEMS.find(([re]) => re.test(ua))?.[1] ?? "Other";
  return `${browser} on ${system}`;
}

/** What an event keeps of the request (see `EventOrigin`). */
export function eventOrigin(request: RequestFacts): EventOrigin {
  return { ipPrefix: ipPrefix(request.ip), userAgent: userAgentFamily(request.userAgent) };
}

/**
 * The INSERT of one event, to run inside the batch of the change it records. With `ifChanged` the row
 * is written only when the statement just before it in the batch changed a row (SQLite `changes()`),
 * so a compare-and-set that lost records nothing.
 */
export function recordEvent(
  db: D1Database,
  origin: EventOrigin,
  e: EventInput,
  options: { ifChanged?: boolean } = {},
): D1PreparedStatement {
  return insertEventStatement(
    db,
    {
      id: newId(),
      user_id: "userId" in e ? e.userId : null,
      org_id: "orgId" in e ? e.orgId : null,
      type: e.type,
      method: e.method ?? null,
      actor_user_id: e.actorUserId ?? null,
      target: e.target ?? null,
      detail: e.detail?.slice(0, 200) ?? null,
      ip_prefix: origin.ipPrefix,
      user_agent: origin.userAgent,
      created_at: nowIso(),
    },
    options.ifChanged === true,
  );
}

/**
 * The events of a session just issued, for its own batch: the sign-in with the session's method, and
 * the recovery code it spent (the code's single use is a compare-and-set inside the login challenge's
 * call; its event rides with the session that code earned). With `ifChanged` (a session insert
 * conditioned on the credential epoch) each is written only if the statement before it wrote.
 */
export function signInEvents(
  db: D1Database,
  origin: EventOrigin,
  userId: string,
  method: string,
  options: { ifChanged?: boolean } = {},
) {
  const events = [recordEvent(db, origin, { userId, type: "sign_in_succeeded", method }, options)];
  if (method.endsWith("_recovery_code")) {
    const used = { userId, type: "recovery_code_used" as const, method: "recovery_code" };
    events.push(recordEvent(db, origin, used, options));
  }
  return events;
}

/**
 * An event of the caller's own account (the Bearer's `userId`), for the batch of the change; with
 * `ifChanged` (compare-and-set writes) only when the statement before it changed a row.
 */
export function callerEvent(
  env: Pick<Env, "DB">,
  services: Pick<Services, "request">,
  userId: string,
  type: AccountEventType,
  fields: EventFields = {},
  options: { ifChanged?: boolean } = {},
): D1PreparedStatement {
  return recordEvent(env.DB, eventOrigin(services.request), { userId, type, ...fields }, options);
}

/**
 * Organization events keep who acted (`actorUserId`) but not the actor's network or browser: a person in
 * two organizations must not show where they are to the admins of either.
 */
const NO_ORIGIN: EventOrigin = { ipPrefix: null, userAgent: null };

export function orgEvent(
  db: D1Database,
  orgId: string,
  type: OrgEventType,
  fields: EventFields,
  options: { ifChanged?: boolean } = {},
): D1PreparedStatement {
  return recordEvent(db, NO_ORIGIN, { orgId, type, ...fields }, options);
}

/**
 * A transfer's event for both organizations it concerns; the second row is conditioned on the first
 * having been written, so with `ifChanged` both follow the compare-and-set before them.
 */
export function transferEvents(
  db: D1Database,
  orgs: { fromOrgId: string; toOrgId: string },
  type:
    | "transfer_offered"
    | "transfer_accepted"
    | "transfer_rejected"
    | "transfer_cancelled"
    | "transfer_reopened",
  fields: EventFields,
  options: { ifChanged?: boolean } = {},
): D1PreparedStatement[] {
  return [
    orgEvent(db, orgs.fromOrgId, type, fields, options),
    orgEvent(db, orgs.toOrgId, type, fields, { ifChanged: true }),
  ];
}

const WRITE_TRIES = 3;

/**
 * Writes an event whose change lives in a Durable Object (no D1 batch to join): three tries, then the
 * loss is logged and swallowed, since the answer of the request it records is already decided.
 */
async function writeEvent(statement: D1PreparedStatement, log?: Pick<Logger, "error">) {
  for (let attempt = 1; attempt <= WRITE_TRIES; attempt += 1) {
    try {
      await statement.run();
      return;
    } catch (err) {
      if (attempt === WRITE_TRIES) log?.error("security_event_lost", { reason: (err as Error).message });
    }
  }
}

function failureType(err: unknown): "sign_in_failed" | "sign_in_locked" | null {
  if (!(err instanceof ApiError)) return null;
  if (err.code === "ACCOUNT_LOCKED") return "sign_in_locked";
  if (err.code === "INVALID_CREDENTIALS" || err.code === "CODE_INVALID") return "sign_in_failed";
  return null;
}

/**
 * A refused first factor (password or magic-link code) for an address: `.catch(...)` of the attempt.
 * Known and unknown addresses do the same work on the response path (one `waitUntil`); the lookup of the
 * address's owner and the write happen after the answer, so the answer's timing says nothing.
 */
export function recordSignInFailure(
  env: Pick<Env, "DB">,
  services: Pick<Services, "request" | "waitUntil" | "log">,
  address: string,
  method: SignInMethod,
) {
  return (err: unknown): never => {
    const type = failureType(err);
    const origin = eventOrigin(services.request);
    const db = env.DB;
    services.waitUntil(
      (async () => {
        if (!type) return;
        const owner = await findVerifiedOwner(db, address, { includeCoolingOff: true });
        if (owner)
          await writeEvent(recordEvent(db, origin, { userId: owner.user_id, type, method }), services.log);
      })().catch(() => undefined),
    );
    throw err;
  };
}

/**
 * A wrong second factor counted by a login challenge (its state lives in the challenge's Durable
 * Object): written on the request's own path, with the retry of `writeEvent`, before the answer.
 */
export function recordFactorFailure(
  env: Pick<Env, "DB">,
  services: Pick<Services, "request" | "log">,
  method: SignInMethod,
) {
  const origin = eventOrigin(services.request);
  return (userId: string) =>
    writeEvent(recordEvent(env.DB, origin, { userId, type: "sign_in_failed", method }), services.log);
}
