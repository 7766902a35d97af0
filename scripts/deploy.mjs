// `npm run deploy [-- --dry-run] [-- --settings FILE]`: the platform on a Cloudflare account, from scratch
// or again (idempotent: every step looks before it acts).
//
//  1. Resources: D1 databases and KV namespaces are listed and the absent ones created; queues (dead-letter
//     queues included) and R2 buckets are looked up one by one and created when absent.
//  2. Production configs: generated into .wrangler/production/<worker>.json from the committed configs with
//     the real ids and the production vars of the settings file (deploy/production.json); the committed
//     configs are never edited (they stay the development ones).
//  3. Remote migrations of every database (`wrangler d1 migrations apply --remote`), before any code:
//     identity's, sites', and content's site groups and directory (docs/decisions/site-groups.md). A group
//     added to workers/content/wrangler.toml (a binding, its name in CONTENT_GROUPS) is created in step 1
//     and migrated here; the other databases apply nothing new. Content's groups get read replication.
//  4. The Workers in dependency order, services before the gateway. A service binding must name an
//     existing Worker and the services bind each other in a cycle, so on a first deploy a target that does
//     not exist yet is first deployed as a stub (503 to anything; no bindings), then replaced in its turn.
//     Secrets go with each deploy (--secrets-file, a 0600 file removed right after): generated ones only
//     when the Worker lacks them (never regenerated), provided ones (provider tokens) from the environment.
//     No secret is ever printed.
//
// --dry-run needs no account: it prints the plan, refuses the settings exactly as the real run would
// (`refuseUnready`, the one check both call: example or local values, missing or development-only vars),
// then runs `wrangler deploy --dry-run` on each generated config (placeholder ids), which bundles and
// checks every Worker offline. Only the account (`wrangler whoami`) is left to the real run.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  configProblems,
  contentGroupDatabases,
  contentRoutes,
  DEFAULT_SETTINGS,
  DEPLOY_ORDER,
  EXAMPLE_SETTINGS,
  GENERATED_DIR,
  placeholderIds,
  productionConfig,
  REQUIRED_VARS,
  readConfig,
  readSettings,
  resources,
  SECRETS,
  SHARED_SECRETS,
  secretsToUpload,
  serviceTargets,
  settingsProblems,
  sharedSecretsToUpload,
} from "./deploy-config.mjs";
import { root } from "./workers.mjs";
import { wranglerResult } from "./wrangler.mjs";

const NOT_FOUND = /10007|not[ _]found|does not exist|could not find|no such/i;
const ALREADY = /already exists|already taken|10026|11009/i;

