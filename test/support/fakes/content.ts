/**
 * Fakes of the outside world that the content service calls (registered on reserved .test hosts).
 * Everything answers deterministically from the request: the case is encoded in the host or path.
 *
 * DNS-over-HTTPS: `https://dns.test/dns-query?name=NAME&type=A|AAAA|CNAME|TXT` (JSON API,
 * application/dns-json; the test env sets `DOH_URL=https://dns.test/dns-query`). A name with a CNAME
 * answers A and AAAA queries with the CNAME record and the target's records (as a recursive resolver
 * does), a CNAME query with the CNAME record alone; TXT data is quoted like Cloudflare's answers.
 * `PUT https://dns.test/__zone/<name>` (name under .test) with a JSON zone
 * `{A?, AAAA?, cname?, TXT?, rcode?}` records more answers (the sites DNS check's table of recorded
 * answers, test/support/dns-answers.ts); `*.<name>` records a wildcard under <name>. Names:
 *   img.test, cdn.img.test      A 93.184.216.34, AAAA 2606:2800:220:1::1 (public)
 *   v6only.test                 AAAA 2606:2800:220:1::1 only (public)
 *   cname.test                  CNAME img.test + img.test's public records
 *   private.test                A 10.0.0.5
 *   loopback.test               A 127.0.0.1
 *   metadata.test               A 169.254.169.254 (cloud metadata)
 *   mixed.test                  A 93.184.216.34 AND 127.0.0.1
 *   v6private.test              A 93.184.216.34 (public) AND AAAA fd00::1 (unique local)
 *   mapped.test                 AAAA ::ffff:169.254.169.254 (IPv4-mapped metadata)
 *   nat64.test                  AAAA 64:ff9b::a00:1 (NAT64 of 10.0.0.1)
 *   sixtofour.test              AAAA 2002:a00:1::1 (6to4 of 10.0.0.1)
 *   cname-private.test          CNAME private.test + A 10.0.0.5
 *   nxdomain.test               NXDOMAIN (Status 3)
 *   empty.test                  NOERROR without records
 *   servfail.test               SERVFAIL (Status 2)
 *   dnsdown.test                HTTP 503 from the DoH server
 *   dnsslow.test                answers after 5 s
 *   hooks.test                  A/AAAA public: the webhook receiver (./webhook-receiver.ts), which can
 *                               define more names (PUT https://hooks.test/__zone/<name>)
 *   Any other name: NXDOMAIN.
 *
 * Image hosts: every name above that has addresses (public or not) serves the SAME paths below, so a
 * refused private host is proven by the outcome (it would have answered 200 with a PNG if fetched).
 *   /ok.png /x.png    real 1x1 PNG (70 bytes), Content-Type image/png
 *   /ok.jpg           JPEG (1x1, baseline)             /ok.webp  real 1x1 lossless WebP
 *   /ok.gif           real 1x1 GIF                     /ok.ico   ICO wrapping the PNG
 *   /ok.avif          AVIF file-type box (signature fixture, not decodable)
 *   /png-as-html      the PNG bytes labelled text/html (type comes from magic bytes)
 *   /logo.svg         clean SVG                        /logo-prologue.svg  clean SVG after <?xml?>, DOCTYPE, comment
 *   /evil.svg         SVG with <script> and onload     /xxe.svg  SVG with a DOCTYPE internal subset (entities)
 *   /not-image.png    HTML body labelled image/png     /empty.png  200 with an empty body
 *   /missing.png 404  /gone.png 410  /error.png 503    /status/<code>  that status, text body
 *   /slow.png         PNG after 5 s                    /slow-body.png  PNG signature, then the rest after 5 s
 *   /big.png          12 MiB of PNG-headed bytes, streamed, no Content-Length
 *   /big-declared.png 11 MiB PNG-headed body with Content-Length
 *   /bomb.png         gzip Content-Encoding: ~12 KiB on the wire, 12 MiB PNG-headed once decoded
 *   /sized/<n>        exactly n PNG-headed bytes (n <= 16 MiB), streamed, no Content-Length
 *   /redirect-ok      302 https://cdn.img.test/ok.png  /redirect-relative  302 /ok.png (relative Location)
 *   /redirect-private 302 http://private.test/x.png    /redirect-mapped    302 http://[::ffff:127.0.0.1]/ok.png
 *   /redirect-loopback-literal 302 http://127.0.0.1/ok.png
 *   /redirect-metadata 302 http://169.254.169.254/latest/meta-data/
 *   /redirect-ftp     302 ftp://img.test/ok.png        /redirect-no-location  302 without Location
 *   /redirect-loop    302 to itself                    /redirect-chain/<n>  n hops of 302 then the PNG
 *   /stalled/...      JSON body "{" then nothing for 20 s  /oversized/...  a 300 KiB JSON document
 *
 * Cache purge and IndexNow hosts (`purge.test`, `indexnow.test`), each with a memory of what it got:
 *   POST /flaky/<token>/<n>   the first n requests of <token> answer 503, every later one 200
 *   POST /status/<code>       always that status
 *   GET  /__received/<token>  JSON list of what <token> received: {method, authorization, body, answered}
 */
