/**
 * Storage hops of a content request, counted honestly: the content Worker's entrypoint run over its real
 * bindings, each wrapped to count the round trips it makes: every site group's database (`DB_G…`) and the
 * directory (`DIRECTORY`, docs/decisions/site-groups.md), whichever the request's routing reaches. A D1 `first`/`all`/`run`/`raw` is one hop, a
 * D1 `batch` is one hop (one round trip, however many statements), every call on a Durable Object stub is
 * one, every KV and R2 call is one. Not storage, counted apart: the rate-limiting bindings (counters local
 * to the machine), service bindings and queue sends. The Cache API (per data center) is not wrapped: a read
 * answered from it shows as zero storage hops.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { WorkerEnv } from "../../src/content/core/bindings";
import ContentService from "../../src/content/index";

export interface Hops {
  /** D1 round trips on any of content's databases (the groups and the directory). */
  d1: number;
  /** D1 round trips per binding (`DB_G000`, `DIRECTORY`, …): which databases the routing reached. */
  d1By: Record<string, number>;
  durableObject: number;
  kv: number;
  r2: number;
  /** SQL statements D1 ran (a batch counts each of its statements; `d1` counts the round trips). */
  d1Statements: number;
  /** Rate-limiting binding calls (not storage). */
  limiter: number;
  /** The constraint or bookmark of each D1 session opened (`withSession`). */
  sessions: string[];
  /** D1, Durable Object, KV and R2 round trips. */
  storage(): number;
}

function newHops(): Hops {
  return {
    d1: 0,
    d1By: {},
    durableObject: 0,
    kv: 0,
    r2: 0,
    d1Statements: 0,
    limiter: 0,
    sessions: [],
    storage() {
      return this.d1 + this.durableObject + this.kv + this.r2;
    },
  };
}

/** Wraps every method of `target` named in `counted` so each call adds one to `count()`. */
function counting<T extends object>(target: T, counted: readonly string[], count: () => void): T {
  return new Proxy(target, {
    get(t, prop) {
      const value = Reflect.get(t, prop, t) as unknown;
      if (typeof value !== "function") return value;
      if (typeof prop === "string" && counted.includes(prop)) {
        return (...args: unknown[]) => {
          count();
          return (value as (...a: unknown[]) => unknown).apply(t, args);
        };
      }
      return (value as (...a: unknown[]) => unknown).bind(t);
    },
  });
}

function countingD1(db: D1Database, hops: Hops, binding: string): D1Database {
  const hop = () => {
    hops.d1++;
    hops.d1By[binding] = (hops.d1By[binding] ?? 0) + 1;
  };
  const real = new WeakMap<object, D1PreparedStatement>();
  const wrapStatement = (statement: D1PreparedStatement): D1PreparedStatement => {
    const wrapped = new Proxy(statement, {
      get(t, prop) {
        const value = Reflect.get(t, prop, t) as unknown;
        if (prop === "bind") return (...args: unknown[]) => wrapStatement(t.bind(...args));
        if (typeof value !== "function") return value;
        if (prop === "first" || prop === "all" || prop === "run" || prop === "raw") {
          return (...args: unknown[]) => {
            hop();
            hops.d1Statements++;
            return (value as (...a: unknown[]) => unknown).apply(t, args);
          };
        }
        return (value as (...a: unknown[]) => unknown).bind(t);
      },
    });
    real.set(wrapped, statement);
    return wrapped;
  };
  return new Proxy(db, {
    get(t, prop) {
      if (prop === "prepare") return (sql: string) => wrapStatement(t.prepare(sql));
      if (prop === "batch") {
        return (statements: D1PreparedStatement[]) => {
          hop();
          hops.d1Statements += statements.length;
          return t.batch(statements.map((s) => real.get(s) ?? s));
        };
      }
      // A session (D1 read replication) is the same database: its queries count alike, its constraint or
      // bookmark is recorded.
      if (prop === "withSession") {
        return (constraint?: string) => {
          hops.sessions.push(constraint ?? "first-unconstrained");
          return countingD1(t.withSession(constraint) as unknown as D1Database, hops, binding);
        };
      }
      if (prop === "exec" || prop === "dump") {
        return (...args: unknown[]) => {
          hop();
          return (t[prop] as (...a: unknown[]) => unknown).apply(t, args);
        };
      }
      const value = Reflect.get(t, prop, t) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(t) : value;
    },
  });
}

