/**
 * The account page's helpers (account.ts and its sections in account-life.ts).
 *
 * Session: `Auth.accessToken()` (common.ts) keeps the token in memory and, on load, rotates the HttpOnly
 * `svc_refresh` cookie once, serialized across tabs; null (401 REFRESH_FAILED) sends the user to sign-in,
 * 503 is retried and never signs anyone out. A call answered 401 TOKEN_EXPIRED or UNAUTHENTICATED (token expired or session
 * revoked) refreshes once and is retried.
 *
 * Step-up: an operation answered 428 STEP_UP_REQUIRED opens the one code prompt in the section that asked,
 * naming the masked address the code went to; the operation is repeated with the code (header
 * `X-Step-Up-Code`, or body `code` for the primary-address change). A wrong code (401 CODE_INVALID) is
 * announced and the prompt stays open; Cancel changes nothing.
 *
 * Everything the API returns is put into the page with textContent, never as HTML.
 */
import type { ApiResult } from "./globals";

export const A = window.Auth;
export const $ = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;
const SIGN_IN = `/auth/sign-in?next=${encodeURIComponent("/auth/account")}`;

/** Thrown when the session is gone: the page is leaving for sign-in. */
export class Halt extends Error {}

function toSignIn(): never {
  A.clearSession();
  location.replace(SIGN_IN);
  throw new Halt("Your session has ended. Opening the sign-in page.");
}

export async function session(): Promise<string> {
  const t = await A.accessToken();
  if (!t) toSignIn();
  return t;
}

const unauthorized = (r: ApiResult) =>
  r.status === 401 && (r.body?.code === "TOKEN_EXPIRED" || r.body?.code === "UNAUTHENTICATED");

/** An API call with the session's token; an expired or revoked token refreshes once and retries. */
export async function call<T extends object = object>(
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
): Promise<ApiResult<T>> {
  const first = await session();
  let r = await A.api<T>(method, path, body, { token: first, headers });
  if (unauthorized(r)) {
    A.forgetToken(first);
    r = await A.api<T>(method, path, body, { token: await session(), headers });
    if (unauthorized(r)) toSignIn();
  }
  return r;
}

export const MESSAGES: Record<string, string> = {
  CODE_INVALID:
    "That code is not right, has expired or was already used. Check the newest e-mail and try again.",
  MFA_INVALID_CODE: "That code is not right. Enter the current 6-digit code from your authenticator app.",
  EMAIL_ALREADY_ADDED: "That address is already on your account.",
  EMAIL_LIMIT_REACHED: "Your account already has 10 addresses, the most it can hold. Remove one first.",
  EMAIL_TAKEN: "Another account proved this address first, so it cannot be added to yours.",
  EMAIL_NOT_VERIFIED: "Verify this address with its code before making it primary.",
  EMAIL_IS_PRIMARY:
    "This is your primary address, so it cannot be removed. Make another verified address primary first, then remove this one.",
  EMAIL_LAST_VERIFIED:
    "This is your only verified address, so it cannot be removed. Add and verify another address first.",
  EMAIL_NOT_FOUND: "That address is no longer on your account.",
  INVALID_EMAIL: "Enter a valid e-mail address, like name@example.com.",
  LAST_STRONG_FACTOR:
    "This is your only strong second factor. Set up an authenticator app or add another passkey before removing it.",
  PASSKEY_ALREADY_REGISTERED: "This passkey is already registered on an account.",
  PASSKEY_LIMIT_REACHED: "Your account already has 20 passkeys, the most it can hold. Remove one first.",
  PASSKEY_NOT_FOUND: "That passkey is no longer on your account.",
  PASSKEY_CEREMONY_INVALID: "The passkey registration expired. Try again.",
  PASSKEY_INVALID: "The passkey was refused. Try again, or use another authenticator.",
  PASSKEY_DISABLED: "Passkeys are not available on this service.",
  TOTP_ALREADY_ENROLLED: "An authenticator app is already set up. Remove it first to set up another.",
  RATE_LIMITED: "Too many attempts. Wait a few minutes, then try again.",
  TOO_MANY_ATTEMPTS: "Too many attempts. Wait a few minutes, then try again.",
  STEP_UP_UNAVAILABLE:
    "We could not send or check the confirmation code. Nothing was changed; try again shortly.",
};

