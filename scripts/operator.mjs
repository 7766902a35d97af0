// `npm run operator -- grant EMAIL operator_read|operator_admin` / `revoke EMAIL`: platform-operator
// capability, stored by identity (table platform_operators) and carried to X-Platform-Operator by the
// edge. Local by default; `--remote` runs the same SQL against the deployed identity database.
import { existsSync } from "node:fs";
import { runWrangler } from "./wrangler.mjs";

const [action, email, capability] = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const remote = process.argv.includes("--remote");
const usage = "usage: npm run operator -- grant EMAIL operator_read|operator_admin | revoke EMAIL [--remote]";

const quote = (s) => `'${s.replaceAll("'", "''")}'`;
const userOf = (address) =>
  `SELECT u.id FROM users u JOIN email_addresses e ON e.user_id = u.id WHERE e.address = ${quote(address.toLowerCase())} AND e.verified_at IS NOT NULL AND e.is_primary = 1`;

let sql;
if (action === "grant" && email && ["operator_read", "operator_admin"].includes(capability)) {
  sql = `INSERT INTO platform_operators (user_id, capability, granted_at) ${userOf(email).replace(
    "SELECT u.id",
    `SELECT u.id, ${quote(capability)}, ${quote(new Date().toISOString())}`,
  )} ON CONFLICT(user_id) DO UPDATE SET capability = excluded.capability, granted_at = excluded.granted_at`;
} else if (action === "revoke" && email) {
  sql = `DELETE FROM platform_operators WHERE user_id IN (${userOf(email)})`;
} else {
  console.error(usage);
  process.exit(2);
}

// The deployed database is named by the production config `npm run deploy` generated (the committed
// config holds the local placeholder id).
const remoteConfig = ".wrangler/production/identity.json";
if (remote && !existsSync(remoteConfig)) {
  console.error(
    `${remoteConfig} not found: run \`npm run deploy\` first (it writes the production configs).`,
  );
  process.exit(1);
}

const check = `SELECT COUNT(*) AS n FROM (${userOf(email)})`;
const args = (command) => [
  "d1",
  "execute",
  "identity",
  remote ? "--remote" : "--local",
  "-c",
  remote ? remoteConfig : "workers/identity/wrangler.toml",
  ...(remote ? [] : ["--persist-to", ".wrangler/state"]),
  "--json",
  "--command",
  command,
];
const found = JSON.parse(
  await runWrangler(args(check), { stdio: "pipe" }).then((o) => o.slice(o.indexOf("["))),
);
if (!found[0]?.results?.[0]?.n) {
  console.error(`No verified account with primary e-mail ${email}.`);
  process.exit(1);
}
await runWrangler(args(sql), { stdio: "pipe" });
console.log(
  action === "grant" ? `Granted ${capability} to ${email}.` : `Revoked operator capability of ${email}.`,
);
console.log("The edge picks it up within 30 seconds (its membership cache).");
