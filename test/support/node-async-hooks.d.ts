/**
 * The one `node:async_hooks` class the test helpers use (native in workerd with nodejs_compat, and in
 * Node). Declared here because the tests' tsconfig does not load @types/node for worker code.
 */
declare module "node:async_hooks" {
  export class AsyncLocalStorage<T> {
    run<R>(store: T, fn: () => R): R;
    getStore(): T | undefined;
  }
}
