/** Fakes of the outside world that the content service calls (registered on reserved .test hosts). */
import { fakeHost } from "../fake-internet.ts";

export function registerContentFakes() {
  fakeHost("example.invalid", () => new Response("unused", { status: 404 }));
}