import { fakeHost } from "../fake-internet.ts";
import { registerWebhookReceiver } from "./webhook-receiver.ts";

const b64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

const PNG_1X1 = b64(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
);
const JPEG_1X1 = new Uint8Array([
  ...b64(
    "/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=",
  ),
  0xff,
  0xd9,
]);
const WEBP_1X1 = b64("UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==");
const GIF_1X1 = b64("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7");

function icoOf(png: Uint8Array): Uint8Array {
  const out = new Uint8Array(6 + 16 + png.length);
  const view = new DataView(out.buffer);
  view.setUint16(2, 1, true); // type: icon
  view.setUint16(4, 1, true); // one image
  out[6] = 1; // width
  out[7] = 1; // height
  view.setUint16(10, 1, true); // planes
  view.setUint16(12, 32, true); // bits per pixel
  view.setUint32(14, png.length, true);
  view.setUint32(18, 22, true);
  out.set(png, 22);
  return out;
}

function avifHeader(): Uint8Array {
  const text = (s: string) => Array.from(s, (c) => c.charCodeAt(0));
  // ftyp box (size 28): major brand avif, minor 0, compatible avif mif1 miaf; then an empty mdat.
  return new Uint8Array([
    0,
    0,
    0,
    28,
    ...text("ftyp"),
    ...text("avif"),
    0,
    0,
    0,
    0,
    ...text("avif"),
    ...text("mif1"),
    ...text("miaf"),
    0,
    0,
    0,
    8,
    ...text("mdat"),
  ]);
}

const CLEAN_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><title>Logo</title><path d="M12 2 2 22h20z" fill="#36c"/></svg>';
const PROLOGUE_SVG = `<?xml version="1.0" encoding="UTF-8"?>\n<!-- Generator: a design tool -->\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n${CLEAN_SVG}`;
const EVIL_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" onload="alert(1)"><script>alert(document.domain)</script><path d="M12 2 2 22h20z"/></svg>';
const XXE_SVG =
  '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><svg xmlns="http://www.w3.org/2000/svg"><text>&xxe;</text></svg>';

const MiB = 1024 * 1024;

function pngHeaded(total: number): ReadableStream<Uint8Array> {
  let sent = 0;
  const chunk = 64 * 1024;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= total) {
        controller.close();
        return;
      }
      const size = Math.min(chunk, total - sent);
      const bytes = new Uint8Array(size);
      if (sent === 0) bytes.set(PNG_1X1.subarray(0, Math.min(8, size)));
      sent += size;
      controller.enqueue(bytes);
    },
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const image = (bytes: Uint8Array, type: string) =>
  new Response(new Uint8Array(bytes), { status: 200, headers: { "content-type": type } });
