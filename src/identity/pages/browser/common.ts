/**
 * `common.js`, loaded before every page's own script: `window.Auth`, what every page script needs.
 * `api()` calls the JSON API same-origin and returns `{status, ok, body}`; `announce()` writes the live
 * region (errors as `role="alert"`, focus moved there); `form()` wires a form's submit to a handler with
 * the button disabled meanwhile; `accessToken()` keeps the session's access token in memory and, when there
 * is none (a new page), rotates the HttpOnly `svc_refresh` cookie once to get one (one refresh at a time
 * per browser, as the spec asks, serialized across tabs; null only when the server says the session is
 * gone); `passkey` turns the server's WebAuthn JSON into browser objects and back.
 */
import type {
  ApiOptions,
  ApiResult,
  AuthApi,
  CreationOptionsJSON,
  FormValues,
  PasskeyCodec,
  RequestOptionsJSON,
} from "./shared/globals";

const API = "/api/v1/auth";
let token: string | null = null;
let refreshing: Promise<string | null> | null = null;

async function api<T extends object = object>(
  method: string,
  path: string,
  body?: unknown,
  options?: ApiOptions,
): Promise<ApiResult<T>> {
  const headers: Record<string, string> = Object.assign(
    { accept: "application/json" },
    options?.headers || {},
  );
  if (body !== undefined) headers["content-type"] = "application/json";
  const bearer = options && options.token === false ? null : options?.token || token;
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  const res = await fetch(API + path, {
    method,
    headers,
    credentials: "same-origin",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let data: ApiResult<T>["body"] = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = { detail: text } as ApiResult<T>["body"];
  }
  return { status: res.status, ok: res.ok, body: data };
}

function message(result: ApiResult | null | undefined): string {
  const b = result?.body;
  if (b && (b.detail || b.title)) return (b.detail || b.title) as string;
  return `Something went wrong (${result ? result.status : "network"}). Try again.`;
}

function announce(text: string, kind?: "ok" | "error"): void {
  const el = document.getElementById("status");
  if (!el) return;
  el.textContent = "";
  el.className = `status${kind ? ` ${kind}` : ""}`;
  if (kind === "error") el.setAttribute("role", "alert");
  else el.removeAttribute("role");
  el.textContent = text;
  if (kind === "error") el.focus();
}

function form(
  el: HTMLFormElement | null,
  handler: (data: FormValues, form: HTMLFormElement) => unknown,
): void {
  if (!el) return;
  el.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = el.querySelector<HTMLButtonElement>("button[type=submit], button:not([type])");
    if (button) button.disabled = true;
    try {
      await handler(Object.fromEntries(new FormData(el).entries()) as FormValues, el);
    } catch (err) {
      announce((err as Error | null)?.message || "Something went wrong. Try again.", "error");
    } finally {
      if (button) button.disabled = false;
    }
  });
}

function setSession(body: { access_token?: string } | null | undefined): void {
  if (body?.access_token) token = body.access_token;
}
function clearSession(): void {
  token = null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One rotation of the svc_refresh cookie: the new access token, or null when the user must sign in (401
 * REFRESH_FAILED only). 403/423 are errors to show; anything else (503, network) is retried twice, then
 * reported without signing the user out.
 */
async function rotate(): Promise<string | null> {
  for (let attempt = 0; ; attempt++) {
    let r: ApiResult<{ access_token?: string }> | null = null;
    try {
      r = await api<{ access_token?: string }>("POST", "/refresh", undefined, { token: false });
    } catch {
      r = null;
    }
    if (r?.ok && r.body?.access_token) {
      setSession(r.body);
      return r.body.access_token;
    }
    if (r && r.status === 401) return null;
    if (r && (r.status === 403 || r.status === 423)) throw new Error(message(r));
    if (attempt >= 2)
      throw new Error(
        "We could not check your session just now. You are still signed in: reload the page to try again.",
      );
    await sleep(800 * (attempt + 1));
  }
}

/** Serialized across tabs (Web Locks): two tabs rotating one cookie at once would look like a stolen token. */
async function refreshOnce(): Promise<string | null> {
  if (navigator.locks?.request) return await navigator.locks.request("svc-refresh", rotate);
  return rotate();
}

async function accessToken(): Promise<string | null> {
  if (token) return token;
  if (!refreshing)
    refreshing = refreshOnce().finally(() => {
      refreshing = null;
    });
  return refreshing;
}

/** Forgets the token a call was refused with (expired or revoked), unless a newer one replaced it. */
function forgetToken(value: string | null): void {
  if (token === value) token = null;
}

function b64urlToBytes(value: string): ArrayBuffer {
  const s = value.replace(/-/g, "+").replace(/_/g, "/");
  const bin = atob(s + "===".slice((s.length + 3) % 4));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out.buffer;
}
function bytesToB64url(buffer: ArrayBuffer): string {
  const bytes = new Uint8Array(buffer);
  let bin = "";
  for (let i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i] as number);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The fields of an attestation or assertion response, whichever ceremony made it. */
type AnyCredentialResponse = AuthenticatorResponse &
  Partial<Pick<AuthenticatorAttestationResponse, "attestationObject" | "getTransports">> &
  Partial<Pick<AuthenticatorAssertionResponse, "authenticatorData" | "signature">> & {
    userHandle?: ArrayBuffer | null;
  };

const passkey: PasskeyCodec = {
  creationOptions(json: CreationOptionsJSON): PublicKeyCredentialCreationOptions {
    return Object.assign({}, json, {
      challenge: b64urlToBytes(json.challenge),
      user: Object.assign({}, json.user, { id: b64urlToBytes(json.user.id) }),
      excludeCredentials: (json.excludeCredentials || []).map((c) =>
        Object.assign({}, c, { id: b64urlToBytes(c.id) }),
      ),
    });
  },
  requestOptions(json: RequestOptionsJSON): PublicKeyCredentialRequestOptions {
    return Object.assign({}, json, {
      challenge: b64urlToBytes(json.challenge),
      allowCredentials: (json.allowCredentials || []).map((c) =>
        Object.assign({}, c, { id: b64urlToBytes(c.id) }),
      ),
    });
  },
  toJSON(cred: PublicKeyCredential): Record<string, unknown> {
    const r = cred.response as AnyCredentialResponse;
    const response: Record<string, unknown> = { clientDataJSON: bytesToB64url(r.clientDataJSON) };
    if (r.attestationObject) {
      response.attestationObject = bytesToB64url(r.attestationObject);
      if (r.getTransports) response.transports = r.getTransports();
    }
    if (r.authenticatorData) response.authenticatorData = bytesToB64url(r.authenticatorData);
    if (r.signature) response.signature = bytesToB64url(r.signature);
    if (r.userHandle) response.userHandle = bytesToB64url(r.userHandle);
    return {
      id: cred.id,
      rawId: bytesToB64url(cred.rawId),
      type: cred.type,
      response,
      clientExtensionResults: cred.getClientExtensionResults ? cred.getClientExtensionResults() : {},
      authenticatorAttachment: cred.authenticatorAttachment || undefined,
    };
  },
};

function params(): URLSearchParams {
  return new URLSearchParams(location.search);
}

const auth: AuthApi = {
  api,
  message,
  announce,
  form,
  setSession,
  clearSession,
  accessToken,
  forgetToken,
  passkey,
  params,
};
window.Auth = auth;
