// The four Workers as Miniflare sees them, built from their own wrangler configs. Used by `npm start`
// (scripts/start.mjs) and by the test harness (test/support/workers.ts), so both run the same thing.
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export const services = {
  gateway: { config: "wrangler.toml", entry: "src/gateway/index.ts", port: 8787, database: null },
  identity: {
    config: "workers/identity/wrangler.toml",
    entry: "src/identity/index.ts",
    port: 8788,
    database: "identity",
  },
  content: {
    config: "workers/content/wrangler.toml",
    entry: "src/content/index.ts",
    port: 8789,
    database: "content",
  },
  sites: {
    config: "workers/sites/wrangler.toml",
    entry: "src/sites/index.ts",
    port: 8790,
    database: "sites",
  },
};

export const serviceNames = /** @type {(keyof typeof services)[]} */ (Object.keys(services));

/**
 * Bundles one worker with esbuild (what wrangler does on deploy) into `<outDir>/<name>/index.js`. The esbuild
 * command runs and exits: its JavaScript API would keep a service process (about 120 MB) and a worker
 * thread alive beside `npm start` for as long as it runs.
 */
export function buildWorker(name, outDir) {
  const outfile = path.join(outDir, name, "index.js");
  mkdirSync(path.dirname(outfile), { recursive: true });
  execFileSync(
    esbuildBinary(),
    [
      path.join(root, services[name].entry),
      `--outfile=${outfile}`,
      "--bundle",
      "--format=esm",
      "--platform=neutral",
      "--target=es2022",
      "--main-fields=module,main",
      "--conditions=workerd,worker,browser",
      "--external:cloudflare:*",
      "--external:node:*",
      "--log-level=error",
    ],
    { stdio: ["ignore", "inherit", "inherit"] },
  );
  return outfile;
}

/**
 * Wrangler's config readers, loaded on first use: the package holds about 75 MB once loaded, which
 * `npm start` keeps out of its long-running process (scripts/platform-options.mjs reads the configs).
 */
function wrangler() {
  return createRequire(import.meta.url)("wrangler");
}

/** The esbuild executable of the installed package (the native binary its JavaScript API also runs). */
function esbuildBinary() {
  const require = createRequire(import.meta.url);
  const pkg = path.dirname(require.resolve("esbuild/package.json"));
  return path.join(pkg, "bin", "esbuild");
}

/**
 * Miniflare (v4-shaped) options of one worker: bindings from its wrangler config (the committed one, or
 * `config`), source from the bundle, extra bindings (secrets) merged last, and service bindings renamed
 * where asked (the test plugin renames the worker under test).
 */
export function workerOptions(
  name,
  { scriptPath, bindings = {}, rename = {}, config = undefined, withRoutes = false },
) {
  // `config`: another wrangler config of this worker (the generated production one, in tests).
  const file = config ?? path.join(root, services[name].config);
  const { workerOptions: options } = wrangler().unstable_getMiniflareWorkerOptions(file);
  // Source options come from the bundle, not from wrangler's module rules.
  const { modulesRules: _rules, ...rest } = options;
  const serviceBindings = Object.fromEntries(
    Object.entries(rest.serviceBindings ?? {}).map(([binding, target]) => [
      binding,
      typeof target === "object" && target && "name" in target && rename[target.name]
        ? { ...target, name: rename[target.name] }
        : target,
    ]),
  );
  return {
    ...rest,
    name,
    modules: true,
    scriptPath,
    // The bundle lives under the repo root; workerd refuses module paths that climb out of rootPath.
    rootPath: root,
    serviceBindings,
    bindings: { ...(rest.bindings ?? {}), ...bindings },
    // `withRoutes`: the config's `routes` patterns, which Miniflare matches on the entry socket as
    // Cloudflare matches a zone's routes (wrangler's option reader leaves them out).
    ...(withRoutes ? { routes: routePatterns(name) } : {}),
  };
}

/**
 * The public origin's paths each Worker answers itself, as route patterns of any host: content's
 * key-authenticated API and media (no gateway hop). Miniflare matches them on the gateway's socket as
 * Cloudflare matches a zone's routes; a deploy writes them per host of the gateway's routes
 * (scripts/deploy-config.mjs `contentRoutes`). Kept here, not in the wrangler config: `wrangler dev`
 * refuses a route without a host.
 */
export const LOCAL_ROUTES = { gateway: [], identity: [], content: ["*/v1/*", "*/media/*"], sites: [] };

/** The local route patterns of a Worker. */
export function routePatterns(name) {
  return LOCAL_ROUTES[name] ?? [];
}
