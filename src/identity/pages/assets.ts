/**
 * The hosted pages' stylesheet and shared script, served by this Worker (a strict CSP allows nothing
 * else). Each page adds its own script from its module's `*_ASSETS`; `pages/index.ts` serves them all.
 */
export interface PageAsset {
  type: "text/css" | "text/javascript";
  body: string;
}

const CSS = `
:root { color-scheme: light dark; --fg: #1a1a1a; --bg: #fafafa; --muted: #555; --accent: #0b57d0; --err: #b3261e; --ok: #146c2e; --line: #c9c9c9; }
@media (prefers-color-scheme: dark) { :root { --fg: #eee; --bg: #151515; --muted: #b5b5b5; --accent: #8ab4f8; --err: #f2b8b5; --ok: #8fd19e; --line: #444; } }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 1rem; top: 1rem; background: var(--bg); padding: .5rem; z-index: 1; }
.brand { padding: 1rem 1.5rem; border-bottom: 1px solid var(--line); font-weight: 600; }
.brand a { color: inherit; text-decoration: none; }
main { max-width: 34rem; margin: 2rem auto; padding: 0 1.5rem; }
main.wide { max-width: 52rem; }
h1 { font-size: 1.6rem; margin: 0 0 1rem; }
h2 { font-size: 1.2rem; margin: 2rem 0 .5rem; }
.field { margin: 0 0 1rem; display: flex; flex-direction: column; gap: .25rem; }
label { font-weight: 600; }
.hint { margin: 0; color: var(--muted); font-size: .9rem; }
input[type=text], input[type=email], input[type=password], input[type=tel], input:not([type]) { font: inherit; padding: .6rem .7rem; border: 1px solid var(--line); border-radius: .4rem; background: transparent; color: inherit; }
input:focus-visible, button:focus-visible, a:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.check { display: flex; gap: .5rem; align-items: center; margin: 0 0 1rem; }
button { font: inherit; padding: .6rem 1.1rem; border-radius: .4rem; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; }
button.secondary { background: transparent; color: var(--accent); }
button[disabled] { opacity: .6; cursor: progress; }
.status { min-height: 1.5rem; margin: 0 0 1rem; }
.status.error { color: var(--err); font-weight: 600; }
.status.ok { color: var(--ok); }
.links { margin-top: 1.5rem; display: flex; flex-wrap: wrap; gap: 1rem; }
a { color: var(--accent); }
[hidden] { display: none !important; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .4rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
.codes { font-family: ui-monospace, monospace; columns: 2; }
.actions { display: flex; gap: .5rem; flex-wrap: wrap; }
`;

/**
 * `window.Auth`: what every page script needs. `api()` calls the JSON API same-origin and returns
 * `{status, body}`; `announce()` writes the live region (errors as `role="alert"`, focus moved there);
 * `form()` wires a form's submit to a handler with the button disabled meanwhile; `accessToken()` keeps
 * the session's access token in memory and, when there is none (a new page), rotates the HttpOnly
 * `svc_refresh` cookie once to get one (one refresh at a time per browser, as the spec asks, serialized
 * across tabs; null only when the server says the session is gone); `passkey` turns the
 * server's WebAuthn JSON into browser objects and back.
 */
