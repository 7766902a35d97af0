// Bench only: the rate-limiting bindings as production answers them, counted in the isolate's memory,
// for the rows that show what the local emulation costs. Miniflare emulates every rate-limiting binding
// with a fetch to one Durable Object per namespace that writes its counter to SQLite on disk (so each
// pk_ read pays two such round trips, serialized through one object); Cloudflare answers the binding in
// the location, without storage. Here each binding becomes a Miniflare wrapped binding (an in-isolate
// module, like Miniflare's own rate-limit binding minus its Durable Object) with the same rule: fixed
// windows aligned to the clock, `limit` calls per key and window, then `{ success: false }`.
//
// Never used by `npm start`, the tests or a deploy: only `bench/run.mjs` passes `withLocalLimiters` to
// `startPlatform`, and Miniflare loads this file as an external plugin by its absolute path.
import { fileURLToPath } from "node:url";

export const PLUGIN_NAME = "bench-local-limiter";
const TYPE = `unsafe:${PLUGIN_NAME}`;
const MODULE = "bench-internal:local-limiter";

// The binding's module, run inside workerd (one copy per isolate that has such a binding): the counters
// live in module scope, so every request of the isolate shares them, and each window's counters are
// dropped when the next window starts (bounded by the keys of one window).
const SOURCE = `
const windows = new Map();
class LocalLimiter {
  constructor(env) {
    this.limitValue = env.limit;
    this.period = env.period;
  }
  async limit(options) {
    const key = String(options?.key ?? "");
    const limit = options?.limit ?? this.limitValue;
    const period = options?.period ?? this.period;
    const epoch = Math.floor(Date.now() / (period * 1000));
    let current = windows.get(period);
    if (!current || current.epoch !== epoch) {
      current = { epoch, counts: new Map() };
      windows.set(period, current);
    }
    const counted = current.counts.get(key) ?? 0;
    if (counted >= limit) return { success: false };
    current.counts.set(key, counted + 1);
    return { success: true };
  }
}
export default function (env) {
  return new LocalLimiter(env);
}
`;

function limiterBindings(config) {
  return Object.entries(config.env ?? {}).filter(([, binding]) => binding.type === TYPE);
}

/** The Miniflare plugin (loaded by Miniflare from this file's path: `plugins[PLUGIN_NAME]`). */
export const plugins = {
  [PLUGIN_NAME]: {
    getBindings(options) {
      return limiterBindings(options.config).map(([name, binding]) => ({
        name,
        wrapped: {
          moduleName: MODULE,
          innerBindings: [
            { name: "limit", json: JSON.stringify(binding.dev.options.limit) },
            { name: "period", json: JSON.stringify(binding.dev.options.period) },
          ],
        },
      }));
    },
    getNodeBindings() {
      return {};
    },
    getServices() {
      return [];
    },
    getExtensions({ options }) {
      if (!options.some((o) => limiterBindings(o.config).length > 0)) return [];
      return [{ modules: [{ name: MODULE, esModule: SOURCE, internal: true }] }];
    },
  },
};

/**
 * Worker options (Miniflare v4 shape) with every rate-limiting binding replaced by the in-isolate one of
 * the same `simple` settings; other options untouched.
 */
export function withLocalLimiters(options) {
  const { ratelimits, ...rest } = options;
  if (!ratelimits || Object.keys(ratelimits).length === 0) return options;
  const pkg = fileURLToPath(import.meta.url);
  const replaced = Object.entries(ratelimits).map(([name, binding]) => ({
    name,
    type: PLUGIN_NAME,
    plugin: { package: pkg, name: PLUGIN_NAME },
    options: { limit: binding.simple.limit, period: binding.simple.period },
  }));
  return { ...rest, unsafeBindings: [...(rest.unsafeBindings ?? []), ...replaced] };
}
