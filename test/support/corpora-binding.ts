import { env } from "cloudflare:workers";
import type { Corpora } from "./corpora-types.ts";

let cached: Corpora | undefined;

/** The corpora the vitest config loaded from ../shared/corpora and simple-icons. */
export function testCorpora(): Corpora {
  cached ??= JSON.parse((env as unknown as { TEST_CORPORA: string }).TEST_CORPORA) as Corpora;
  return cached;
}
