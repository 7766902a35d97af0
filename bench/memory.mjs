// Memory of the workerd process that runs the Workers (Miniflare's child of this process), from Linux's
// /proc: VmRSS (resident now) and VmHWM (peak resident since start, or since the peak was reset by writing
// 5 to /proc/<pid>/clear_refs). Elsewhere every figure is null and the bench says so.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";

function readStat(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // comm is in parentheses and may hold spaces: fields after the last ")" are fixed.
    const close = stat.lastIndexOf(")");
    const comm = stat.slice(stat.indexOf("(") + 1, close);
    const ppid = Number(stat.slice(close + 2).split(" ")[1]);
    return { pid: Number(pid), comm, ppid };
  } catch {
    return null;
  }
}

/** The pid of the workerd process below `parent` (default: this process), or null. */
export function workerdPid(parent = process.pid) {
  // Miniflare may start workerd directly or through a shell: any descendant.
  const workerd = descendants(parent).find((s) => s.comm.startsWith("workerd"));
  return workerd?.pid ?? null;
}

/** { rss_mb, hwm_mb } of `pid`, or nulls. */
export function memoryOf(pid) {
  if (!pid) return { rss_mb: null, hwm_mb: null };
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
    return { rss_mb: kb("VmRSS") / 1024, hwm_mb: kb("VmHWM") / 1024 };
  } catch {
    return { rss_mb: null, hwm_mb: null };
  }
}

/** Resets VmHWM to the current RSS (Linux >= 4.0); false when not permitted. */
export function resetPeak(pid) {
  if (!pid) return false;
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

/**
 * Watches `pid` while `fn` runs: the peak resident memory during it (VmHWM after a reset, or the highest
 * VmRSS sampled every 20 ms when the reset is refused) and the resident memory before it.
 */
export async function watchMemory(pid, fn) {
  const before = memoryOf(pid).rss_mb;
  const reset = resetPeak(pid);
  let sampled = before ?? 0;
  const timer = setInterval(() => {
    const { rss_mb } = memoryOf(pid);
    if (rss_mb !== null && rss_mb > sampled) sampled = rss_mb;
  }, 20);
  try {
    const result = await fn();
    const after = memoryOf(pid);
    const peak = reset && after.hwm_mb !== null ? Math.max(after.hwm_mb, sampled) : sampled;
    return {
      result,
      memory: {
        pid,
        before_mb: before,
        peak_mb: pid ? peak : null,
        method: reset ? "VmHWM" : "VmRSS sampled",
      },
    };
  } finally {
    clearInterval(timer);
  }
}

/** Every process below `parent` (its descendants, not itself), with their command names. */
export function descendants(parent) {
  let entries;
  try {
    entries = readdirSync("/proc").filter((e) => /^\d+$/.test(e));
  } catch {
    return [];
  }
  const stats = entries.map(readStat).filter(Boolean);
  const below = new Set([parent]);
  for (let changed = true; changed; ) {
    changed = false;
    for (const s of stats) {
      if (below.has(s.ppid) && !below.has(s.pid)) {
        below.add(s.pid);
        changed = true;
      }
    }
  }
  return stats.filter((s) => below.has(s.pid) && s.pid !== parent);
}

/** Resident memory of `pid` and every process below it: the total and each process's share. */
export function treeMemory(pid) {
  const processes = [{ pid, comm: "node" }, ...descendants(pid)].map((p) => ({
    pid: p.pid,
    comm: p.comm,
    rss_mb: memoryOf(p.pid).rss_mb,
  }));
  const total = processes.reduce((sum, p) => sum + (p.rss_mb ?? 0), 0);
  return { total_mb: total, processes };
}
