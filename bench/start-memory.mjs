// The memory `npm start` holds: scripts/start.mjs run as a developer runs it (its own ports and a fresh
// store, so nothing else is disturbed), the resident memory of its Node process and every process below it
// (workerd, a local OpenID provider if one is started) read 10 s after it printed that it is running.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { root } from "../scripts/workers.mjs";
import { treeMemory } from "./memory.mjs";

const READY_LINE = "Ctrl-C stops everything.";

export async function startMemory({ portOffset, settleSeconds = 10, timeoutMs = 180_000 }) {
  const state = mkdtempSync(path.join(os.tmpdir(), "platform-start-memory-"));
  const child = spawn(process.execPath, [path.join(root, "scripts/start.mjs")], {
    cwd: root,
    env: { ...process.env, PORT_OFFSET: String(portOffset), PLATFORM_STATE: state },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  try {
    await new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`npm start not ready: ${out.slice(-2000)}`)),
        timeoutMs,
      );
      const onData = (d) => {
        out += d;
        if (out.includes(READY_LINE)) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout.on("data", onData);
      child.stderr.on("data", onData);
      child.on("exit", (code) => reject(new Error(`npm start exited ${code}: ${out.slice(-2000)}`)));
    });
    await new Promise((r) => setTimeout(r, settleSeconds * 1000));
    return { settle_seconds: settleSeconds, ...treeMemory(child.pid) };
  } finally {
    child.kill("SIGTERM");
    await new Promise((r) => (child.exitCode === null ? child.once("exit", r) : r()));
    rmSync(state, { recursive: true, force: true });
  }
}
