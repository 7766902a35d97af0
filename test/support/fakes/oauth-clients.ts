/**
 * Hosts of OAuth Client ID Metadata Documents on the fake internet (issue 37): a test publishes the answer
 * of one path, then asks identity to resolve that URL as a client_id, and reads how often it was fetched.
 *   PUT https://<host>/__doc/<path>   body {status?, headers?, body, delayMs?, chunked?}: the answer of /<path>
 *   GET https://<host>/__hits/<path>  {"hits": n, "accept": …}: how many requests /<path> got, the last Accept
 *   GET https://<host>/<path>         the published answer (404 when none), after delayMs; `chunked`
 *                                     streams the body without Content-Length
 * Hosts: those of CIMD_ZONES (test/support/oauth-client-hosts.ts, whose DNS the tests define).
 * The control paths are answered on every host, so a test can publish on a private one.
 */
import { fakeHost } from "../fake-internet.ts";
import { CIMD_ZONES } from "../oauth-client-hosts.ts";

interface Published {
  status?: number;
  headers?: Record<string, string>;
  body: string;
  delayMs?: number;
  chunked?: boolean;
}

const published = new Map<string, Published>();
const hits = new Map<string, number>();
const accepts = new Map<string, string | null>();

const sleep = (ms: number) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    (timer as { unref?: () => void }).unref?.();
  });

function streamed(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.length) {
        controller.close();
        return;
      }
      controller.enqueue(bytes.slice(at, at + 1024));
      at += 1024;
    },
  });
}

async function documentHost(request: Request, url: URL): Promise<Response> {
  const key = (path: string) => `${url.hostname}${path}`;
  if (url.pathname.startsWith("/__doc/") && request.method === "PUT") {
    published.set(key(url.pathname.slice("/__doc".length)), (await request.json()) as Published);
    return new Response(null, { status: 204 });
  }
  if (url.pathname.startsWith("/__hits/")) {
    const path = key(url.pathname.slice("/__hits".length));
    return Response.json({ hits: hits.get(path) ?? 0, accept: accepts.get(path) ?? null });
  }
  const path = key(url.pathname + url.search);
  hits.set(path, (hits.get(path) ?? 0) + 1);
  accepts.set(path, request.headers.get("accept"));
  const answer = published.get(path);
  if (!answer) return new Response("no such document", { status: 404 });
  if (answer.delayMs) await sleep(answer.delayMs);
  const status = answer.status ?? 200;
  const bodyless = status === 204 || status === 304 || (status >= 300 && status < 400 && answer.body === "");
  return new Response(bodyless ? null : answer.chunked ? streamed(answer.body) : answer.body, {
    status,
    headers: { "content-type": "application/json", ...answer.headers },
  });
}

export function registerOauthClientFakes() {
  for (const host of Object.keys(CIMD_ZONES)) fakeHost(host, documentHost);
}