const COMMON_JS = `"use strict";
(() => {
  const API = "/api/v1/auth";
  let token = null;
  let refreshing = null;

  async function api(method, path, body, options) {
    const headers = Object.assign({ accept: "application/json" }, (options && options.headers) || {});
    if (body !== undefined) headers["content-type"] = "application/json";
    const bearer = options && options.token === false ? null : (options && options.token) || token;
    if (bearer) headers.authorization = "Bearer " + bearer;
    const res = await fetch(API + path, { method, headers, credentials: "same-origin", body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch { data = { detail: text }; }
    return { status: res.status, ok: res.ok, body: data };
  }

  function message(result) {
    const b = result && result.body;
    if (b && (b.detail || b.title)) return b.detail || b.title;
    return "Something went wrong (" + (result ? result.status : "network") + "). Try again.";
  }

  function announce(text, kind) {
    const el = document.getElementById("status");
    if (!el) return;
    el.textContent = "";
    el.className = "status" + (kind ? " " + kind : "");
    if (kind === "error") el.setAttribute("role", "alert"); else el.removeAttribute("role");
    el.textContent = text;
    if (kind === "error") el.focus();
  }

  function form(el, handler) {
    if (!el) return;
    el.addEventListener("submit", async (event) => {
      event.preventDefault();
      const button = el.querySelector("button[type=submit], button:not([type])");
      if (button) button.disabled = true;
      try {
        await handler(Object.fromEntries(new FormData(el).entries()), el);
      } catch (err) {
        announce((err && err.message) || "Something went wrong. Try again.", "error");
      } finally {
        if (button) button.disabled = false;
      }
    });
  }

  function setSession(body) { if (body && body.access_token) token = body.access_token; }
  function clearSession() { token = null; }

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  /**
   * One rotation of the svc_refresh cookie: the new access token, or null when the user must sign in (401
   * REFRESH_FAILED only). 403/423 are errors to show; anything else (503, network) is retried twice, then
   * reported without signing the user out.
   */
  async function rotate() {
    for (let attempt = 0; ; attempt++) {
      let r = null;
      try { r = await api("POST", "/refresh", undefined, { token: false }); } catch { r = null; }
      if (r && r.ok && r.body && r.body.access_token) { setSession(r.body); return r.body.access_token; }
      if (r && r.status === 401) return null;
      if (r && (r.status === 403 || r.status === 423)) throw new Error(message(r));
      if (attempt >= 2) throw new Error("We could not check your session just now. You are still signed in: reload the page to try again.");
      await sleep(800 * (attempt + 1));
    }
  }

  /** Serialized across tabs (Web Locks): two tabs rotating one cookie at once would look like a stolen token. */
  function refreshOnce() {
    if (navigator.locks && navigator.locks.request) return navigator.locks.request("svc-refresh", rotate);
    return rotate();
  }

  async function accessToken() {
    if (token) return token;
    if (!refreshing) refreshing = refreshOnce().finally(() => { refreshing = null; });
    return refreshing;
  }

  /** Forgets the token a call was refused with (expired or revoked), unless a newer one replaced it. */
  function forgetToken(value) { if (token === value) token = null; }

  function b64urlToBytes(value) {
    const s = value.replace(/-/g, "+").replace(/_/g, "/");
    const bin = atob(s + "===".slice((s.length + 3) % 4));
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out.buffer;
  }
  function bytesToB64url(buffer) {
    const bytes = new Uint8Array(buffer);
    let bin = "";
    for (let i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i]);
    return btoa(bin).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
  }

  const passkey = {
    creationOptions(json) {
      return Object.assign({}, json, {
        challenge: b64urlToBytes(json.challenge),
        user: Object.assign({}, json.user, { id: b64urlToBytes(json.user.id) }),
        excludeCredentials: (json.excludeCredentials || []).map((c) => Object.assign({}, c, { id: b64urlToBytes(c.id) })),
      });
    },
    requestOptions(json) {
      return Object.assign({}, json, {
        challenge: b64urlToBytes(json.challenge),
        allowCredentials: (json.allowCredentials || []).map((c) => Object.assign({}, c, { id: b64urlToBytes(c.id) })),
      });
    },
    toJSON(cred) {
      const r = cred.response;
      const response = { clientDataJSON: bytesToB64url(r.clientDataJSON) };
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

  function params() { return new URLSearchParams(location.search); }

  window.Auth = { api, message, announce, form, setSession, clearSession, accessToken, forgetToken, passkey, params };
})();
`;

export const COMMON_ASSETS: Record<string, PageAsset> = {
  "pages.css": { type: "text/css", body: CSS },
  "common.js": { type: "text/javascript", body: COMMON_JS },
};
