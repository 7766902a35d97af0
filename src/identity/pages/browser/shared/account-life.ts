/**
 * The account page's sections for the account's whole life (issue 24 §4; the HTML is in
 * pages/account-life.ts): "Your data" (POST /account/export with the step-up, saved as a file) and
 * "Delete your account" (DELETE /account with the step-up; a last owner sees what to hand over first).
 */
import { $, A, act, call, el, fail, ok, stepUpHeader, when, withStepUp } from "./account-kit";
import type { ApiResult } from "./globals";

interface Blockers {
  orgs?: { name: string }[];
  sites?: { name?: string | null; id: string }[];
}

function showBlockers(r: ApiResult): void {
  const list = $("delete-blockers");
  const details = (r.body?.details || {}) as Blockers;
  list.replaceChildren();
  for (const o of details.orgs || []) list.append(el("li", { text: `Organization: ${o.name}` }));
  for (const s of details.sites || []) list.append(el("li", { text: `Site: ${s.name || s.id}` }));
  list.hidden = list.children.length === 0;
}

/** Wires the two sections' buttons. */
export function wireLifeSections(): void {
  /* ---------- your data ---------- */

  $("data-export").addEventListener("click", (event) => {
    const button = event.currentTarget as HTMLButtonElement;
    act(button, async () => {
      const r = await withStepUp("data", button, "download your data", (code) =>
        call("POST", "/account/export", undefined, stepUpHeader(code)),
      );
      if (!r) return;
      if (r.status !== 200) return fail(r);
      const blob = new Blob([JSON.stringify(r.body, null, 2)], { type: "application/json" });
      const link = el("a", {
        href: URL.createObjectURL(blob),
        download: "account-export.json",
        text: "account-export.json",
      });
      link.hidden = true;
      document.body.append(link);
      link.click();
      setTimeout(() => {
        URL.revokeObjectURL(link.href);
        link.remove();
      }, 1000);
      ok("Your data was downloaded as account-export.json.");
    });
  });

  /* ---------- delete the account ---------- */

  $("delete-submit").addEventListener("click", (event) => {
    const button = event.currentTarget as HTMLButtonElement;
    if (!$<HTMLInputElement>("delete-confirm").checked) {
      A.announce("Tick the box to confirm that you understand, then delete.", "error");
      $("delete-confirm").focus();
      return;
    }
    act(button, async () => {
      const r = await withStepUp("delete-account", button, "delete your account", (code) =>
        call<{ erase_after: string }>("DELETE", "/account", undefined, stepUpHeader(code)),
      );
      if (!r) return;
      if (r.status === 409) {
        showBlockers(r);
        A.announce(
          "You are the last owner of what is listed below: name another owner there first. Nothing was deleted.",
          "error",
        );
        return;
      }
      if (r.status !== 202) return fail(r);
      A.clearSession();
      ok(
        `Your account will be erased after ${when(r.body!.erase_after)}. Every session was signed out. To keep it, use \u201CKeep my account\u201D on the sign-in page before then.`,
      );
      $("account").hidden = true;
    });
  });
}
