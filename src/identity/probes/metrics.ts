/**
 * Process-local counters served on GET /metrics in the Prometheus text format. Each isolate counts its
 * own share; the scraper (or Workers Analytics) sums across isolates. Never used for decisions.
 */
const counters = new Map<string, { help: string; values: Map<string, number> }>();

export function countMetric(name: string, help: string, labels: Record<string, string>) {
  let metric = counters.get(name);
  if (!metric) {
    metric = { help, values: new Map() };
    counters.set(name, metric);
  }
  const key = Object.entries(labels)
    .map(([k, v]) => `${k}="${v.replace(/["\\\n]/g, "_")}"`)
    .join(",");
  metric.values.set(key, (metric.values.get(key) ?? 0) + 1);
}

export function metricValue(name: string, labels: Record<string, string>): number {
  const key = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(",");
  return counters.get(name)?.values.get(key) ?? 0;
}

export function renderMetrics(): string {
  const lines: string[] = [];
  for (const [name, metric] of counters) {
    lines.push(`# HELP ${name} ${metric.help}`, `# TYPE ${name} counter`);
    for (const [labels, value] of metric.values) lines.push(`${name}{${labels}} ${value}`);
  }
  return `${lines.join("\n")}\n`;
}
