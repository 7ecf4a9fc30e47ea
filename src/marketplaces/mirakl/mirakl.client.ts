// One Mirakl API call, as every part of the connector makes it: the instance's host and path,
// `shop_id` on every call when the source names a shop (the description's parameter for keys
// that reach several shops), the shop key raw in Authorization (the description's security
// scheme: an apiKey in the Authorization header, no "Bearer"), JSON asked for, a deadline, no
// redirect followed, and a failed answer turned into a MarketplaceError naming the operation.
import type { ConnectorContext, MarketplaceError } from "../connector";
import { answerFailure, readJsonAnswer, sendToMarketplace } from "../kit/marketplace-http";
import { describeMiraklError } from "./mirakl.mapping";
import type { MiraklSettings } from "./mirakl.settings";

export const TIMEOUT_MS = 15_000;

/** Mirakl's operation ids, as the description names them (and every message does). */
export type MiraklOperation =
  | "OR11"
  | "OR21"
  | "OR23"
  | "OR24"
  | "OR29"
  | "OR30"
  | "OR28"
  | "ST01"
  | "ST11"
  | "ST23"
  | "RE01"
  | "RT11"
  | "OF21"
  | "OF24"
  | "OF02"
  | "OF03"
  | "STO01"
  | "STO02"
  | "STO03";

export interface MiraklCall {
  query?: Record<string, string>;
  /** A JSON body. */
  json?: unknown;
  /** A multipart body (STO01's file). */
  form?: FormData;
}

export interface MiraklClient {
  /** The answer as it came (any status); a network failure, a deadline or a redirect is thrown. */
  send(op: MiraklOperation, method: "GET" | "POST" | "PUT", path: string, call?: MiraklCall): Promise<Response>;
  /** A failed answer as a MarketplaceError: `Mirakl <op> <status> <Mirakl's words>`. */
  failure(op: MiraklOperation, response: Response): Promise<MarketplaceError>;
  /** The JSON of a call that succeeded; a failed one is thrown. */
  json(op: MiraklOperation, method: "GET" | "POST" | "PUT", path: string, call?: MiraklCall): Promise<unknown>;
}

export function miraklClient(ctx: ConnectorContext, settings: MiraklSettings): MiraklClient {
  const client: MiraklClient = {
    send(op, method, path, call = {}) {
      const query = new URLSearchParams(call.query);
      if (settings.shopId !== undefined) query.set("shop_id", String(settings.shopId));
      const search = query.toString() ? `?${query}` : "";
      const headers: Record<string, string> = { Authorization: settings.apiKey, Accept: "application/json" };
      let body: BodyInit | undefined;
      if (call.form) body = call.form;
      else if (call.json !== undefined) {
        headers["Content-Type"] = "application/json";
        body = JSON.stringify(call.json);
      }
      return sendToMarketplace({
        marketplace: `Mirakl ${op}`,
        fetch: ctx.fetch,
        method,
        url: `${settings.baseUrl}${path}${search}`,
        headers,
        body,
        timeoutMs: TIMEOUT_MS,
      });
    },
    failure(op, response) {
      return answerFailure(response, {
        prefix: `Mirakl ${op} ${response.status}`,
        describe: describeMiraklError,
        // A refused key (401, 403) will not change by itself: the seller must give a new one.
        retryable: (status) => status === 429 || status >= 500,
        now: ctx.now(),
      });
    },
    async json(op, method, path, call) {
      const response = await client.send(op, method, path, call);
      if (!response.ok) throw await client.failure(op, response);
      return readJsonAnswer(response, `Mirakl ${op}`);
    },
  };
  return client;
}
