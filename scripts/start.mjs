// `npm start`: the whole platform locally, one process tree. Builds the four Workers, generates local
// secrets on first start (.dev.vars), applies the migrations of every local D1 database (identity's,
// sites', content's site groups and directory: scripts/databases.mjs),
// serves the gateway on 127.0.0.1:8787 and identity/content/sites on 8788-8790 (local D1, KV, DO,
// Queues and R2 persisted under .wrangler/state, the store `wrangler dev` uses), waits until they
// answer, seeds the demo tenant once on an empty database and prints it, then runs every Worker's cron
// triggers on their schedules (scripts/scheduler.mjs: one log line per fire). Ctrl-C stops everything.

import path from "node:path";
import { ensureDevVars } from "./dev-vars.mjs";
import { startPlatform } from "./platform.mjs";
import { devTriggerFirer, runSchedules } from "./scheduler.mjs";
import { seedDemo } from "./seed.mjs";
import { startSsoDemo } from "./sso-demo.mjs";
import { root } from "./workers.mjs";

/**
 * A store an older `npm start` left: sites has sites but content's directory none (content then lived in
 * one `content` database, which no binding opens any more).
 */
async function olderStore(mf) {
  const sites = await (await mf.getD1Database("DB", "sites"))
    .prepare("SELECT COUNT(*) AS n FROM sites")
    .first("n");
  const placed = await (await mf.getD1Database("DIRECTORY", "content"))
    .prepare("SELECT COUNT(*) AS n FROM site_groups")
    .first("n");
  return sites > 0 && placed === 0;
}

async function main() {
  process.stdout.write("Building and starting the workers… ");
  // PORT_OFFSET moves the ports (8787+offset…), PLATFORM_STATE the local store: a second copy (the
  // bench's memory row) runs beside a developer's own `npm start`.
  const portOffset = Number(process.env.PORT_OFFSET ?? 0);
  const persist = process.env.PLATFORM_STATE ?? path.join(root, ".wrangler/state/v3");
  const { mf, urls, migrations } = await startPlatform({ portOffset, persist });
  console.log("ready.");
  for (const [name, applied] of Object.entries(migrations)) {
    console.log(`  migrations ${name}: ${applied.length ? applied.join(", ") : "up to date"}`);
  }

  const identityDb = await mf.getD1Database("DB", "identity");
  const users = await identityDb.prepare("SELECT COUNT(*) AS n FROM users").first("n");
  if (users === 0) {
    console.log("\nEmpty database: seeding the demo tenant (also: npm run seed -- --json)…");
    console.log(JSON.stringify(await seedDemo(urls.gateway, { fresh: true }), null, 2));
  } else if (await olderStore(mf)) {
    console.log(`
This store is from before content's site groups (one \`content\` database, now content-g000, content-g001
and content-directory): its sites have no content here. Start fresh (the demo tenant is seeded again):
stop this, \`rm -rf ${path.relative(root, persist)}\`, then \`npm start\` (README, "Two commands").`);
  } else {
    console.log(
      '\nDatabase already seeded; `npm run seed -- --json` (or `eval "$(npm run -s seed -- --env)"`) gives the demo tenant with fresh keys and a session.',
    );
  }

  const localhost = `http://localhost:${new URL(urls.gateway).port}`;
  const sso = await startSsoDemo({
    identityDb,
    ssoSecretKey: ensureDevVars().identity.SSO_SECRET_KEY,
    callbacks: [`${localhost}/api/v1/auth/sso/callback`, `${urls.gateway}/api/v1/auth/sso/callback`],
    portOffset,
  });
  if (sso) {
    console.log(`
Single sign-on demo (development only): organization "${sso.org.slug}" signs in through the local
OpenID provider ${sso.issuer}. Open ${localhost}/auth/sign-in, choose "Continue with SSO" with
  e-mail    ${sso.user.email}
  password  ${sso.user.password}   (asked by the provider; new each start)`);
  }

  console.log(`
Site platform running:
  gateway   ${urls.gateway}   <- the one address a client needs
  API docs  ${urls.gateway}/docs   (identity, content and sites references)
  identity  ${urls.identity}   docs: ${urls.identity}/docs
  content   ${urls.content}   docs: ${urls.content}/docs
  sites     ${urls.sites}   docs: ${urls.sites}/docs
  dev outbox: ${urls.gateway}/api/v1/auth/__dev/outbox?to=ADDRESS
  crons: on schedule (one [cron] line per fire); fire one now: npm run cron -- <worker> ["<cron>"]
Ctrl-C stops everything.`);

  // The Workers' cron triggers, through each service's development trigger (src/lib/dev-cron.ts).
  const schedules = runSchedules({ fire: devTriggerFirer(urls) });

  const stop = async () => {
    console.log("\nStopping…");
    schedules.stop();
    await sso?.provider.close();
    await mf.dispose();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
