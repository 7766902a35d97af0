// Runs the project's wrangler CLI. Wrangler's bin shim refuses Node < 22 before doing anything; the CLI
// itself runs on Node 20, which is what this machine and CI have (see docs/decisions/platform.md).
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);
export const wranglerCli = path.join(
  path.dirname(require.resolve("wrangler/package.json")),
  "wrangler-dist/cli.js",
);

export function runWrangler(args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--no-warnings", wranglerCli, ...args], {
      stdio: options.stdio ?? "inherit",
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", ...options.env },
    });
    let out = "";
    child.stdout?.on("data", (d) => {
      out += d;
    });
    child.stderr?.on("data", (d) => {
      out += d;
    });
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolve(out) : reject(new Error(`wrangler ${args.join(" ")} exited ${code}\n${out}`)),
    );
  });
}

/**
 * Runs the wrangler CLI and resolves (never rejects) with its exit code and output: `capture` keeps
 * stdout and stderr apart for parsing (JSON listings); otherwise both stream to this terminal.
 */
export function wranglerResult(args, { capture = true, env = {} } = {}) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--no-warnings", wranglerCli, ...args], {
      stdio: capture ? ["ignore", "pipe", "pipe"] : ["ignore", "inherit", "inherit"],
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (d) => {
      stdout += d;
    });
    child.stderr?.on("data", (d) => {
      stderr += d;
    });
    child.on("error", (error) => resolve({ code: -1, stdout, stderr: `${stderr}${error.message}` }));
    child.on("exit", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runWrangler(process.argv.slice(2)).catch((e) => {
    console.error(e.message);
    process.exit(1);
  });
}
