// One autocannon run in its own process (forked by loadgen.mjs), so the load generator never shares an
// event loop with the Miniflare host process. Receives a spec (see loadgen.mjs), answers one result.
// Latencies come from autocannon's per-response event (sub-millisecond), not its 1 ms histogram.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const autocannon = require("autocannon");

function ipOf(m) {
  return `10.${Math.floor(m / 65536) % 256}.${Math.floor(m / 256) % 256}.${m % 256}`;
}

function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

function run(spec) {
  let n = 0;
  const rotated = Object.entries(spec.rotate ?? {});
  const ipOffset = typeof spec.ip === "object" ? (spec.ip.offset ?? 0) : 0;
  const setupRequest = (req) => {
    n += 1;
    const headers = { ...spec.headers };
    for (const [name, values] of rotated) headers[name] = values[n % values.length];
    if (spec.ip) headers["cf-connecting-ip"] = ipOf(n + ipOffset);
    let body;
    if (spec.bodies) body = spec.bodies[n % spec.bodies.length];
    else if (spec.body !== undefined) body = spec.body.replaceAll("{n}", String(n));
    return { ...req, method: spec.method, path: spec.paths[n % spec.paths.length], headers, body };
  };
  return new Promise((resolve, reject) => {
    const latencies = [];
    const statuses = {};
    const instance = autocannon(
      {
        url: spec.base,
        connections: spec.connections ?? 16,
        ...(spec.amount ? { amount: spec.amount } : { duration: spec.duration ?? 10 }),
        timeout: 30,
        requests: [{ setupRequest }],
      },
      (error, result) => {
        if (error) return reject(error);
        latencies.sort((a, b) => a - b);
        const seconds = (new Date(result.finish) - new Date(result.start)) / 1000;
        resolve({
          requests: latencies.length,
          seconds,
          rps: latencies.length / seconds,
          p50_ms: percentile(latencies, 50),
          p99_ms: percentile(latencies, 99),
          statuses,
          non2xx: result.non2xx,
          errors: result.errors + result.timeouts,
        });
      },
    );
    instance.on("response", (_client, statusCode, _bytes, responseTime) => {
      latencies.push(responseTime);
      statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
    });
  });
}

process.once("message", (spec) => {
  run(spec).then(
    (result) => process.send({ result }),
    (error) => process.send({ error: String(error?.stack ?? error) }),
  );
});
