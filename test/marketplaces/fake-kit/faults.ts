// The faults every fake marketplace plays, with one signature across the fakes: an answer
// (`failNext({status, body, headers})`) or a transport failure (`failNextWithError({error})`), at
// one of the fake's endpoints (`target`, its main API by default), of one operation when given,
// for the next call or the next `times` calls (Infinity: a marketplace that never recovers).
// Beside them, the answers of a marketplace having a bad day (`badDay`): throttling forever, a
// Retry-After no date can hold, a 20 MiB body, a redirect to another host. Each fake still
// checks every request it does receive against its published description.

export interface FaultPlace<Target extends string = string> {
  /** Which endpoint of the fake answers so ("api", "token", ...); its main API by default. */
  target?: Target;
  /** Only calls of this operation (Amazon's operationId); any call by default. */
  operation?: string;
  /** How many calls in a row; 1 by default, Infinity for ever. */
  times?: number;
}

export interface AnswerFault<Target extends string = string> extends FaultPlace<Target> {
  status: number;
  /**
   * JSON unless a string the fake sends as it is, or a StreamedBody of any size; a `pages`
   * function answers the n-th call of the fault (0, 1, ...) with what it returns.
   */
  body?: unknown;
  pages?: (n: number) => unknown;
  headers?: Record<string, string>;
}

export interface ErrorFault<Target extends string = string> extends FaultPlace<Target> {
  /** What the fake's fetch throws; a lost connection by default. */
  error?: unknown;
}

export type Fault<Target extends string = string> =
  | ({ kind: "answer"; served: number } & AnswerFault<Target>)
  | ({ kind: "throw"; served: number } & ErrorFault<Target>);

/** The fault helpers every fake exposes. */
export interface FaultHelpers<Target extends string = string> {
  /** Answer the next call (of `target`, of `operation`; `times` calls) with this instead. */
  failNext(fault: AnswerFault<Target>): void;
  /** Make the next call fail the way fetch does when the network does. */
  failNextWithError(fault?: ErrorFault<Target>): void;
}

/** A fake's queue of faults: pushed by the test, taken by the fake as calls arrive. */
export function faultQueue<Target extends string>(
  mainTarget: Target,
): FaultHelpers<Target> & {
  take(target: Target, operation?: string | null): Fault<Target> | undefined;
} {
  const faults: Fault<Target>[] = [];
  return {
    failNext(fault) {
      faults.push({ kind: "answer", served: 0, ...fault });
    },
    failNextWithError(fault = {}) {
      faults.push({ kind: "throw", served: 0, ...fault });
    },
    take(target, operation = null) {
      const i = faults.findIndex((f) => (f.target ?? mainTarget) === target && (f.operation === undefined || f.operation === operation));
      if (i < 0) return undefined;
      const fault = faults[i]!;
      const left = (fault.times ?? 1) - 1;
      if (left <= 0) faults.splice(i, 1);
      else faults[i] = { ...fault, times: left, served: fault.served + 1 };
      return fault.kind === "answer" && fault.pages ? { ...fault, body: fault.pages(fault.served) } : fault;
    },
  };
}

/**
 * The Response of an answer fault: a streamed body or a string as it is, anything else through
 * the fake's own `json` (which puts its marketplace's error body in when none is given). A
 * thrown fault is thrown.
 */
export function faultResponse<Target extends string>(fault: Fault<Target>, json: (fault: AnswerFault<Target>) => Response, textAsJson = false): Response {
  if (fault.kind === "throw") throw fault.error ?? new TypeError("Network connection lost.");
  if (fault.body instanceof StreamedBody) return new Response(fault.body.open(), { status: fault.status, headers: fault.headers });
  if (typeof fault.body === "string" && !textAsJson) return new Response(fault.body, { status: fault.status, headers: fault.headers });
  return json(fault);
}

/** A body made afresh for every answer it is sent with: `bytes` bytes of `fill`, in 64 KiB chunks. */
export class StreamedBody {
  constructor(
    readonly bytes: number,
    readonly head = "",
    readonly fill = " ",
  ) {}

