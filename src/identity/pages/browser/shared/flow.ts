/**
 * The sign-in side's shared part, imported by each of its page scripts (sign-in, sign-up, confirm,
 * magic-link, password-reset, invitation-accept): where to go once signed in, and the second step shared
 * by the password sign-in and the magic link. Sets `window.SignIn` and wires the second-factor forms when
 * the page has them. Runs after `common.js` (`window.Auth`).
 */
import type { ApiResult, SecondFactorStart, SignedInBody, SignInApi } from "./globals";

const A = window.Auth;
const DEFAULT_NEXT = "/auth/account";
const $ = <T extends Element = HTMLElement>(selector: string) => document.querySelector<T>(selector);

// Checked on the server already (safeNextPath); checked again, the same way, so a tampered attribute
// cannot leave the origin: the value and the path it normalises to must both resolve on this origin.
function sameOriginPath(value: string): string | null {
  try {
    const url = new URL(value, location.origin);
    return url.origin === location.origin ? url.pathname + url.search + url.hash : null;
  } catch {
    return null;
  }
}

// One leading slash, no backslash (92), space, control character or DEL.
function plainPath(value: string): boolean {
  if (value.charAt(0) !== "/" || value.charAt(1) === "/") return false;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code <= 32 || code === 92 || code === 127) return false;
  }
  return true;
}

function nextPath(): string {
  const el = $("[data-next]");
  const value = el ? el.getAttribute("data-next") || "" : "";
  if (!plainPath(value)) return DEFAULT_NEXT;
  const path = sameOriginPath(value);
  return path && sameOriginPath(path) === path ? path : DEFAULT_NEXT;
}

function withNext(path: string, extra?: Record<string, string>): string {
  const query = new URLSearchParams(extra || {});
  if (nextPath() !== DEFAULT_NEXT) query.set("next", nextPath());
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

function signedIn(body: SignedInBody | null, note?: string): void {
  A.setSession(body);
  A.announce(`Signed in.${note ? ` ${note}` : ""}`, "ok");
  location.assign(nextPath());
}

const flow: { challenge: string | null; methods: string[]; restart: (() => void) | undefined } = {
  challenge: null,
  methods: [],
  restart: undefined,
};
const PREFERRED = ["totp", "passkey", "sms", "email", "recovery_code"];

function show(method: string | null | undefined): void {
  document.querySelectorAll<HTMLFormElement>("#second-factor form[data-method]").forEach((form) => {
    form.hidden = form.getAttribute("data-method") !== method;
  });
  let others = 0;
  document.querySelectorAll<HTMLButtonElement>("#second-factor [data-switch]").forEach((button) => {
    const m = button.getAttribute("data-switch");
    button.hidden = m === method || flow.methods.indexOf(m as string) === -1;
    if (!button.hidden) others += 1;
  });
  $("#sf-others")!.hidden = others === 0;
  const first = $(`#sf-${method} input, #sf-${method} button`);
  if (first) first.focus();
}

function startSecondFactor(opened: SecondFactorStart, options?: { restart?: () => void }): void {
  flow.challenge = opened.challenge;
  flow.methods = opened.methods || [];
  flow.restart = options?.restart;
  $("#second-factor")!.hidden = false;
  const method = PREFERRED.find((m) => flow.methods.indexOf(m) !== -1) || flow.methods[0];
  show(method);
}

function failed(result: ApiResult, form: HTMLFormElement): void {
  const body = result.body || {};
  if (body.code === "MFA_INVALID_CODE") {
    const left = body.details ? body.details.attempts_remaining : undefined;
    const rest = typeof left === "number" ? ` ${left}${left === 1 ? " attempt" : " attempts"} left.` : "";
    form
      .querySelectorAll<HTMLInputElement>("input[inputmode], input[name=recovery_code]")
      .forEach((input) => {
        input.value = "";
      });
    const used = body.details && body.details.reason === "code_already_used";
    A.announce(
      (used ? "That code was already used: wait for the next one." : "That code is not right.") + rest,
      "error",
    );
    return;
  }
  if (body.code === "TOO_MANY_ATTEMPTS" || body.code === "CHALLENGE_INVALID") {
    $("#second-factor")!.hidden = true;
    if (flow.restart) flow.restart();
    A.announce(`${A.message(result)} Start again.`, "error");
    return;
  }
  A.announce(A.message(result), "error");
}

async function verify(form: HTMLFormElement, method: string, proof: Record<string, unknown>): Promise<void> {
  const box = form.querySelector<HTMLInputElement>("input[name=trust_device]");
  const wantsTrust = !!box?.checked;
  const body = Object.assign({ challenge: flow.challenge, method: method, trust_device: wantsTrust }, proof);
  const result = await A.api<SignedInBody>("POST", "/login/mfa/verify", body, { token: false });
  if (!result.ok) return failed(result, form);
  let note = "";
  if (wantsTrust)
    note = result.body!.trusted_device
      ? "This device stays signed in for 90 days."
      : "This device was not marked as trusted.";
  signedIn(result.body, note);
}

async function usePasskey(form: HTMLFormElement): Promise<void> {
  if (!window.PublicKeyCredential || !navigator.credentials) {
    A.announce("This browser cannot use passkeys here. Choose another way.", "error");
    return;
  }
  const options = await A.api<{ publicKey: Parameters<typeof A.passkey.requestOptions>[0] }>(
    "POST",
    "/login/mfa/send",
    { challenge: flow.challenge, method: "passkey" },
    { token: false },
  );
  if (!options.ok) return failed(options, form);
  let credential: Credential | null = null;
  try {
    credential = await navigator.credentials.get({
      publicKey: A.passkey.requestOptions(options.body!.publicKey),
    });
  } catch {
    credential = null;
  }
  if (!credential) {
    A.announce("No passkey was used (cancelled or timed out). Try again or choose another way.", "error");
    return;
  }
  await verify(form, "passkey", { credential: A.passkey.toJSON(credential as PublicKeyCredential) });
}

async function sendCode(button: HTMLButtonElement): Promise<void> {
  const method = button.getAttribute("data-send");
  button.disabled = true;
  try {
    const result = await A.api(
      "POST",
      "/login/mfa/send",
      { challenge: flow.challenge, method: method },
      { token: false },
    );
    if (!result.ok) return failed(result, button.form!);
    A.announce(
      `${method === "email" ? "We e-mailed you a code." : "We texted you a code."} It expires in 10 minutes.`,
      "ok",
    );
    const input = button.form!.querySelector<HTMLInputElement>("input[inputmode]");
    if (input) input.focus();
  } finally {
    button.disabled = false;
  }
}

document.querySelectorAll<HTMLFormElement>("#second-factor form[data-method]").forEach((form) => {
  const method = form.getAttribute("data-method") as string;
  A.form(form, async (data) => {
    if (method === "passkey") return usePasskey(form);
    const code = data.totp_code || data.email_code || data.sms_code || data.recovery_code || "";
    await verify(form, method, { code: code.trim() });
  });
});
document.querySelectorAll<HTMLButtonElement>("#second-factor [data-send]").forEach((button) => {
  button.addEventListener("click", () => sendCode(button));
});
document.querySelectorAll<HTMLButtonElement>("#second-factor [data-switch]").forEach((button) => {
  button.addEventListener("click", () => {
    A.announce("");
    show(button.getAttribute("data-switch"));
  });
});

const signIn: SignInApi = { nextPath, withNext, signedIn, startSecondFactor };
window.SignIn = signIn;

/** The flow, for the page scripts that import it (the same object as `window.SignIn`). */
export const S = signIn;
export { A };
