/** Fakes of the outside world that the sites service calls (registered on reserved .test hosts). */
import { fakeHost } from "../fake-internet.ts";

export function registerSitesFakes() {
  fakeHost("example.invalid", () => new Response("unused", { status: 404 }));
}
