// The returns half of the fake Walmart (walmart-fake.ts routes /v3/returns here): GET /v3/returns
// and POST /v3/returns/{returnOrderId}/refund, held to Walmart's Returns Management description as
// extracted into walmart-returns.json (query parameters and their date and limit rules, the
// required headers including the Basic Authorization, the refund body's schema). It keeps the
// returns a test gives it (the description's example by default), each with the time it last
// changed, lists those changed in [returnLastModifiedStartDate, returnLastModifiedEndDate) in
// pages that name the next one as `?limit=&offset=` (the cursor shape of the description's
// example), and refunds return lines: a refunded line shows refundedQty = its quantity and
// currentRefundStatus REFUNDED; refunding a line already refunded, a line the return does not
// have or another customer order's return is answered 400 and changes nothing.
import type { WalmartReturnOrder } from "../../../src/marketplaces/walmart/walmart.types";
import extracted from "./walmart-returns.json";

interface Schema {
  type?: string;
  enum?: unknown[];
  required?: string[];
  properties?: Record<string, Schema>;
  items?: Schema;
}

interface ReturnsOperation {
  operationId: string;
  method: string;
  path: string;
  queryParams: string[];
  requiredHeaders: string[];
  requestBody: { schema: Schema; example: unknown } | null;
  responseExample: { meta: unknown; returnOrders: WalmartReturnOrder[] } & Record<string, unknown>;
  cursorParams?: string[];
}

const spec = extracted as unknown as {
  getReturns: ReturnsOperation & { cursorParams: string[] };
  issueRefund: ReturnsOperation;
  lineStatuses: string[];
  limitMax: number;
};

/** The description's example return order (one line, COMPLETED, refundedQty 1). */
export const DOCUMENTED_RETURN: WalmartReturnOrder = structuredClone(spec.getReturns.responseExample.returnOrders[0]!);
export const RETURN_LINE_STATUSES = spec.lineStatuses;

interface Deps {
  now(): Date;
  checkHeaders(headers: Headers, names: string[], problems: string[]): void;
  checkAgainstSchema(value: unknown, schema: Schema, path: string, problems: string[]): string[];
  tokenValid(token: string | null): boolean;
  violation(request: Request, problems: string[]): Response;
  json(status: number, body: unknown, headers?: Record<string, string>): Response;
  errorBody(status: number, description?: string, field?: string): unknown;
}

export interface HeldReturn {
  record: WalmartReturnOrder;
  /** When Walmart last changed it (the list's returnLastModified window reads this). */
  modifiedAt: Date;
}

export interface WalmartReturnsFake {
  /** The operation of this request, or null when the path is not a returns path. */
  operationId(request: Request, url: URL): string | null;
  handle(request: Request, url: URL, rawBody: string): Response;
  /** Adds or replaces a return (by returnOrderId). */
  put(record: WalmartReturnOrder, modifiedAt: Date): void;
  get(returnOrderId: string): WalmartReturnOrder | undefined;
  /** Refund calls taken, oldest first. */
  refunds: { returnOrderId: string; lines: number[] }[];
}

const DATE_VALUE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const REFUND_PATH = /^\/v3\/returns\/([^/]+)\/refund$/;

