/**
 * Workers Logs and the metrics dataset are on in every Worker's configuration (issue 36): the committed
 * wrangler configs (development) and the production configs `npm run deploy` writes from them.
 */
import { describe, expect, it } from "vitest";
import {
  DEPLOY_ORDER,
  EXAMPLE_SETTINGS,
  placeholderIds,
  productionConfig,
  readConfig,
  readSettings,
} from "../../scripts/deploy-config.mjs";

/** Where the configs would be written: productionConfig only makes paths relative to it, nothing is written. */
const outDir = ".deploy";

const observability = { enabled: true, head_sampling_rate: 1 };
const metrics = [{ binding: "METRICS", dataset: "site_platform_metrics" }];

describe("observability in every Worker", () => {
  it("development configs: [observability] enabled and the METRICS Analytics Engine dataset", () => {
    for (const name of DEPLOY_ORDER) {
      const { raw } = readConfig(name);
      expect(raw.observability, name).toEqual(observability);
      expect(raw.analytics_engine_datasets, name).toEqual(metrics);
    }
  });

  it("production configs keep both", () => {
    const settings = readSettings(EXAMPLE_SETTINGS);
    for (const name of DEPLOY_ORDER) {
      const config = productionConfig(name, { settings, ids: placeholderIds(), outDir });
      expect(config.observability, name).toEqual(observability);
      expect(config.analytics_engine_datasets, name).toEqual(metrics);
    }
  });
});
