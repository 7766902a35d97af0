// Every D1 database of the four Workers, as their wrangler configs declare them: identity's, sites', and
// content's site groups (`content-g000`, … bound as DB_G000, …, listed in order by its CONTENT_GROUPS var)
// and their directory (`content-directory`), docs/decisions/site-groups.md. `npm start`, `npm run dev`, the
// backup and its restore read this one list, so a group added to workers/content/wrangler.toml is migrated,
// backed up and restored with no other change. Read from the TOML text (each `[[d1_databases]]` table's
// string keys), not with wrangler's reader (75 MB, slow to load), for these few values.
import { readFileSync } from "node:fs";
import path from "node:path";
import { root, serviceNames, services } from "./workers.mjs";

/**
 * The `[[d1_databases]]` tables of a wrangler.toml text: { binding, database_name, database_id,
 * migrations_dir } each (string values only; that is all these tables hold).
 */
export function d1Tables(text) {
  const out = [];
  const lines = text.split("\n");
  let current = null;
  for (const raw of lines) {
    const line = raw.replace(/\s+#.*$/, "").trim();
    if (line.startsWith("[")) {
      current = line === "[[d1_databases]]" ? {} : null;
      if (current) out.push(current);
      continue;
    }
    const pair = current && /^([A-Za-z_]+)\s*=\s*"([^"]*)"$/.exec(line);
    if (pair) current[pair[1]] = pair[2];
  }
  return out;
}

/** A string var of a wrangler.toml text's `[vars]` table (undefined when absent). */
export function tomlVar(text, name) {
  const vars = /^\[vars\]\s*$([\s\S]*?)(?=^\[)/m.exec(text)?.[1] ?? "";
  return new RegExp(`^${name}\\s*=\\s*"([^"]*)"`, "m").exec(vars)?.[1];
}

/**
 * The databases of one Worker's config (`configFile`: another config of it, in tests): { service,
 * binding, name (database_name), id (the local database_id: Miniflare names the SQLite file by it),
 * migrations (the folder under migrations/) }.
 */
export function serviceDatabases(service, configFile = path.join(root, services[service].config)) {
  const dir = path.dirname(configFile);
  return d1Tables(readFileSync(configFile, "utf8")).map((t) => {
    if (!t.binding || !t.database_name || !t.database_id || !t.migrations_dir) {
      throw new Error(
        `${path.relative(root, configFile)}: a [[d1_databases]] lacks a key: ${JSON.stringify(t)}`,
      );
    }
    const migrationsDir = path.resolve(dir, t.migrations_dir);
    if (path.dirname(migrationsDir) !== path.join(root, "migrations")) {
      throw new Error(
        `${t.database_name}: migrations_dir ${t.migrations_dir} is not a folder of migrations/`,
      );
    }
    return {
      service,
      binding: t.binding,
      name: t.database_name,
      id: t.database_id,
      migrations: path.basename(migrationsDir),
    };
  });
}

/** Every database of the four Workers, in service order (identity, content's, sites). */
export function allDatabases() {
  return serviceNames.flatMap((name) => serviceDatabases(name));
}

/** The D1 database name of a content group (g001 → content-g001) and its binding (DB_G001). */
export const groupDatabaseName = (group) => `content-${group}`;
export const groupBindingName = (group) => `DB_${group.toUpperCase()}`;

/**
 * What is wrong with content's site groups in its config text: every group CONTENT_GROUPS lists needs its
 * binding (DB_G00n, database content-g00n, migrations/content), every group binding is listed, and the
 * directory (binding DIRECTORY, migrations/content-directory) is there. Empty when all is well.
 */
export function contentGroupProblems(text) {
  const problems = [];
  const tables = d1Tables(text);
  const listed = (tomlVar(text, "CONTENT_GROUPS") ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (listed.length === 0) problems.push("content: vars.CONTENT_GROUPS lists no group");
  for (const group of listed) {
    if (!/^g\d{3}$/.test(group)) {
      problems.push(`content: CONTENT_GROUPS names ${group}, not a group name (g000)`);
      continue;
    }
    const table = tables.find((t) => t.binding === groupBindingName(group));
    if (!table)
      problems.push(`content: group ${group} has no [[d1_databases]] binding ${groupBindingName(group)}`);
    else {
      if (table.database_name !== groupDatabaseName(group)) {
        problems.push(
          `content: ${table.binding} is database ${table.database_name}, not ${groupDatabaseName(group)}`,
        );
      }
      if (!/(^|\/)migrations\/content$/.test(table.migrations_dir ?? "")) {
        problems.push(`content: ${table.binding} must run migrations/content (has ${table.migrations_dir})`);
      }
    }
  }
  for (const t of tables.filter((t) => /^DB_G\d{3}$/.test(t.binding ?? ""))) {
    if (!listed.includes(t.binding.slice(3).toLowerCase())) {
      problems.push(
        `content: ${t.binding} is bound but CONTENT_GROUPS does not list ${t.binding.slice(3).toLowerCase()}`,
      );
    }
  }
  const directory = tables.find((t) => t.binding === "DIRECTORY");
  if (!directory) problems.push("content: no DIRECTORY database (the site → group directory)");
  else if (!/(^|\/)migrations\/content-directory$/.test(directory.migrations_dir ?? "")) {
    problems.push(
      `content: DIRECTORY must run migrations/content-directory (has ${directory.migrations_dir})`,
    );
  }
  return problems;
}
