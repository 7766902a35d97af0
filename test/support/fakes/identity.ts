/** Fakes of the outside world that the identity service calls (registered on reserved .test hosts). */
import { fakeHost } from "../fake-internet.ts";

export function registerIdentityFakes() {
  fakeHost("example.invalid", () => new Response("unused", { status: 404 }));
}
