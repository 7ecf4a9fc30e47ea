// Every request the service sends to the Internet itself (a marketplace, a webhook receiver) goes
// through outboundFetch: the global fetch, read at each call (so whatever a test installs there
// answers), announced first on a diagnostics channel. Nothing subscribes in production; the tests'
// invocation meter does (test/helpers/invocation-meter.ts), to count each invocation's
// subrequests as Cloudflare does, which local workerd does not.
import { channel } from "node:diagnostics_channel";

/** The channel each outbound request is published on before it is sent: `{ url }`. */
export const OUTBOUND_CHANNEL = "order-feed-hub.outbound-fetch";

const outbound = channel(OUTBOUND_CHANNEL);

export function outboundFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  if (outbound.hasSubscribers) outbound.publish({ url: input instanceof Request ? input.url : String(input) });
  return fetch(input, init);
}
