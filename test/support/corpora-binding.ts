import { env } from "cloudflare:workers";
import type { Corpora, SpecTexts } from "./corpora-types.ts";

let cached: Corpora | undefined;

/** The corpora the vitest config loaded from ../shared/corpora and simple-icons. */
export function testCorpora(): Corpora {
  cached ??= JSON.parse((env as unknown as { TEST_CORPORA: string }).TEST_CORPORA) as Corpora;
  return cached;
}

let cachedSpecs: SpecTexts | undefined;

/** The spec texts, ARCHITECTURE.md and docs/not-built.md the vitest config read. */
export function testSpecs(): SpecTexts {
  cachedSpecs ??= JSON.parse(env.TEST_SPECS) as SpecTexts;
  return cachedSpecs;
}