const redirect = (location: string | null) =>
  new Response(null, { status: 302, headers: location === null ? {} : { location } });

function stalledJson(): Response {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode("{"));
      // unref: a stalled answer nobody reads any more never keeps the test process alive.
      timer = setTimeout(() => {
        controller.enqueue(new TextEncoder().encode("}"));
        controller.close();
      }, 20_000);
      (timer as { unref?: () => void }).unref?.();
    },
    cancel() {
      clearTimeout(timer);
    },
  });
  return new Response(stream, { headers: { "content-type": "application/json" } });
}

async function imageHost(request: Request, url: URL): Promise<Response> {
  const path = url.pathname;
  switch (path) {
    case "/ok.png":
    case "/x.png":
      return image(PNG_1X1, "image/png");
    case "/ok.jpg":
      return image(JPEG_1X1, "image/jpeg");
    case "/ok.webp":
      return image(WEBP_1X1, "image/webp");
    case "/ok.gif":
      return image(GIF_1X1, "image/gif");
    case "/ok.ico":
      return image(icoOf(PNG_1X1), "image/x-icon");
    case "/ok.avif":
      return image(avifHeader(), "image/avif");
    case "/png-as-html":
      return image(PNG_1X1, "text/html");
    case "/logo.svg":
      return new Response(CLEAN_SVG, { headers: { "content-type": "image/svg+xml" } });
    case "/logo-prologue.svg":
      return new Response(PROLOGUE_SVG, { headers: { "content-type": "image/svg+xml" } });
    case "/evil.svg":
      return new Response(EVIL_SVG, { headers: { "content-type": "image/svg+xml" } });
    case "/xxe.svg":
      return new Response(XXE_SVG, { headers: { "content-type": "image/svg+xml" } });
    case "/not-image.png":
      return new Response("<!doctype html><html><body>not an image</body></html>", {
        headers: { "content-type": "image/png" },
      });
    case "/empty.png":
      return new Response(new Uint8Array(0), { headers: { "content-type": "image/png" } });
    case "/missing.png":
      return new Response("not found", { status: 404 });
    case "/gone.png":
      return new Response("gone", { status: 410 });
    case "/error.png":
      return new Response("unavailable", { status: 503 });
    case "/slow.png":
      await sleep(5000);
      return image(PNG_1X1, "image/png");
    case "/slow-body.png": {
      let step = 0;
      const stream = new ReadableStream<Uint8Array>({
        async pull(controller) {
          step++;
          if (step === 1) controller.enqueue(PNG_1X1.subarray(0, 8));
          else {
            await sleep(5000);
            controller.enqueue(PNG_1X1.subarray(8));
            controller.close();
          }
        },
      });
      return new Response(stream, { headers: { "content-type": "image/png" } });
    }
    case "/big.png":
      return new Response(pngHeaded(12 * MiB), { headers: { "content-type": "image/png" } });
    case "/big-declared.png": {
      const body = new Uint8Array(11 * MiB);
      body.set(PNG_1X1.subarray(0, 8));
      return new Response(body, {
        headers: { "content-type": "image/png", "content-length": String(body.length) },
      });
    }
    case "/bomb.png":
      // ~12 KiB on the wire, 12 MiB once the runtime undoes Content-Encoding: the cap must count the latter.
      return new Response(
        pngHeaded(12 * MiB).pipeThrough(
          new CompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>,
        ),
        {
          headers: { "content-type": "image/png", "content-encoding": "gzip" },
        },
      );
    case "/redirect-ok":
      return redirect("https://cdn.img.test/ok.png");
    case "/redirect-relative":
      return redirect("/ok.png");
    case "/redirect-private":
      return redirect("http://private.test/x.png");
    case "/redirect-mapped":
      return redirect("http://[::ffff:127.0.0.1]/ok.png");
    case "/redirect-loopback-literal":
      return redirect("http://127.0.0.1/ok.png");
    case "/redirect-metadata":
      return redirect("http://169.254.169.254/latest/meta-data/");
    case "/redirect-ftp":
      return redirect("ftp://img.test/ok.png");
    case "/redirect-no-location":
      return redirect(null);
    case "/redirect-loop":
      return redirect(`${url.origin}/redirect-loop`);
  }
  // Under any path: a JSON-labelled body that sends "{" and then nothing for 20 s (an OpenID provider
  // that stalls mid-answer), and a 300 KiB JSON document (a provider answer above the SSO cap).
  if (path.startsWith("/stalled/")) return stalledJson();
  if (path.startsWith("/oversized/")) {
    return new Response(`{"pad":"${"x".repeat(300 * 1024)}"}`, {
      headers: { "content-type": "application/json" },
    });
  }
  const sized = /^\/sized\/(\d{1,8})$/.exec(path);
  if (sized) {
    const n = Number(sized[1]);
    if (n <= 16 * MiB) return new Response(pngHeaded(n), { headers: { "content-type": "image/png" } });
  }
  const chain = /^\/redirect-chain\/(\d{1,2})$/.exec(path);
  if (chain) {
    const n = Number(chain[1]);
    return n === 0 ? image(PNG_1X1, "image/png") : redirect(`/redirect-chain/${n - 1}`);
  }
  const status = /^\/status\/([1-5]\d\d)$/.exec(path);
  if (status) return new Response(`status ${status[1]}`, { status: Number(status[1]) });
  return new Response(`no such image: ${request.method} ${path}`, { status: 404 });
}

