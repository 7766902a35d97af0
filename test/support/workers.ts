/**
 * Node-side (vitest config) description of the four Workers for tests: each built once with esbuild
 * and turned into Miniflare options from its own wrangler config, so a test project can run any one
 * of them as the main worker and the other three as auxiliary workers reached over service bindings.
 */
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { buildSync } from "esbuild";
import { unstable_getMiniflareWorkerOptions } from "wrangler";

export const root = path.resolve(import.meta.dirname, "../..");

export const services = {
  gateway: { config: "wrangler.toml", entry: "src/gateway/index.ts" },
  identity: { config: "workers/identity/wrangler.toml", entry: "src/identity/index.ts" },
  content: { config: "workers/content/wrangler.toml", entry: "src/content/index.ts" },
  sites: { config: "workers/sites/wrangler.toml", entry: "src/sites/index.ts" },
} as const;
export type ServiceName = keyof typeof services;

function testSigningKeys(): string {
  const make = (kid: string) => {
    const { privateKey } = generateKeyPairSync("ed25519");
    return { ...privateKey.export({ format: "jwk" }), kid, alg: "EdDSA", use: "sig" };
  };
  return JSON.stringify({ current: make("test-current"), next: make("test-next") });
}

/** Secrets and dev-only settings every worker gets in tests (as `npm start` writes them to .dev.vars). */
export const testSecrets: Record<string, string> = {
  JWT_SIGNING_KEYS: testSigningKeys(),
  OTP_PEPPER: randomBytes(32).toString("base64url"),
  API_KEY_PEPPER: randomBytes(32).toString("base64url"),
  CURSOR_SECRET: randomBytes(32).toString("base64url"),
  DEV_OUTBOX: "true",
  // Test-only overrides of wrangler vars: short ingest wait, fake DNS-over-HTTPS and breach-check hosts.
  IMAGE_INGEST_TIMEOUT_MS: "1500",
  DOH_URL: "https://dns.test/dns-query",
  BREACH_CHECK_URL: "https://breach.test/range/",
};

const buildDir = path.join(root, ".test-build");

export function buildWorker(name: ServiceName): string {
  const outfile = path.join(buildDir, name, "index.js");
  mkdirSync(path.dirname(outfile), { recursive: true });
  buildSync({
    entryPoints: [path.join(root, services[name].entry)],
    outfile,
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    mainFields: ["module", "main"],
    conditions: ["workerd", "worker", "browser"],
    external: ["cloudflare:*", "node:*"],
    logLevel: "error",
  });
  return outfile;
}

/**
 * The plugin renames the worker under test to its runner; auxiliary workers' bindings that name it are
 * pointed at the runner so calls back into the main worker (e.g. sites -> content) reach it.
 */
export function auxiliaryWorker(name: ServiceName, main: { name: ServiceName; runner: string }) {
  const { workerOptions } = unstable_getMiniflareWorkerOptions(path.join(root, services[name].config));
  // Source options come from the esbuild bundle below, not from wrangler's module rules.
  const { modulesRules: _rules, ...options } = workerOptions;
  return {
    ...options,
    name,
    // The bundle lives under the repo root; workerd refuses module paths that climb out of rootPath.
    rootPath: root,
    modules: true,
    scriptPath: buildWorker(name),
    serviceBindings: Object.fromEntries(
      Object.entries(options.serviceBindings ?? {}).map(([binding, target]) => [
        binding,
        typeof target === "object" && "name" in target && target.name === main.name
          ? { ...target, name: main.runner }
          : target,
      ]),
    ),
    bindings: { ...(options.bindings ?? {}), ...testSecrets },
  };
}
