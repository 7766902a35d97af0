// The load generator behind `npm run bench`: autocannon (npm) in a child process, or wrk when asked for
// (`--wrk`) and present on PATH. A run is described by a plain, serializable spec, so both tools send the
// same requests:
//
//   { base, method, paths: [...], headers: {...}, rotate: { header: [values...] }, ip: true|{ offset },
//     body: "text with {n}", bodies: [...], connections, duration (s) | amount }
//
// Request n (a counter per run) takes paths[n % len], each rotated header's values[n % len], the body with
// every "{n}" replaced by n (or bodies[n % len]), and with `ip` a `cf-connecting-ip` of its own (10.a.b.c
// from n), so per-key and per-IP quotas are spread as a real crowd of clients would spread them.
// The result: { tool, requests, seconds, rps, p50_ms, p99_ms, statuses: { "200": n, ... }, non2xx, errors }.
import { execFileSync, fork, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));

export function wrkAvailable() {
  try {
    execFileSync("wrk", ["--version"], { stdio: "ignore" });
    return true;
  } catch (error) {
    // wrk prints its version and exits 1; only a missing binary is ENOENT.
    return error.code !== "ENOENT";
  }
}

/**
 * One measured run with the chosen tool. Each run's "{n}" is prefixed with a tag of its own, so a row's
 * warm-up and its measured run never send the same body (a POST's title: the second run would measure the
 * taken-slug path, a failed batch and a candidates query more per post, instead of the common case).
 */
export function measure(tool, spec) {
  const tag = Math.random().toString(36).slice(2, 8);
  const tagged =
    spec.body === undefined ? spec : { ...spec, body: spec.body.replaceAll("{n}", `${tag}-{n}`) };
  return tool === "wrk" ? measureWrk(tagged) : measureAutocannon(tagged);
}

function measureAutocannon(spec) {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(here, "autocannon-child.mjs"), [], {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    let answered = false;
    child.on("message", (message) => {
      answered = true;
      if (message.error) reject(new Error(message.error));
      else resolve({ tool: "autocannon", ...message.result });
      child.disconnect();
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      if (!answered) reject(new Error(`autocannon child exited ${code} without a result`));
    });
    child.send(spec);
  });
}

const lua = (value) => JSON.stringify(value); // JSON strings are valid Lua string literals for our ASCII values.
const luaList = (values) => `{${values.map(lua).join(", ")}}`;

/** The Lua script that makes wrk send the spec's requests and print the result as one JSON line. */
export function wrkScript(spec) {
  const rotate = Object.entries(spec.rotate ?? {});
  const staticHeaders = Object.entries(spec.headers ?? {});
  const ipOffset = typeof spec.ip === "object" ? (spec.ip.offset ?? 0) : 0;
  return `
local paths = ${luaList(spec.paths)}
local rotated = { ${rotate.map(([name, values]) => `{ ${lua(name.toLowerCase())}, ${luaList(values)} }`).join(", ")} }
local bodies = ${spec.bodies ? luaList(spec.bodies) : "nil"}
local template = ${spec.body !== undefined ? lua(spec.body) : "nil"}
local amount = ${spec.amount ?? 0}
local threads = {}
local tid = 0
setup = function(thread)
  tid = tid + 1
  thread:set("tid", tid)
  table.insert(threads, thread)
end
local n = 0
local done_count = 0
init = function(args)
  n = (tonumber(wrk.thread:get("tid")) - 1) * 1000000
end
request = function()
  n = n + 1
  local headers = {}
${staticHeaders.map(([name, value]) => `  headers[${lua(name.toLowerCase())}] = ${lua(value)}`).join("\n")}
  for _, r in ipairs(rotated) do headers[r[1]] = r[2][(n % #r[2]) + 1] end
${
  spec.ip
    ? `  local m = n + ${ipOffset}
  headers["cf-connecting-ip"] = "10." .. (math.floor(m / 65536) % 256) .. "." .. (math.floor(m / 256) % 256) .. "." .. (m % 256)`
    : ""
}
  local body = nil
  if bodies then body = bodies[(n % #bodies) + 1] elseif template then body = template:gsub("{n}", tostring(n)) end
  return wrk.format(${lua(spec.method)}, paths[(n % #paths) + 1], headers, body)
end
response = function(status, headers, body)
  done_count = done_count + 1
  if amount > 0 and done_count >= amount then wrk.thread:stop() end
end
done = function(summary, latency, requests)
  io.write(string.format('BENCH_RESULT {"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"errors":%d,"non2xx":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout, summary.errors.status))
end
`;
}

function measureWrk(spec) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "bench-wrk-"));
  const script = path.join(dir, "run.lua");
  writeFileSync(script, wrkScript(spec));
  const connections = spec.connections ?? 16;
  // An `amount` run counts its answers in one thread's script, so it uses one thread.
  const threads = spec.amount ? 1 : Math.max(1, Math.min(2, connections));
  // wrk has no request count: an `amount` run stops from the script, under a duration cap.
  const duration = spec.duration ?? 120;
  const args = ["-t", String(threads), "-c", String(connections), "-d", `${duration}s`, "--timeout", "30s"];
  args.push("-s", script, spec.base);
  return new Promise((resolve, reject) => {
    const child = spawn("wrk", args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.stderr.on("data", (d) => {
      out += d;
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      rmSync(dir, { recursive: true, force: true });
      const line = /BENCH_RESULT (\{.*\})/.exec(out);
      if (code !== 0 || !line) return reject(new Error(`wrk exited ${code}: ${out}`));
      const r = JSON.parse(line[1]);
      const seconds = r.duration_us / 1e6;
      resolve({
        tool: "wrk",
        requests: r.requests,
        seconds,
        rps: r.requests / seconds,
        p50_ms: r.p50_us / 1000,
        p99_ms: r.p99_us / 1000,
        // wrk counts answers outside 2xx/3xx; it does not break them down by status.
        statuses: {},
        non2xx: r.non2xx,
        errors: r.errors,
      });
    });
  });
}