const PUBLIC_A = "93.184.216.34";
const PUBLIC_AAAA = "2606:2800:220:1::1";

interface Zone {
  A?: string[];
  AAAA?: string[];
  cname?: string;
  /** TXT strings (each answered as one quoted character-string). */
  TXT?: string[];
  /** DNS rcode (0 NOERROR, 2 SERVFAIL, 3 NXDOMAIN). */
  rcode?: number;
  /** HTTP status of the DoH server itself. */
  http?: number;
  delayMs?: number;
}

const ZONES: Record<string, Zone> = {
  "img.test": { A: [PUBLIC_A], AAAA: [PUBLIC_AAAA] },
  "cdn.img.test": { A: [PUBLIC_A], AAAA: [PUBLIC_AAAA] },
  "v6only.test": { AAAA: [PUBLIC_AAAA] },
  "cname.test": { cname: "img.test", A: [PUBLIC_A], AAAA: [PUBLIC_AAAA] },
  "private.test": { A: ["10.0.0.5"] },
  "loopback.test": { A: ["127.0.0.1"] },
  "metadata.test": { A: ["169.254.169.254"] },
  "mixed.test": { A: [PUBLIC_A, "127.0.0.1"], AAAA: [PUBLIC_AAAA] },
  "v6private.test": { A: [PUBLIC_A], AAAA: ["fd00::1"] },
  "mapped.test": { AAAA: ["::ffff:169.254.169.254"] },
  "nat64.test": { AAAA: ["64:ff9b::a00:1"] },
  "sixtofour.test": { AAAA: ["2002:a00:1::1"] },
  "cname-private.test": { cname: "private.test", A: ["10.0.0.5"] },
  "nxdomain.test": { rcode: 3 },
  "empty.test": {},
  "servfail.test": { rcode: 2 },
  "dnsdown.test": { http: 503 },
  "dnsslow.test": { A: [PUBLIC_A], delayMs: 5000 },
  // The webhook receiver (./webhook-receiver.ts); more receiver names are defined by tests through it.
  "hooks.test": { A: [PUBLIC_A], AAAA: [PUBLIC_AAAA] },
};

const QTYPES: Record<string, number> = { A: 1, CNAME: 5, TXT: 16, AAAA: 28 };