function explain(r: ApiResult): string {
  const code = r?.body?.code;
  return (code && Object.hasOwn(MESSAGES, code) && MESSAGES[code]) || A.message(r);
}
export const fail = (r: ApiResult) => A.announce(explain(r), "error");
export const ok = (text: string) => A.announce(text, "ok");

type Prop = string | boolean | ((event: Event) => unknown) | null | undefined;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props?: Record<string, Prop>,
  children?: (Node | string)[],
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null) continue;
    if (key === "text") node.textContent = value as string;
    else if (key === "className") node.className = value as string;
    else if (key === "onclick") node.addEventListener("click", value as (event: Event) => unknown);
    else node.setAttribute(key, value as string);
  }
  for (const child of children || []) node.append(child);
  return node;
}

export function when(iso: string | null | undefined): string {
  if (!iso) return "Never";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

/** Runs a button's action with the button disabled; errors are announced (a Halt is already leaving). */
export async function act(button: HTMLButtonElement | null, fn: () => unknown): Promise<void> {
  if (button) button.disabled = true;
  try {
    await fn();
  } catch (err) {
    if (!(err instanceof Halt))
      A.announce((err as Error | null)?.message || "Something went wrong. Try again.", "error");
  } finally {
    if (button?.isConnected) button.disabled = false;
  }
}

/* ---------- step-up ---------- */

let prompt: { resolve: (value: string | null) => void } | null = null;

function closePrompt(value: string | null) {
  const p = prompt;
  prompt = null;
  $("stepup").hidden = true;
  if (p) p.resolve(value);
  return p;
}

function askCode(sectionId: string, what: string, sentTo: string | null): Promise<string | null> {
  if (prompt) closePrompt(null);
  const form = $("stepup");
  $(sectionId).append(form);
  $("stepup-what").textContent = what;
  $("stepup-sent").textContent = sentTo || "your primary e-mail address";
  form.hidden = false;
  const input = $<HTMLInputElement>("f-stepup-code");
  input.value = "";
  input.focus();
  return new Promise((resolve) => {
    prompt = { resolve };
  });
}

/** Wires the step-up prompt's form (once, when the page starts). */
export function wireStepUp(): void {
  $("stepup").addEventListener("submit", (event) => {
    event.preventDefault();
    const code = $<HTMLInputElement>("f-stepup-code").value.trim();
    if (!code) {
      A.announce("Enter the code from the e-mail.", "error");
      $("f-stepup-code").focus();
      return;
    }
    closePrompt(code);
  });

  $("stepup-cancel").addEventListener("click", () => closePrompt(null));
}

/**
 * Runs attempt(code) without a code first; while the server asks for step-up (428) or refuses the code
 * (401 CODE_INVALID), asks for the code and repeats. Null when the user cancelled.
 */
export async function withStepUp<T extends object>(
  sectionId: string,
  trigger: HTMLElement | null,
  what: string,
  attempt: (code: string | undefined) => Promise<ApiResult<T>>,
): Promise<ApiResult<T> | null> {
  let r = await attempt(undefined);
  let sentTo: string | null = null;
  let prompted = false;
  for (;;) {
    const code = r.body?.code;
    if (r.status === 428 && code === "STEP_UP_REQUIRED") {
      sentTo = (r.body?.details?.sent_to as string | undefined) || sentTo;
      ok(`To ${what}, enter the code we sent to ${sentTo || "your primary e-mail address"}.`);
    } else if (r.status === 401 && code === "CODE_INVALID" && prompted) {
      fail(r);
    } else {
      return r;
    }
    prompted = true;
    const entered = await askCode(sectionId, what, sentTo);
    if (entered === null) {
      ok("Cancelled. Nothing was changed.");
      // After act() has enabled the button again.
      if (trigger)
        setTimeout(() => {
          if (trigger.isConnected) trigger.focus();
        });
      return null;
    }
    r = await attempt(entered);
  }
}

export const stepUpHeader = (code: string | undefined) => (code ? { "x-step-up-code": code } : undefined);
