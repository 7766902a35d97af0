// Identity bench: latency of the password step of login, and the timing of its two refusing paths
// (unknown e-mail vs wrong password), which must be indistinguishable.
import { round, summarize, timed } from "./lib.mjs";

async function post(base, path, body, ip) {
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "cf-connecting-ip": ip },
    body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  return res.status;
}

async function verifiedAccount(base, i) {
  const email = `bench-${Date.now().toString(36)}-${i}@bench.example`;
  const password = `bench password ${i} long enough`;
  await post(base, "/api/v1/auth/signup", { email, password }, `10.9.${i}.1`);
  // Identity mails after it answers (the signup's address-dependent work runs in the background).
  let code = null;
  for (let attempt = 0; attempt < 50 && !code; attempt++) {
    const outbox = await (
      await fetch(`${base}/api/v1/auth/__dev/outbox?to=${encodeURIComponent(email)}`)
    ).json();
    code = outbox.messages.find((m) => m.purpose === "email_verify")?.code ?? null;
    if (!code) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (!code) throw new Error(`no email_verify code for ${email}`);
  await post(base, "/api/v1/auth/email/verify/confirm", { email, code }, `10.9.${i}.1`);
  return { email, password };
}

export async function benchIdentity(base, { accounts = 20, triesPerAddress = 3 } = {}) {
  // Two sets of accounts: the lockout counts every password attempt until a whole login succeeds, so the
  // right-password measurement must not push the refusal accounts toward their lock.
  const users = [];
  const loginUsers = [];
  for (let i = 0; i < accounts; i++) users.push(await verifiedAccount(base, i));
  for (let i = accounts; i < 2 * accounts; i++) loginUsers.push(await verifiedAccount(base, i));

  // Right password: the full KDF plus challenge creation (428 or 200 depending on factors).
  const right = [];
  for (let round = 0; round < triesPerAddress; round++) {
    for (const [i, u] of loginUsers.entries()) {
      const { ms } = await timed(() => post(base, "/api/v1/auth/login/start", u, `10.1.${round}.${i}`));
      right.push(ms);
    }
  }

  // Refusing paths, interleaved so drift hits both equally. The lockout counts per address, known or not,
  // so each known and each unknown address gets the same few tries, below the threshold (5), and only
  // 401 answers count as samples.
  const unknown = [];
  const wrong = [];
  const statuses = {};
  for (let round = 0; round < triesPerAddress; round++) {
    for (const [i, u] of users.entries()) {
      const ip = `10.2.${round}.${i}`;
      const a = await timed(() =>
        post(
          base,
          "/api/v1/auth/login/start",
          { email: `nobody-${i}@bench.example`, password: u.password },
          ip,
        ),
      );
      const b = await timed(() =>
        post(base, "/api/v1/auth/login/start", { email: u.email, password: `${u.password}x` }, ip),
      );
      statuses[`unknown_${a.result}`] = (statuses[`unknown_${a.result}`] ?? 0) + 1;
      statuses[`wrong_${b.result}`] = (statuses[`wrong_${b.result}`] ?? 0) + 1;
      if (a.result === 401) unknown.push(a.ms);
      if (b.result === 401) wrong.push(b.ms);
    }
  }
  const u = summarize(unknown);
  const w = summarize(wrong);
  return {
    login_start_right_password: summarize(right),
    refusal_unknown_email: u,
    refusal_wrong_password: w,
    refusal_statuses: statuses,
    timing_ratio_unknown_over_wrong_p50: round(u.p50_ms / w.p50_ms, 3),
    timing_ratio_unknown_over_wrong_mean: round(u.mean_ms / w.mean_ms, 3),
  };
}
