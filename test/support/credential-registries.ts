/**
 * The credential registries of the three services (issue 31; `src/lib/credentials.ts`), found by name:
 * `src/<service>/credentials.ts`, each exporting `CREDENTIALS`. Found by Vite's `import.meta.glob` rather
 * than imported one by one, so a service's registry joins the matrix, the structure test and the generated
 * doc the moment its file exists, with no list to keep. Pure data: Node and workerd tests import it alike.
 */
import type { CredentialKind, CredentialService } from "../../src/lib/credentials";

declare global {
  interface ImportMeta {
    /** Vite's glob import (eager), as the test runner transforms it. */
    glob<T>(pattern: string, options: { eager: true; import: string }): Record<string, T>;
  }
}

export const CREDENTIAL_SERVICES = [
  "identity",
  "content",
  "sites",
] as const satisfies readonly CredentialService[];

const found = import.meta.glob<readonly CredentialKind[]>(
  "../../src/{identity,content,sites}/credentials.ts",
  {
    eager: true,
    import: "CREDENTIALS",
  },
);

/** Each service's registry, by service, for the services whose `credentials.ts` exists. */
export const registries: Partial<Record<CredentialService, readonly CredentialKind[]>> = Object.fromEntries(
  Object.entries(found).map(([file, kinds]) => [/src\/(\w+)\/credentials\.ts$/.exec(file)![1], kinds]),
);

/** The registries in the services' order (the order of the generated doc). */
export const registryList: readonly (readonly CredentialKind[])[] = CREDENTIAL_SERVICES.flatMap((s) =>
  registries[s] ? [registries[s]] : [],
);
