// A webhook receiver for tests in workerd. The hub's senders run in the test's isolate, so their
// outbound fetch to the receiver's base URL is intercepted here (every other URL goes out as
// before). The receiver records each request as it arrived (headers, exact body) and answers as
// the test says: 200 by default, or a status, a Retry-After, a redirect, a hang.
// What it received is verified by the official `standardwebhooks` library, never by the hub's code.
import { Webhook } from "standardwebhooks";
import { vi } from "vitest";

export const RECEIVER_BASE = "https://127.0.0.1:4010/hooks/";

export interface ReceivedWebhook {
  /** The receiver's path after RECEIVER_BASE: which endpoint this was sent to. */
  name: string;
  method: string;
  redirect: string | undefined;
  headers: Record<string, string>;
  body: string;
  /** What the receiver answered (null: it never answered). */
  status: number | null;
}

export type Answer = Response | "hang" | "network-error";
type Behaviour = (request: ReceivedWebhook, index: number) => Answer | Promise<Answer>;

const received: ReceivedWebhook[] = [];
const behaviours = new Map<string, Behaviour>();
let installed = false;

/** Intercepts fetches to RECEIVER_BASE for the rest of the test file. */
export function installReceiver(): void {
  if (installed) return;
  installed = true;
  const original = globalThis.fetch;
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    if (!request.url.startsWith(RECEIVER_BASE)) return original(input, init);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, key) => (headers[key] = value));
    const record: ReceivedWebhook = {
      name: request.url.slice(RECEIVER_BASE.length),
      method: request.method,
      redirect: init?.redirect,
      headers,
      body: await request.text(),
      status: null,
    };
    received.push(record);
    const behaviour = behaviours.get(record.name) ?? (() => new Response("ok"));
    const answer = await behaviour(record, received.filter((r) => r.name === record.name).length - 1);
    // A receiver that never answers: only the sender's own timeout (its request's signal) ends the wait.
    if (answer === "hang") {
      return new Promise<Response>((_, reject) => request.signal.addEventListener("abort", () => reject(request.signal.reason as Error)));
    }
    if (answer === "network-error") throw new TypeError("Network connection lost.");
    record.status = answer.status;
    return answer;
  });
}

/** A fresh receiver endpoint: its URL, what it received, and how it answers. */
export function receiver(name = crypto.randomUUID()) {
  behaviours.delete(name);
  return {
    url: RECEIVER_BASE + name,
    /** Every request received, in arrival order. */
    get all(): ReceivedWebhook[] {
      return received.filter((r) => r.name === name);
    },
    /** The requests it answered with a 2xx. */
    get accepted(): ReceivedWebhook[] {
      return received.filter((r) => r.name === name && r.status !== null && r.status >= 200 && r.status < 300);
    },
    answer(behaviour: Behaviour | number): void {
      behaviours.set(name, typeof behaviour === "number" ? () => new Response("", { status: behaviour }) : behaviour);
    },
  };
}

export interface WebhookBody {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

/** Verifies a request with the standardwebhooks library and answers its body; throws when a signature does not match. */
export function verified(secret: string, request: ReceivedWebhook): WebhookBody {
  return new Webhook(secret).verify(request.body, request.headers) as WebhookBody;
}

/** Polls until `check` holds (the senders run on their own alarms), up to `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}