function countingDurableObjects<T extends object>(ns: T, hops: Hops): T {
  return new Proxy(ns, {
    get(t, prop) {
      const value = Reflect.get(t, prop, t) as unknown;
      if (typeof value !== "function") return value;
      if (prop === "get" || prop === "getByName") {
        return (...args: unknown[]) => {
          const stub = (value as (...a: unknown[]) => object).apply(t, args);
          // Any method called on the stub is a call to the object.
          return new Proxy(stub, {
            get(s, method) {
              const member = Reflect.get(s, method, s) as unknown;
              if (typeof method !== "string" || method === "then" || method === "id" || method === "name") {
                return member;
              }
              return (...callArgs: unknown[]) => {
                hops.durableObject++;
                // Reflect.apply: an RPC stub's method would take `.apply` for a remote method name.
                return Reflect.apply(member as (...a: unknown[]) => unknown, s, callArgs);
              };
            },
          });
        };
      }
      return (value as (...a: unknown[]) => unknown).bind(t);
    },
  });
}

/** The content worker's bindings of D1: every group (`DB_G000`, …) and the directory. */
const CONTENT_D1 = /^(DB_G\d{3}|DIRECTORY)$/;

/** The content env with its storage bindings counting, and the counters. */
export function countingContentEnv(): { env: WorkerEnv; hops: Hops } {
  const base = env as unknown as WorkerEnv;
  const hops = newHops();
  const countLimiter = () => {
    hops.limiter++;
  };
  const databases = Object.fromEntries(
    Object.entries(base as unknown as Record<string, unknown>)
      .filter(([name]) => CONTENT_D1.test(name))
      .map(([name, db]) => [name, countingD1(db as D1Database, hops, name)]),
  );
  if (!databases.DIRECTORY || Object.keys(databases).length < 3) {
    throw new Error("countingContentEnv: the content env lacks its directory or its group databases");
  }
  const wrapped: WorkerEnv = {
    ...base,
    ...databases,
    KEY_GATE: countingDurableObjects(base.KEY_GATE, hops),
    CACHE: counting(base.CACHE, ["get", "getWithMetadata", "put", "delete", "list"], () => {
      hops.kv++;
    }),
    MEDIA: counting(base.MEDIA, ["get", "head", "put", "delete", "list", "createMultipartUpload"], () => {
      hops.r2++;
    }),
    READ_LIMITER: counting(base.READ_LIMITER, ["limit"], countLimiter),
    PUBLIC_READ_LIMITER: counting(base.PUBLIC_READ_LIMITER, ["limit"], countLimiter),
    COLLECT_LIMITER: counting(base.COLLECT_LIMITER, ["limit"], countLimiter),
  };
  return { env: wrapped, hops };
}

/** One request through the content Worker's entrypoint over `workerEnv`, its background work awaited. */
export async function fetchThrough(workerEnv: WorkerEnv, request: Request): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await new ContentService(ctx, workerEnv).fetch(request);
  await waitOnExecutionContext(ctx);
  return res;
}

/**
 * One request through the content Worker's entrypoint: the hops spent when it answered (a copy) and, once
 * its background work (`waitUntil`) is done, `hops` itself has the rest.
 */
export async function fetchAnswered(
  workerEnv: WorkerEnv,
  hops: Hops,
  request: Request,
): Promise<{ res: Response; answered: Pick<Hops, "d1" | "durableObject" | "kv" | "r2"> }> {
  const ctx = createExecutionContext();
  const res = await new ContentService(ctx, workerEnv).fetch(request);
  const answered = { d1: hops.d1, durableObject: hops.durableObject, kv: hops.kv, r2: hops.r2 };
  await waitOnExecutionContext(ctx);
  return { res, answered };
}
