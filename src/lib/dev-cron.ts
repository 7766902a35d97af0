/**
 * Development only: `POST /__dev/cron?cron=<schedule>[&time=<ms>]` on a service's own address runs its
 * `scheduled` handler once, as Cloudflare's cron trigger would, and answers how it went. The local
 * scheduler (scripts/scheduler.mjs, run by `npm start`) and `npm run cron` fire the Workers' crons
 * through it. Where `DEV_OUTBOX` is not "true" (every deploy: scripts/deploy-config.mjs refuses `DEV_*`
 * vars) the path is left to the service's app, which answers 404 as for any unknown path; the gateway
 * has no route for it (src/gateway/routes.ts), so it is never reachable from the public origin.
 */
import { CommonErrors, errorsOf, problemResponse } from "./problem";

export const DEV_CRON_PATH = "/__dev/cron";

const { problem } = errorsOf(CommonErrors);

/** Five fields of digits, `*`, `/`, `,` and `-` (what the configs' crons use; the handler decides by string). */
const CRON = /^[0-9*/,-]+( [0-9*/,-]+){4}$/;

/** The run's answer: what the scheduler logs. */
export interface DevCronRun {
  cron: string;
  scheduled_time: string;
  outcome: "ok";
  duration_ms: number;
}

/**
 * The dev trigger when `request` is for it and development routes are on; null otherwise (the caller's
 * app then answers the request as usual).
 */
export function devCron(
  request: Request,
  env: { DEV_OUTBOX?: string },
  scheduled: (controller: ScheduledController) => Promise<void>,
): Promise<Response> | null {
  if (env.DEV_OUTBOX !== "true" || request.method !== "POST") return null;
  const url = new URL(request.url);
  if (url.pathname !== DEV_CRON_PATH) return null;
  return runDevCron(url.searchParams, scheduled);
}

async function runDevCron(
  params: URLSearchParams,
  scheduled: (controller: ScheduledController) => Promise<void>,
): Promise<Response> {
  const cron = params.get("cron") ?? "";
  if (!CRON.test(cron)) {
    return problemResponse(problem("BAD_REQUEST", "cron must be a schedule of five fields, e.g. * * * * *"));
  }
  const time = params.get("time");
  const scheduledTime = time === null ? Date.now() : Number(time);
  if (!Number.isSafeInteger(scheduledTime) || scheduledTime < 0) {
    return problemResponse(problem("BAD_REQUEST", "time must be milliseconds since the epoch"));
  }
  const started = Date.now();
  try {
    await scheduled({ cron, scheduledTime, noRetry() {} });
  } catch (err) {
    // The handler logged its own failure line; the caller gets the message (development only).
    const detail = `the scheduled handler failed after ${Date.now() - started} ms: ${err instanceof Error ? err.message : String(err)}`;
    return problemResponse(problem("INTERNAL_ERROR", detail));
  }
  const run: DevCronRun = {
    cron,
    scheduled_time: new Date(scheduledTime).toISOString(),
    outcome: "ok",
    duration_ms: Date.now() - started,
  };
  return Response.json(run);
}
