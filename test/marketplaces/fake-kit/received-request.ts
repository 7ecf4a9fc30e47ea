// What every marketplace fake keeps of a request it received, read the same way by each: the
// method, the URL in pieces, the headers with lower-case names, the body as sent and as parsed.
// Each fake adds its own routing (which operation of its description this is) and its answer.

export interface ReceivedRequest {
  method: string;
  url: string;
  path: string;
  /** The query string as sent, before any decoding. */
  rawQuery: string;
  query: Record<string, string>;
  /** Lower-case names, as Headers reports them. */
  headers: Record<string, string>;
  rawBody: string;
  /** The form fields of a form body; else parsed JSON, or the text when it is not JSON; null without a body. */
  body: unknown;
  /** The operation of the marketplace's description this request was routed to (the fake names calls outside it). */
  operationId: string | null;
  /** The status answered, or null when the fake threw a network error instead. */
  status: number | null;
}

/**
 * Reads a request the way a fake records it. `isForm` says whether this URL takes a form body (a
 * token endpoint). A request whose signal is already aborted throws its reason, as fetch does.
 */
export async function receive(input: RequestInfo | URL, init: RequestInit | undefined, isForm: (url: URL) => boolean) {
  const request = new Request(input, init);
  if (request.signal?.aborted) throw request.signal.reason;
  const url = new URL(request.url);
  // Read as bytes: Request.text() on a form body makes workerd log a warning per call.
  const rawBody = request.body ? new TextDecoder().decode(await request.arrayBuffer()) : "";
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const form = isForm(url) ? Object.fromEntries(new URLSearchParams(rawBody)) : null;
  let body: unknown = form;
  if (!form && rawBody !== "") {
    try {
      body = JSON.parse(rawBody);
    } catch {
      body = rawBody;
    }
  }
  const recorded: ReceivedRequest = {
    method: request.method,
    url: request.url,
    path: url.pathname,
    rawQuery: url.search,
    query: Object.fromEntries(url.searchParams),
    headers,
    rawBody,
    body,
    operationId: null,
    status: null,
  };
  return { request, url, rawBody, form, recorded };
}
