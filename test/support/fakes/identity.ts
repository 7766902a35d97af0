/** Fakes of the outside world that the identity service calls (registered on reserved .test hosts). */
import { fakeHost } from "../fake-internet.ts";

/** Passwords the fake breach corpus knows (each at least 12 characters, so only the breach rule refuses them). */
export const BREACHED_PASSWORDS = ["password123456", "qwertyuiop123", "correcthorsebatterystaple"];

async function sha1Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-1", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("")
    .toUpperCase();
}

/** Deterministic decoy suffixes (count 0), as the real API pads its answers. */
async function padding(prefix: string): Promise<string[]> {
  const lines: string[] = [];
  for (let i = 0; i < 8; i++) lines.push(`${(await sha1Hex(`pad-${prefix}-${i}`)).slice(5)}:0`);
  return lines;
}

/** The k-anonymity range API (`GET /range/{5 hex}`), answering in the real `SUFFIX:COUNT` format. */
async function rangeApi(_request: Request, url: URL): Promise<Response> {
  const m = /^\/range\/([0-9A-Fa-f]{5})$/.exec(url.pathname);
  if (!m) return new Response("bad prefix", { status: 400 });
  const prefix = m[1]!.toUpperCase();
  const hashes = await Promise.all(BREACHED_PASSWORDS.map(sha1Hex));
  const lines = hashes.filter((h) => h.startsWith(prefix)).map((h, i) => `${h.slice(5)}:${1000 + i}`);
  return new Response([...lines, ...(await padding(prefix))].join("\r\n"), {
    headers: { "content-type": "text/plain" },
  });
}

export function registerIdentityFakes() {
  fakeHost("example.invalid", () => new Response("unused", { status: 404 }));
  fakeHost("breach.test", rangeApi);
  // The corpus is down: every request answers 503 (fail-open / fail-closed cases).
  fakeHost("breach-down.test", () => new Response("unavailable", { status: 503 }));
  // HTTP e-mail/SMS provider: accepts JSON messages; the `-down` host always fails.
  fakeHost("mail.test", async (request) => {
    const body = (await request.json().catch(() => null)) as { to?: string } | null;
    return body?.to ? Response.json({ id: "msg_1" }, { status: 202 }) : new Response("bad", { status: 400 });
  });
  fakeHost("mail-down.test", () => new Response("provider down", { status: 503 }));
  // A slow provider: accepts after 3 seconds (the adapter's own timeout is 5 s).
  fakeHost("mail-slow.test", async () => {
    await new Promise((resolve) => setTimeout(resolve, 3000));
    return Response.json({ id: "msg_slow" }, { status: 202 });
  });
}