function zoneAnswers(name: string, zone: Zone, type: string) {
  const answers: { name: string; type: number; TTL: number; data: string }[] = [];
  const qtype = QTYPES[type]!;
  if (zone.cname) answers.push({ name: `${name}.`, type: 5, TTL: 300, data: `${zone.cname}.` });
  if (type === "CNAME") return answers;
  const owner = `${zone.cname ?? name}.`;
  const data =
    type === "A"
      ? zone.A
      : type === "AAAA"
        ? zone.AAAA
        : zone.cname
          ? []
          : (zone.TXT ?? []).map((t) => JSON.stringify(t));
  for (const d of data ?? []) answers.push({ name: owner, type: qtype, TTL: 60, data: d });
  return answers;
}

async function dohServer(request: Request, url: URL): Promise<Response> {
  // `*.<name>` defines a wildcard: it answers every name one label below <name> that has no zone of its own.
  const define = /^\/__zone\/((?:\*\.)?[a-z0-9_.-]+\.test)$/.exec(url.pathname);
  if (define && request.method === "PUT") {
    ZONES[define[1]!] = (await request.json()) as Zone;
    return new Response(null, { status: 204 });
  }
  if (url.pathname !== "/dns-query") return new Response("not found", { status: 404 });
  const name = (url.searchParams.get("name") ?? "").toLowerCase().replace(/\.$/, "");
  const type = url.searchParams.get("type") ?? "A";
  const qtype = QTYPES[type];
  if (qtype === undefined) return new Response("unsupported type", { status: 400 });
  const zone = ZONES[name] ?? ZONES[`*.${name.split(".").slice(1).join(".")}`] ?? { rcode: 3 };
  if (zone.delayMs) await sleep(zone.delayMs);
  if (zone.http) return new Response("DoH unavailable", { status: zone.http });
  const rcode = zone.rcode ?? 0;
  const answers = rcode === 0 ? zoneAnswers(name, zone, type) : [];
  const body = {
    Status: rcode,
    TC: false,
    RD: true,
    RA: true,
    AD: false,
    CD: false,
    Question: [{ name: `${name}.`, type: qtype }],
    ...(answers.length ? { Answer: answers } : {}),
  };
  return new Response(JSON.stringify(body), { headers: { "content-type": "application/dns-json" } });
}

const received = new Map<
  string,
  { method: string; authorization: string | null; body: unknown; answered: number }[]
>();

/** A cache purge or IndexNow endpoint that fails a given number of times, then succeeds. */
async function effectHost(request: Request, url: URL): Promise<Response> {
  const log = /^\/__received\/([\w-]+)$/.exec(url.pathname);
  if (log && request.method === "GET") return Response.json(received.get(log[1]!) ?? []);
  const flaky = /^\/flaky\/([\w-]+)\/(\d+)$/.exec(url.pathname);
  const fixed = /^\/status\/([1-5]\d\d)$/.exec(url.pathname);
  if (request.method !== "POST" || (!flaky && !fixed)) return new Response("not found", { status: 404 });
  const token = flaky ? flaky[1]! : `status-${fixed![1]}`;
  const seen = received.get(token) ?? [];
  const answered = flaky ? (seen.length < Number(flaky[2]) ? 503 : 200) : Number(fixed![1]);
  const text = await request.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {}
  seen.push({ method: request.method, authorization: request.headers.get("authorization"), body, answered });
  received.set(token, seen);
  return new Response(answered === 200 ? "ok" : "unavailable", { status: answered });
}

export function registerContentFakes() {
  fakeHost("purge.test", effectHost);
  fakeHost("indexnow.test", effectHost);
  fakeHost("example.invalid", () => new Response("unused", { status: 404 }));
  fakeHost("dns.test", dohServer);
  for (const [host, zone] of Object.entries(ZONES)) {
    if (zone.A || zone.AAAA) fakeHost(host, imageHost);
  }
  registerWebhookReceiver((name, zone) => {
    ZONES[name] = zone;
  });
}
