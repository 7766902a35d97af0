// Run by scripts/platform.mjs as a short-lived child: reads the four wrangler configs (Miniflare options
// of each Worker, with its routes) and splits every migration file, then prints them as one JSON line.
// Wrangler's readers stay in this process, which exits, not in the one that keeps the platform running.
import { migrationFiles, migrationStatements } from "./migrate.mjs";
import { serviceNames, services, workerOptions } from "./workers.mjs";

export const OPTIONS_MARK = "PLATFORM_OPTIONS ";

async function main() {
  const { scripts } = JSON.parse(process.argv[2]);
  const workers = Object.fromEntries(
    serviceNames.map((name) => [name, workerOptions(name, { scriptPath: scripts[name], withRoutes: true })]),
  );
  const migrations = {};
  for (const name of serviceNames) {
    const database = services[name].database;
    if (!database) continue;
    migrations[database] = {};
    for (const file of migrationFiles(database)) {
      migrations[database][file] = await migrationStatements(database, file);
    }
  }
  process.stdout.write(`\n${OPTIONS_MARK}${JSON.stringify({ workers, migrations })}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