/** The JSON a listing printed (stdout; a banner line before it is skipped). */
function parseJson(text, what) {
  const start = text.search(/^\s*[[{]/m);
  if (start < 0) throw new Error(`${what}: no JSON in the output`);
  return JSON.parse(text.slice(start));
}

/** Writes the generated configs of every Worker into `dir`; returns { name: file }. */
export function writeConfigs(dir, settings, ids, configs = {}) {
  mkdirSync(dir, { recursive: true });
  const files = {};
  for (const name of DEPLOY_ORDER) {
    files[name] = path.join(dir, `${name}.json`);
    writeFileSync(
      files[name],
      `${JSON.stringify(productionConfig(name, { settings, ids, outDir: dir, configs }), null, 2)}\n`,
    );
  }
  return files;
}

/** The stub that holds a Worker's name until its real deploy (first deploy only). */
function writeStub(dir, name, configs) {
  const stubDir = path.join(dir, `stub-${name}`);
  mkdirSync(stubDir, { recursive: true });
  writeFileSync(
    path.join(stubDir, "index.js"),
    'export default { fetch() { return new Response("Deploying.", { status: 503 }); } };\n',
  );
  const file = path.join(stubDir, "wrangler.json");
  const { raw } = readConfig(name, configs);
  writeFileSync(
    file,
    JSON.stringify({
      name,
      main: "index.js",
      compatibility_date: raw.compatibility_date,
      workers_dev: false,
      preview_urls: false,
    }),
  );
  return file;
}

function describePlan(settings, settingsFile, env, log, configs) {
  const r = resources(configs);
  log(`Settings: ${path.relative(root, settingsFile)}`);
  log("Plan:");
  log(`  1. D1 databases (list, create when absent): ${r.d1.join(", ")}`);
  log(`     KV namespaces (list, create when absent): ${r.kv.join(", ")}`);
  log(`     Queues (look up, create when absent): ${r.queues.join(", ")}`);
  log(`     R2 buckets (look up, create when absent): ${r.r2.join(", ")}`);
  log(`  2. Production configs with the real ids into ${path.relative(root, GENERATED_DIR)}/`);
  const dbs = DEPLOY_ORDER.flatMap((n) =>
    (readConfig(n, configs).raw.d1_databases ?? []).map((d) => d.database_name),
  );
  log(
    `  3. Remote migrations (each applies only what it lacks): ${dbs.join(", ")}; read replication on: ${replicatedDatabases(configs).join(", ")}`,
  );
  log(
    `  4. Workers, in order: ${DEPLOY_ORDER.join(" → ")} (a binding target not deployed yet gets a stub first)`,
  );
  for (const name of DEPLOY_ORDER) {
    const gen = Object.keys(SECRETS[name].generated);
    const provided = SECRETS[name].provided.map(
      (k) => `${k} (${env[k] ? "from the environment" : "not set"})`,
    );
    const reach =
      name === "gateway"
        ? settings.workers?.gateway?.routes?.map((r) => r.pattern).join(", ") || "workers.dev"
        : name === "content"
          ? contentRoutes(settings.workers?.gateway?.routes ?? [])
              .map((r) => (typeof r === "string" ? r : r.pattern))
              .join(", ") || "no public URL (the gateway forwards /v1/* and /media/*)"
          : "no public URL (service bindings only)";
    log(`     ${name}: ${reach}`);
    if (gen.length) log(`       secrets generated when absent: ${gen.join(", ")}`);
    const shared = Object.keys(SHARED_SECRETS).filter((k) => SHARED_SECRETS[k].workers.includes(name));
    if (shared.length) log(`       shared secrets (one value on every Worker): ${shared.join(", ")}`);
    if (provided.length) log(`       secrets provided: ${provided.join(", ")}`);
    log(`       production vars: ${REQUIRED_VARS[name].join(", ")}`);
  }
}

/**
 * The settings' readiness, one check for the real deploy and its dry run: every problem of
 * `settingsProblems` refuses both, listed together (a dry run that passes is a deploy that is not refused
 * for its settings).
 */
function refuseUnready(settings, settingsFile, configs) {
  const problems = [...configProblems(configs), ...settingsProblems(settings)];
  if (problems.length) {
    throw new Error(
      `${path.relative(root, settingsFile)} is not ready for production (${problems.length} ${problems.length === 1 ? "problem" : "problems"}):\n  ${problems.join("\n  ")}`,
    );
  }
}

async function dryRun({ settingsFile, wrangler, env, log, bundleDir, configs }) {
  const settings = readSettings(settingsFile);
  describePlan(settings, settingsFile, env, log, configs);
  refuseUnready(settings, settingsFile, configs);
  const dir = mkdtempSync(path.join(os.tmpdir(), "deploy-dry-run-"));
  try {
    const files = writeConfigs(path.join(dir, "configs"), settings, placeholderIds(configs), configs);
    log("\nwrangler deploy --dry-run (offline: bundles and checks each Worker):");
    for (const name of DEPLOY_ORDER) {
      const result = await wrangler([
        "deploy",
        "--dry-run",
        "-c",
        files[name],
        "--outdir",
        path.join(bundleDir ?? dir, name),
      ]);
      const size = /Total Upload: ([^\n]+)/.exec(result.stdout)?.[1]?.trim() ?? "";
      if (result.code !== 0) {
        throw new Error(`wrangler deploy --dry-run of ${name} failed:\n${result.stdout}\n${result.stderr}`);
      }
      log(`  ${name}: ok ${size}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  log("\nDry run done: nothing was created or uploaded.");
}

async function must(wrangler, args, what, options) {
  const result = await wrangler(args, options);
  if (result.code !== 0)
    throw new Error(`${what} failed (wrangler ${args.join(" ")}):\n${result.stderr || result.stdout}`);
  return result;
}

/** Looks up, else creates, a resource that has an info command; "already exists" on create counts. */
async function ensureOne(wrangler, info, create, label, log) {
  const found = await wrangler(info);
  if (found.code === 0) return log(`  ${label}: exists`);
  const made = await wrangler(create);
  if (made.code === 0) return log(`  ${label}: created`);
  if (ALREADY.test(made.stderr + made.stdout)) return log(`  ${label}: exists`);
  throw new Error(`${label}: could not create:\n${made.stderr || made.stdout}`);
}

async function ensureResources(wrangler, log, configs) {
  const r = resources(configs);
  const d1List = async () =>
    parseJson((await must(wrangler, ["d1", "list", "--json"], "listing D1 databases")).stdout, "d1 list");
  let d1 = await d1List();
  for (const name of r.d1.filter((n) => !d1.some((db) => db.name === n))) {
    await must(wrangler, ["d1", "create", name], `creating D1 database ${name}`);
    log(`  D1 ${name}: created`);
  }
  d1 = await d1List();
  const kvList = async () =>
    parseJson((await must(wrangler, ["kv", "namespace", "list"], "listing KV namespaces")).stdout, "kv list");
  let kv = await kvList();
  for (const title of r.kv.filter((t) => !kv.some((ns) => ns.title === t))) {
    await must(wrangler, ["kv", "namespace", "create", title], `creating KV namespace ${title}`);
    log(`  KV ${title}: created`);
  }
  kv = await kvList();
  for (const q of r.queues) {
    await ensureOne(wrangler, ["queues", "info", q], ["queues", "create", q], `queue ${q}`, log);
  }
  for (const b of r.r2) {
    await ensureOne(
      wrangler,
      ["r2", "bucket", "info", b],
      ["r2", "bucket", "create", b],
      `R2 bucket ${b}`,
      log,
    );
  }
  const ids = {
    d1: Object.fromEntries(r.d1.map((n) => [n, d1.find((db) => db.name === n)?.uuid])),
    kv: Object.fromEntries(r.kv.map((t) => [t, kv.find((ns) => ns.title === t)?.id])),
  };
  for (const [kind, map] of Object.entries(ids)) {
    for (const [name, id] of Object.entries(map))
      if (!id) throw new Error(`${kind} ${name}: no id after creation`);
  }
  log(`  D1: ${r.d1.join(", ")}; KV: ${r.kv.join(", ")} (ids in the generated configs)`);
  return ids;
}

/** The secret names a deployed Worker has, or null when the Worker does not exist yet. */
async function deployedSecrets(wrangler, name, config) {
  const result = await wrangler(["secret", "list", "-c", config, "--format", "json"]);
  if (result.code === 0) return parseJson(result.stdout, `secret list ${name}`).map((s) => s.name);
  if (NOT_FOUND.test(result.stderr + result.stdout)) return null;
  // Anything else (auth, network) must stop the deploy: treating it as "no secrets" would regenerate them.
  throw new Error(`listing the secrets of ${name} failed:\n${result.stderr || result.stdout}`);
}

/**
 * Databases read through D1 sessions (src/content/core/read-session.ts): content's site groups, every one
 * (docs/decisions/site-groups.md); their reads may be answered by replicas, so replication is switched on
 * (docs/capacity.md, step 2). The others (identity, sites, content's directory) keep one copy.
 */
export function replicatedDatabases(configs = {}) {
  return contentGroupDatabases(configs);
}

/**
 * Read replication `auto` on each replicated database: Cloudflare's API (wrangler has no command for it),
 * with the deployer's API token. Without a token or an account id (a wrangler OAuth login), or if the API
 * refuses, the deploy goes on and says how to switch it on: sessions work on one copy too, reading the
 * primary.
 */
async function enableReadReplication({ ids, settings, env, api, log, configs }) {
  const account = settings.account_id ?? env.CLOUDFLARE_ACCOUNT_ID;
  const token = env.CLOUDFLARE_API_TOKEN;
  for (const name of replicatedDatabases(configs)) {
    const url = `https://api.cloudflare.com/client/v4/accounts/${account ?? "<account id>"}/d1/database/${ids.d1[name]}`;
    const body = JSON.stringify({ read_replication: { mode: "auto" } });
    const how = `curl -X PUT ${url} -H "Authorization: Bearer $CLOUDFLARE_API_TOKEN" -H "Content-Type: application/json" -d '${body}'`;
    if (!token || !account) {
      log(
        `  ${name}: not switched on here (needs CLOUDFLARE_API_TOKEN and the account id); run:\n    ${how}`,
      );
      continue;
    }
    const res = await api(url, {
      method: "PUT",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body,
    });
    if (res.ok) log(`  ${name}: read replication auto`);
    else
      log(
        `  warning: ${name}: read replication not switched on (${res.status} ${await res.text()}); run:\n    ${how}`,
      );
  }
}

async function realDeploy({ settingsFile, wrangler: run, env, log, outDir, api, configs }) {
  const settings = readSettings(settingsFile);
  // Every call on the settings' account (when named; else the one wrangler is logged in to).
  const account = settings.account_id ? { CLOUDFLARE_ACCOUNT_ID: settings.account_id } : {};
  const wrangler = (args, options = {}) => run(args, { ...options, env: { ...account, ...options.env } });
  refuseUnready(settings, settingsFile, configs);
  describePlan(settings, settingsFile, env, log, configs);
  await must(
    wrangler,
    ["whoami"],
    "Cloudflare login (run `node scripts/wrangler.mjs login` or set CLOUDFLARE_API_TOKEN)",
  );

  log("\n1. Resources");
  const ids = await ensureResources(wrangler, log, configs);

  log("\n2. Production configs");
  const files = writeConfigs(outDir, settings, ids, configs);
  writeFileSync(path.join(outDir, "resources.json"), `${JSON.stringify(ids, null, 2)}\n`);
  log(`  ${path.relative(root, outDir)}/{${DEPLOY_ORDER.join(",")}}.json`);

  log("\n3. Remote migrations");
  // Every database of every config, content's site groups and directory included: a new group is created
  // above and gets every migration here; the others apply only what they lack (none, on a re-run).
  for (const name of DEPLOY_ORDER) {
    for (const db of readConfig(name, configs).raw.d1_databases ?? []) {
      // Non-interactive (CI=true): wrangler skips its confirmation and still takes a backup first.
      await must(
        wrangler,
        ["d1", "migrations", "apply", db.database_name, "--remote", "-c", files[name]],
        `migrations of ${db.database_name}`,
        {
          capture: false,
          env: { CI: "true" },
        },
      );
    }
  }

  log("\n3b. D1 read replication");
  await enableReadReplication({ ids, settings, env, api, log, configs });

  log("\n4. Workers");
  const secretsOf = new Map();
  const known = async (name) => {
    if (!secretsOf.has(name)) secretsOf.set(name, await deployedSecrets(wrangler, name, files[name]));
    return secretsOf.get(name);
  };
  // Every Worker's secret names first: a shared secret goes to all of them or to none.
  for (const name of DEPLOY_ORDER) await known(name);
  const shared = sharedSecretsToUpload(Object.fromEntries(DEPLOY_ORDER.map((n) => [n, secretsOf.get(n)])));
  const missingProvided = [];
  for (const name of DEPLOY_ORDER) {
    for (const target of serviceTargets(name, configs)) {
      if ((await known(target)) === null) {
        log(`  ${target}: not deployed yet, stub first (${name} binds it)`);
        await must(wrangler, ["deploy", "-c", writeStub(outDir, target, configs)], `stub of ${target}`, {
          capture: false,
        });
        secretsOf.set(target, []);
      }
    }
    const existing = (await known(name)) ?? [];
    const { secrets: own, missing } = secretsToUpload(name, existing, env);
    const secrets = { ...own, ...shared[name] };
    missingProvided.push(...missing.map((k) => `${name}: ${k}`));
    const args = ["deploy", "-c", files[name]];
    let secretDir = null;
    try {
      if (Object.keys(secrets).length) {
        secretDir = mkdtempSync(path.join(os.tmpdir(), "deploy-secrets-"));
        chmodSync(secretDir, 0o700);
        const file = path.join(secretDir, "secrets.json");
        writeFileSync(file, JSON.stringify(secrets), { mode: 0o600 });
        args.push("--secrets-file", file);
        log(`  ${name}: deploying with secrets ${Object.keys(secrets).join(", ")}`);
      } else log(`  ${name}: deploying`);
      await must(wrangler, args, `deploy of ${name}`, { capture: false });
      secretsOf.set(name, [...new Set([...existing, ...Object.keys(secrets)])]);
    } finally {
      if (secretDir) rmSync(secretDir, { recursive: true, force: true });
    }
  }
  log("\nDeployed. Re-running `npm run deploy` is safe: it finds what exists and changes only what differs.");
  if (missingProvided.length) {
    log(
      `Not set (their features fail closed until you set them and deploy again): ${missingProvided.join(", ")}`,
    );
  }
}

/** The whole deploy; `wrangler` and `env` are injectable (tests drive it against a fake account). */
export async function deploy({
  dryRun: dry = false,
  settingsFile,
  wrangler = wranglerResult,
  env = process.env,
  log = (line) => console.log(line),
  outDir = GENERATED_DIR,
  // Cloudflare's REST API, for what wrangler has no command for (D1 read replication).
  api = (url, init) => fetch(url, init),
  // --dry-run: where the bundles are kept (default: a temporary folder, removed after).
  bundleDir = undefined,
  // A Worker's config other than its committed one, by name (tests: content with a group added).
  configs = {},
} = {}) {
  const file = settingsFile ?? (existsSync(DEFAULT_SETTINGS) || !dry ? DEFAULT_SETTINGS : EXAMPLE_SETTINGS);
  if (!existsSync(file)) {
    throw new Error(
      `${path.relative(root, file)} not found: copy deploy/production.example.json there and set your values.`,
    );
  }
  if (dry) return dryRun({ settingsFile: file, wrangler, env, log, bundleDir, configs });
  return realDeploy({ settingsFile: file, wrangler, env, log, outDir, api, configs });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const at = args.indexOf("--settings");
  deploy({
    dryRun: args.includes("--dry-run"),
    settingsFile: at >= 0 ? path.resolve(args[at + 1]) : undefined,
  }).catch((error) => {
    console.error(`\n${error.message}`);
    process.exit(1);
  });
}
