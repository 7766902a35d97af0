/**
 * One request followed across the services (issue 36): the gateway continues the client's `traceparent`
 * (or starts one), passes it to content over the service binding, content to identity over RPC
 * (`siteGrant`), and every log line of every service carries the same `trace_id`; the answer carries the
 * gateway's `traceparent`. The services' lines are read from their development log capture
 * (`/__dev/telemetry`, DEV_OUTBOX=true as in tests and `npm start`), the gateway's from its console.
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { parseTraceparent } from "../../src/lib/trace";
import { call, createOrg, createSite, verifiedUser } from "../support/platform";

type Line = Record<string, unknown>;

const services = env as unknown as { IDENTITY: Fetcher; CONTENT: Fetcher; SITES: Fetcher };

async function serviceLines(binding: Fetcher, traceId: string): Promise<Line[]> {
  const res = await binding.fetch(`https://internal/__dev/telemetry?trace_id=${traceId}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { logs: Line[] }).logs;
}

function gatewayConsole() {
  const spy = vi.spyOn(console, "info").mockImplementation(() => {});
  return () => spy.mock.calls.map((args) => JSON.parse(String(args[0])) as Line);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("traces", () => {
  it("a dashboard post write leaves lines with one trace_id in the gateway, content and identity", async () => {
    const owner = await verifiedUser();
    const org = await createOrg(owner.access_token);
    const site = await createSite(owner.access_token, org.id);
    // A dashboard write's byline is the writer's display name.
    const named = await call("PATCH", "/api/v1/auth/me", {
      token: owner.access_token,
      body: { display_name: "Tracer" },
    });
    expect(named.status).toBe(200);

    const client = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    const gateway = gatewayConsole();
    const res = await call<{ id: string }>("POST", `/api/v1/sites/${site.id}/posts`, {
      token: owner.access_token,
      headers: { traceparent: client },
      body: { title: "Traced", status: "draft" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);

    // The answer: the client's trace continued under the gateway's own span.
    const answered = parseTraceparent(res.headers.get("traceparent"));
    expect(answered).toMatchObject({ traceId: "4bf92f3577b34da6a3ce929d0e0e4736", flags: "01" });
    expect(answered!.spanId).not.toBe("00f067aa0ba902b7");
    const traceId = answered!.traceId;

    const own = gateway().filter((line) => line.trace_id === traceId);
    expect(own).toContainEqual(
      expect.objectContaining({
        service: "gateway",
        event: "request_done",
        route: "forward:content",
        status: 201,
        request_id: res.headers.get("x-request-id"),
      }),
    );

    const content = await serviceLines(services.CONTENT, traceId);
    expect(content).toContainEqual(
      expect.objectContaining({
        service: "content",
        event: "request_done",
        method: "POST",
        route: "/api/v1/sites/{site_id}/posts",
        status: 201,
        request_id: res.headers.get("x-request-id"),
      }),
    );
    // Content read the writer's grant from identity over RPC (issue 34) in the same trace.
    const identity = await serviceLines(services.IDENTITY, traceId);
    expect(identity).toContainEqual(
      expect.objectContaining({ service: "identity", event: "rpc_done", method: "siteGrant" }),
    );
    for (const line of [...own, ...content, ...identity]) expect(line.trace_id).toBe(traceId);
  });

  it("an invalid traceparent is replaced by a new trace, never passed on", async () => {
    const res = await call("GET", "/api/v1/sites", { headers: { traceparent: "00-zz-bad-01" } });
    expect(res.status).toBe(401);
    const answered = parseTraceparent(res.headers.get("traceparent"));
    expect(answered).not.toBeNull();
    expect(answered!.traceId).toMatch(/^[0-9a-f]{32}$/);
  });

  it("without a traceparent the gateway starts a trace and the services' answers continue it", async () => {
    const res = await call("GET", "/v1/posts");
    const answered = parseTraceparent(res.headers.get("traceparent"));
    expect(answered).not.toBeNull();
    const content = await serviceLines(services.CONTENT, answered!.traceId);
    expect(content).toContainEqual(expect.objectContaining({ service: "content", status: 401 }));
  });
});