export function walmartReturnsFake(deps: Deps): WalmartReturnsFake {
  const held = new Map<string, HeldReturn>();
  const issuedCursors = new Set<string>();
  const refunds: WalmartReturnsFake["refunds"] = [];

  function common(request: Request, op: ReturnsOperation, problems: string[]): void {
    deps.checkHeaders(request.headers, [...op.requiredHeaders, "Accept"], problems);
    if (!/^Basic [A-Za-z0-9+/=]+$/.test(request.headers.get("Authorization") ?? "")) problems.push("Authorization must be Basic base64(clientId:clientSecret)");
  }

  function list(request: Request, url: URL, rawBody: string): Response {
    const op = spec.getReturns;
    const problems: string[] = [];
    common(request, op, problems);
    const known = new Set([...op.queryParams, ...op.cursorParams]);
    for (const [name, value] of url.searchParams) {
      if (!known.has(name)) problems.push(`query parameter ${name} is not in the description of ${op.path}`);
      else if (name.endsWith("Date") && !DATE_VALUE.test(value)) problems.push(`${name}=${value} is not a UTC/ISO 8601 date`);
      else if (name === "limit" && !(/^\d+$/.test(value) && Number(value) >= 1 && Number(value) <= spec.limitMax))
        problems.push(`limit=${value} must be 1..${spec.limitMax}`);
      else if (name === "status" && !spec.lineStatuses.includes(value)) problems.push(`status=${value} is not one of ${spec.lineStatuses.join(", ")}`);
    }
    if (url.searchParams.has("offset") && !issuedCursors.has(url.search))
      problems.push(`cursor query ${url.search} is not a nextCursor this fake issued (send it back as is)`);
    if (rawBody !== "") problems.push("getReturns takes no body");
    if (problems.length > 0) return deps.violation(request, problems);
    if (!deps.tokenValid(request.headers.get("WM_SEC.ACCESS_TOKEN"))) return deps.json(401, deps.errorBody(401));

    // A cursor carries the first page's filters on (this fake's choice: the description's
    // example shows only limit and offset besides sellerId).
    const offset = Number(url.searchParams.get("offset") ?? "0");
    const limit = Number(url.searchParams.get("limit") ?? "10");
    const from = url.searchParams.get("returnLastModifiedStartDate");
    const to = url.searchParams.get("returnLastModifiedEndDate");
    const id = url.searchParams.get("returnOrderId");
    const matching = [...held.values()]
      .filter((r) => (from === null || r.modifiedAt.getTime() >= Date.parse(from)) && (to === null || r.modifiedAt.getTime() < Date.parse(to)))
      .filter((r) => id === null || r.record.returnOrderId === id)
      .sort((a, b) => a.modifiedAt.getTime() - b.modifiedAt.getTime() || String(a.record.returnOrderId).localeCompare(String(b.record.returnOrderId)));
    if (matching.length === 0) return deps.json(404, deps.errorBody(404, "No return orders found for the given criteria"));
    const page = matching.slice(offset, offset + limit);
    const more = offset + limit < matching.length;
    const next = new URLSearchParams();
    for (const [name, value] of url.searchParams) if (name !== "offset") next.set(name, value);
    next.set("offset", String(offset + limit));
    const nextCursor = more ? `?${next}` : "";
    if (more) issuedCursors.add(nextCursor);
    return deps.json(200, { meta: { totalCount: matching.length, limit, nextCursor }, returnOrders: page.map((r) => structuredClone(r.record)) });
  }

  function refund(request: Request, returnOrderId: string, rawBody: string): Response {
    const op = spec.issueRefund;
    const problems: string[] = [];
    common(request, op, problems);
    if ((request.headers.get("Content-Type") ?? "").split(";")[0]?.trim() !== "application/json") problems.push("Content-Type must be application/json");
    let body: { customerOrderId?: string; refundLines?: { returnOrderLineNumber?: number }[] } = {};
    try {
      body = JSON.parse(rawBody);
      deps.checkAgainstSchema(body, op.requestBody!.schema, "body", problems);
    } catch {
      problems.push("body is not JSON");
    }
    if (problems.length > 0) return deps.violation(request, problems);
    if (!deps.tokenValid(request.headers.get("WM_SEC.ACCESS_TOKEN"))) return deps.json(401, deps.errorBody(401));

    const ret = held.get(returnOrderId);
    if (!ret) return deps.json(404, deps.errorBody(404, `Return order ${returnOrderId} not found`));
    if (body.customerOrderId !== ret.record.customerOrderId) {
      return deps.json(
        400,
        deps.errorBody(
          400,
          `Return order ${returnOrderId} belongs to customer order ${ret.record.customerOrderId}, not ${body.customerOrderId}`,
          "customerOrderId",
        ),
      );
    }
    const lines = ret.record.returnOrderLines ?? [];
    const numbers = (body.refundLines ?? []).map((l) => l.returnOrderLineNumber!);
    for (const n of numbers) {
      const line = lines.find((l) => l.returnOrderLineNumber === n);
      if (!line) return deps.json(400, deps.errorBody(400, `Return order ${returnOrderId} has no line ${n}`, "returnOrderLineNumber"));
      if ((line.refundedQty ?? 0) >= (line.quantity?.measurementValue ?? 0)) {
        return deps.json(400, deps.errorBody(400, `Return order ${returnOrderId} line ${n} is already refunded`, "returnOrderLineNumber"));
      }
    }
    for (const n of numbers) {
      const line = lines.find((l) => l.returnOrderLineNumber === n)!;
      line.refundedQty = line.quantity?.measurementValue ?? 0;
      line.currentRefundStatus = "REFUNDED";
      line.statusTime = deps.now().toISOString();
    }
    ret.modifiedAt = deps.now();
    refunds.push({ returnOrderId, lines: numbers });
    return deps.json(200, {
      returnOrderId,
      customerOrderId: ret.record.customerOrderId,
      refundLines: numbers.map((returnOrderLineNumber) => ({ returnOrderLineNumber })),
    });
  }

  return {
    operationId(request, url) {
      if (url.pathname === spec.getReturns.path) return request.method === "GET" ? spec.getReturns.operationId : null;
      if (REFUND_PATH.test(url.pathname)) return request.method === "POST" ? spec.issueRefund.operationId : null;
      return null;
    },
    handle(request, url, rawBody) {
      if (url.pathname === spec.getReturns.path) return list(request, url, rawBody);
      return refund(request, decodeURIComponent(REFUND_PATH.exec(url.pathname)![1]!), rawBody);
    },
    put(record, modifiedAt) {
      held.set(String(record.returnOrderId), { record: structuredClone(record), modifiedAt });
    },
    get(returnOrderId) {
      const r = held.get(returnOrderId);
      return r && structuredClone(r.record);
    },
    refunds,
  };
}
