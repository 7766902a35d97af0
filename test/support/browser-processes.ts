/**
 * Child processes for the browser project's tests, run asynchronously. Never `spawnSync`/`execFileSync`
 * there: a synchronous child blocks the test process's event loop, so undici cannot retire its idle
 * keep-alive sockets to the platform (its 4 s timer cannot fire), workerd closes them after 15 s idle,
 * and the next `fetch` after a child that ran longer than that is written to a closed socket: "fetch
 * failed … other side closed" (seen in CI as a flake of client-package and seed-env, reproduced with a
 * 16 s `spawnSync("sleep")` between two fetches against `npm start`). test/structure/
 * browser-event-loop.unit.test.ts keeps synchronous children out of the browser project.
 */
import { spawn } from "node:child_process";

export interface ProcessResult {
  /** The exit code; null when the process was killed (by the timeout or a signal). */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `command args` in `cwd`, stdin closed, and resolves with its exit and its output once it ends. */
export function runProcess(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
      timeout: options.timeoutMs,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** `runProcess`, and its stdout when it exits 0; otherwise an error with the command and its output. */
export async function runChecked(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<string> {
  const result = await runProcess(command, args, options);
  if (result.code === 0) return result.stdout;
  const ending = result.code === null ? `killed by ${result.signal}` : `exit code ${result.code}`;
  throw new Error(`${command} ${args.join(" ")} failed (${ending})\n${result.stdout}\n${result.stderr}`);
}
