/**
 * Request metrics of this isolate in the Prometheus text format: a counter and a latency histogram, both
 * by route, method and status. (Per isolate: a scrape sees the isolate that answers it; the
 * platform's own analytics aggregate across isolates.)
 */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const counts = new Map<string, number>();
const histograms = new Map<string, { buckets: number[]; sum: number; count: number }>();

function label(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

export function observeRequest(route: string, method: string, status: number, seconds: number) {
  const key = `route="${label(route)}",method="${method}",status="${status}"`;
  counts.set(key, (counts.get(key) ?? 0) + 1);
  const hkey = key;
  let h = histograms.get(hkey);
  if (!h) {
    h = { buckets: BUCKETS.map(() => 0), sum: 0, count: 0 };
    histograms.set(hkey, h);
  }
  for (let i = 0; i < BUCKETS.length; i++) if (seconds <= BUCKETS[i]!) h.buckets[i]!++;
  h.sum += seconds;
  h.count++;
}

/** A gauge read from storage at scrape time (the same on every isolate, unlike the request counters). */
export interface Gauge {
  name: string;
  help: string;
  samples: { labels: Record<string, string>; value: number }[];
}

function renderGauge(g: Gauge): string[] {
  const lines = [`# HELP ${g.name} ${g.help}`, `# TYPE ${g.name} gauge`];
  for (const s of g.samples) {
    const labels = Object.entries(s.labels).map(([k, v]) => `${k}="${label(v)}"`);
    lines.push(`${g.name}${labels.length ? `{${labels.join(",")}}` : ""} ${s.value}`);
  }
  return lines;
}

export function renderMetrics(gauges: Gauge[] = []): string {
  const lines: string[] = [
    "# HELP content_http_requests_total HTTP requests answered, by route, method and status.",
    "# TYPE content_http_requests_total counter",
  ];
  for (const [key, value] of counts) lines.push(`content_http_requests_total{${key}} ${value}`);
  lines.push(
    "# HELP content_http_request_duration_seconds Request latency, by route, method and status.",
    "# TYPE content_http_request_duration_seconds histogram",
  );
  for (const [key, h] of histograms) {
    BUCKETS.forEach((le, i) => {
      lines.push(`content_http_request_duration_seconds_bucket{${key},le="${le}"} ${h.buckets[i]}`);
    });
    lines.push(`content_http_request_duration_seconds_bucket{${key},le="+Inf"} ${h.count}`);
    lines.push(`content_http_request_duration_seconds_sum{${key}} ${h.sum}`);
    lines.push(`content_http_request_duration_seconds_count{${key}} ${h.count}`);
  }
  for (const g of gauges) lines.push(...renderGauge(g));
  return `${lines.join("\n")}\n`;
}