  open(): ReadableStream<Uint8Array> {
    const encoder = new TextEncoder();
    const chunk = encoder.encode(this.fill.repeat(64 * 1024));
    let sent = 0;
    const head = encoder.encode(this.head);
    const total = this.bytes;
    return new ReadableStream<Uint8Array>({
      start(controller) {
        if (head.byteLength > 0) {
          controller.enqueue(head);
          sent += head.byteLength;
        }
      },
      pull(controller) {
        if (sent >= total) return controller.close();
        const part = chunk.subarray(0, Math.min(chunk.byteLength, total - sent));
        sent += part.byteLength;
        controller.enqueue(part);
      },
    });
  }
}

const MiB = 1024 * 1024;

/** A marketplace having a bad day: answers to pass to a fake's failNext. */
export const badDay = {
  /** 429 to every call, for ever. */
  throttledForever: (headers: Record<string, string> = { "Retry-After": "60" }): AnswerFault<never> => ({ status: 429, headers, times: Infinity }),
  /** A 429 whose Retry-After is 285,000 years: no date can hold now plus that. */
  hugeRetryAfter: (): AnswerFault<never> => ({ status: 429, headers: { "Retry-After": "9000000000000" } }),
  /** A 200 whose JSON body never ends within 20 MiB. */
  hugeBody: (bytes = 20 * MiB): AnswerFault<never> => ({
    status: 200,
    body: new StreamedBody(bytes, '{"padding": "'),
    headers: { "Content-Type": "application/json" },
  }),
  /** 200 pages for ever, the n-th answering `page(n)` (an endless or a repeating next-page token). */
  endlessPages: <T extends string>(page: (n: number) => unknown, where: FaultPlace<T> = {}): AnswerFault<T> => ({
    status: 200,
    pages: page,
    times: Infinity,
    ...where,
  }),
  /** A redirect to another host, which must receive nothing. */
  redirect: (location: string, status = 307): AnswerFault<never> => ({ status, headers: { Location: location } }),
};

/**
 * A fetch that follows redirects the way the platform's fetch does unless told `redirect:
 * "manual"` (same method and body on 307/308, credentials headers kept but Authorization
 * across hosts), sending each request to the fake that holds its host; `elsewhere` receives
 * whatever goes to any other host. Proves a connector never lets a call follow a redirect.
 */
export function followingFetch(fakes: Record<string, typeof fetch>, elsewhere: typeof fetch): typeof fetch {
  const route = (url: string): typeof fetch => fakes[new URL(url).host] ?? elsewhere;
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    let request = new Request(input, init);
    const mode = init?.redirect ?? "follow";
    const body = init?.body ?? null;
    for (let hop = 0; hop < 20; hop++) {
      const response = await route(request.url)(request.url, {
        method: request.method,
        headers: request.headers,
        body: request.method === "GET" || request.method === "HEAD" ? null : body,
        redirect: "manual",
        signal: init?.signal,
      });
      const location = response.headers.get("Location");
      if (mode === "manual" || response.status < 300 || response.status >= 400 || !location) return response;
      if (mode === "error") throw new TypeError("redirect mode is error");
      const next = new URL(location, request.url);
      const headers = new Headers(request.headers);
      if (next.origin !== new URL(request.url).origin) headers.delete("Authorization");
      const keepsMethod = response.status === 307 || response.status === 308;
      request = new Request(next, { method: keepsMethod ? request.method : "GET", headers });
      if (!keepsMethod) return route(next.href)(next.href, { method: "GET", headers, redirect: "manual", signal: init?.signal });
    }
    throw new TypeError("too many redirects");
  }) as typeof fetch;
}

/** A host that must never be called: it records whatever reaches it. */
export function forbiddenHost() {
  const received: { method: string; url: string; headers: Record<string, string>; body: string }[] = [];
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    received.push({ method: request.method, url: request.url, headers: Object.fromEntries(request.headers), body: await request.text() });
    return new Response("stolen", { status: 200 });
  }) as typeof globalThis.fetch;
  return { fetch, received };
}
