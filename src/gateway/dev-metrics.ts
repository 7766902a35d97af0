import { aggregate, type MetricPoint, recentPoints } from "../lib/metrics";
import { notFoundResponse } from "../lib/problem";

type Services = Pick<GatewayEnv, "IDENTITY" | "CONTENT" | "SITES">;
type DevEnv = Services & { DEV_OUTBOX?: string };

/** A service's development telemetry route (src/lib/app.ts, `DEV_TELEMETRY_PATH`). */
const SERVICE_TELEMETRY = "https://internal/__dev/telemetry";

async function servicePoints(binding: Fetcher): Promise<{ points: MetricPoint[]; reachable: boolean }> {
  try {
    const res = await binding.fetch(SERVICE_TELEMETRY);
    if (!res.ok) return { points: [], reachable: false };
    const body = (await res.json()) as { points?: MetricPoint[] };
    return { points: body.points ?? [], reachable: true };
  } catch {
    return { points: [], reachable: false };
  }
}

/**
 * Development only (`DEV_OUTBOX=true`, as `npm start` and the tests set it; 404 in a deploy):
 * `GET /__dev/metrics` shows what each Worker would have written to Workers Analytics Engine, from the
 * local stand-in of src/lib/metrics.ts: the gateway's own points and each service's, read over its
 * binding from its `/__dev/telemetry`, grouped by service, metric and labels (count, sum, max of the
 * values: milliseconds for `request`). `?raw=1` lists the points themselves. The stand-in is per isolate:
 * it starts empty after a restart.
 */
export async function devMetrics(env: GatewayEnv, url: URL): Promise<Response> {
  const dev = env as unknown as DevEnv;
  if (dev.DEV_OUTBOX !== "true") return notFoundResponse();
  const [identity, content, sites] = await Promise.all([
    servicePoints(dev.IDENTITY),
    servicePoints(dev.CONTENT),
    servicePoints(dev.SITES),
  ]);
  const points = [...recentPoints(), ...identity.points, ...content.points, ...sites.points];
  const services = {
    gateway: true,
    identity: identity.reachable,
    content: content.reachable,
    sites: sites.reachable,
  };
  const body =
    url.searchParams.get("raw") === "1" ? { services, points } : { services, metrics: aggregate(points) };
  return Response.json(body);
}
