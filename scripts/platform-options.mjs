// Run by scripts/platform.mjs as a short-lived child: reads the four wrangler configs (Miniflare options
// of each Worker, with its routes) and splits the migration files of every database (scripts/databases.mjs), then prints them as one JSON line.
// Wrangler's readers stay in this process, which exits, not in the one that keeps the platform running.

import { allDatabases } from "./databases.mjs";
import { migrationFiles, migrationStatements } from "./migrate.mjs";
import { serviceNames, workerOptions } from "./workers.mjs";

export const OPTIONS_MARK = "PLATFORM_OPTIONS ";

async function main() {
  const { scripts } = JSON.parse(process.argv[2]);
  const workers = Object.fromEntries(
    serviceNames.map((name) => [name, workerOptions(name, { scriptPath: scripts[name], withRoutes: true })]),
  );
  // Every database of the configs (content's groups share one folder of migrations, split once).
  const databases = allDatabases();
  const migrations = {};
  for (const folder of new Set(databases.map((db) => db.migrations))) {
    migrations[folder] = {};
    for (const file of migrationFiles(folder)) {
      migrations[folder][file] = await migrationStatements(folder, file);
    }
  }
  process.stdout.write(`\n${OPTIONS_MARK}${JSON.stringify({ workers, migrations, databases })}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
