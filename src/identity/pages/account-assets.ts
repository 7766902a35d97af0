/**
 * The account page's stylesheet (served as `/auth/assets/account.css`). Its script, `account.js`, is
 * TypeScript under `browser/` (browser/account.ts; bundled by `npm run pages`).
 */

export const ACCOUNT_CSS = `
main { max-width: 52rem; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
section { border-top: 1px solid var(--line); margin-top: 2rem; }
h2:focus, h4:focus { outline: none; }
h3 { font-size: 1.05rem; margin: 1.5rem 0 .5rem; }
h4 { font-size: 1rem; margin: 1rem 0 .5rem; }
.whoami { display: flex; gap: 1rem; align-items: center; justify-content: space-between; flex-wrap: wrap; }
.whoami p { margin: 0; overflow-wrap: anywhere; }
td, th { overflow-wrap: anywhere; }
td.actions-cell { white-space: nowrap; }
td.actions-cell button { margin: 0 .25rem .25rem 0; padding: .3rem .7rem; }
.badge { display: inline-block; padding: 0 .45rem; border-radius: .3rem; border: 1px solid var(--line); font-size: .85rem; margin-right: .25rem; }
.badge.ok { color: var(--ok); border-color: var(--ok); }
.badge.pending { color: var(--muted); }
form { margin-top: 1rem; }
.notice { margin: 1rem 0; padding: 1rem; border: 1px solid var(--accent); border-radius: .4rem; }
.warning { color: var(--err); }
dl.secret dd { margin: 0 0 .75rem; }
dl.secret code { font-size: 1rem; overflow-wrap: anywhere; word-break: break-all; }
dl.secret dt { font-weight: 600; }
.codes { list-style: none; padding: 0; font-size: 1.05rem; }
.device { color: var(--muted); font-size: .8rem; font-weight: 400; display: block; }
#session-table td { white-space: nowrap; }
section > .actions { margin-top: 1rem; }
#stepup .hint { margin-bottom: .75rem; }
button.danger { background: var(--err); border-color: var(--err); color: #fff; }
#delete-account-title { color: var(--err); }
`;
