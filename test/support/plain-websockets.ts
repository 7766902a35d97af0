/**
 * The vitest process talks to each workerd runtime over one WebSocket per runtime (every module load, every
 * test's RPC), opened by Miniflare's bundled `ws` client, which always offers `permessage-deflate`; workerd
 * accepts, and each message is then deflated and inflated on both ends of a local socket. Loaded by
 * vitest.config.ts in the vitest process only: an upgrade request to this machine goes out without the
 * offer, so the runtime answers without the extension and the messages travel as they are. Nothing else
 * changes (the runtime declining an extension is a normal WebSocket handshake).
 */
import http from "node:http";

const LOCAL_HOSTS = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);
const patched = Symbol.for("platform.plainWebSockets");
const holder = http as unknown as Record<symbol, boolean>;

type RequestArgs = Parameters<typeof http.request>;

function withoutDeflateOffer(options: unknown): void {
  if (typeof options !== "object" || options === null || options instanceof URL) return;
  const { headers, host, hostname } = options as {
    headers?: Record<string, unknown>;
    host?: string;
    hostname?: string;
  };
  if (!headers || String(headers.Upgrade ?? headers.upgrade ?? "").toLowerCase() !== "websocket") return;
  if (!LOCAL_HOSTS.has(hostname ?? host ?? "")) return;
  delete headers["Sec-WebSocket-Extensions"];
  delete headers["sec-websocket-extensions"];
}

if (!holder[patched]) {
  holder[patched] = true;
  const request = http.request;
  http.request = ((...args: RequestArgs) => {
    // request(options[, callback]) or request(url, options[, callback]): the options are the object argument.
    for (const arg of args) withoutDeflateOffer(arg);
    return (request as (...a: RequestArgs) => http.ClientRequest)(...args);
  }) as typeof http.request;
}
