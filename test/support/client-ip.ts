/**
 * Client addresses for tests. The files of a project share one runtime (vitest.config.ts, `isolate:
 * false`), so per-IP limits (signup, login, form submissions, analytics collection) carry across files:
 * a request without an explicit address gets the running test's own, never one another test used.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { expect } from "vitest";

interface IpState {
  next: number;
  byTest: Map<string, string>;
}

// On globalThis: one counter per runtime, even if a helper module is evaluated once per file.
const holder = globalThis as { __testClientIps?: IpState };
holder.__testClientIps ??= { next: 0, byTest: new Map() };
const state: IpState = holder.__testClientIps;

/** An address (100.64.0.0/10, shared address space) no other call of this runtime got. */
export function uniqueIp(): string {
  state.next += 1;
  const n = state.next;
  return `100.${64 + ((n >> 16) & 63)}.${(n >> 8) & 255}.${n & 255}`;
}

/**
 * Concurrent tests (`describe.concurrent`, the credential matrix) cannot tell from vitest's global state which
 * test is running: a test that runs beside others gives each of them an address of its own with
 * `withOwnIp(fn)`, and every call inside `fn` uses it.
 */
const scope = new AsyncLocalStorage<string>();

/** Runs `fn` with an address no other call of this runtime got, as `testIp()` inside it. */
export function withOwnIp<T>(fn: () => Promise<T>): Promise<T> {
  return scope.run(uniqueIp(), fn);
}

/** The running test's address: the same for every call of one test (its limits add up), unique to it. */
export function testIp(): string {
  const scoped = scope.getStore();
  if (scoped) return scoped;
  const { testPath, currentTestName } = expect.getState();
  const key = `${testPath ?? ""}\u0000${currentTestName ?? ""}`;
  let ip = state.byTest.get(key);
  if (!ip) {
    ip = uniqueIp();
    state.byTest.set(key, ip);
  }
  return ip;
}
