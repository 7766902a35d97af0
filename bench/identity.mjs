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
  const outbox = await (
    await fetch(`${base}/api/v1/auth/__dev/outbox?to=${encodeURIComponent(email)}`)
  ).json();
  const code = outbox.messages.find((m) => m.purpose === "email_verify").code;
  await post(base, "/api/v1/auth/email/verify/confirm", { email, code }, `10.9.${i}.1`);
  return { email, password };
}

export async function benchIdentity(base, { accounts = 12, samples = 60 } = {}) {
  const users = [];
  for (let i = 0; i < accounts; i++) users.push(await verifiedAccount(base, i));

  // Right password: the full KDF plus challenge creation (428 or 200 depending on factors).
  const right = [];
  for (let i = 0; i < samples; i++) {
    const u = users[i % users.length];
    const { ms } = await timed(() => post(base, "/api/v1/auth/login/start", u, `10.1.${i % 250}.${i % 7}`));
    right.push(ms);
  }

  // Refusing paths, interleaved so drift hits both equally; one wrong try per account per round keeps
  // every account far from its lockout threshold.
  const unknown = [];
  const wrong = [];
  for (let i = 0; i < samples; i++) {
    const u = users[i % users.length];
    const ip = `10.2.${i % 250}.${i % 11}`;
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
    unknown.push(a.ms);
    wrong.push(b.ms);
    if ((i + 1) % users.length === 0) await new Promise((r) => setTimeout(r, 50));
  }
  const u = summarize(unknown);
  const w = summarize(wrong);
  return {
    login_start_right_password: summarize(right),
    refusal_unknown_email: u,
    refusal_wrong_password: w,
    timing_ratio_unknown_over_wrong_p50: round(u.p50_ms / w.p50_ms, 3),
  };
}
