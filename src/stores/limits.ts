// Per-store limits (issue 12): what each one is called on the wire, which columns hold it and its use, and
// how a refusal by the database's triggers (migrations/0004_orders_scale.sql) becomes an answer.
// The triggers raise 'Store limit reached: <Name>' and abort the whole statement, and a D1 batch
// is one transaction, so a refused request stores nothing.
import { ApiError } from "../http/errors";

/** Each limit: the stores column holding it, the store_usage column counting what it limits, its words. */
export const LIMITS = {
  Orders: { column: "maxOrders", used: "orders", what: "orders" },
  OrderItems: { column: "maxOrderItems", used: "orderItems", what: "order items" },
  Products: { column: "maxProducts", used: "products", what: "products" },
  Feeds: { column: "maxFeeds", used: "feeds", what: "feeds" },
  Sources: { column: "maxSources", used: "sources", what: "marketplace sources" },
  ConsumerKeys: { column: "maxConsumerKeys", used: "consumerKeys", what: "active consumer keys" },
  /** Bytes of text held by the store's orders with their lines, outbox rows and products (issue 20). */
  StoredBytes: { column: "maxStoredBytes", used: "storedBytes", what: "bytes of stored data" },
} as const;

export type LimitName = keyof typeof LIMITS;
export const LIMIT_NAMES = Object.keys(LIMITS) as LimitName[];

const RAISED = /Store limit reached: (\w+)/;

/** The limit a database error reports, or null when it is some other error. */
export function limitReached(error: unknown): LimitName | null {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    const name = RAISED.exec(e.message)?.[1];
    if (name && Object.hasOwn(LIMITS, name)) return name as LimitName;
  }
  return null;
}

/**
 * The answer to a refused write: names the limit, its value when known, what was stored (by
 * default: nothing of this request) and the way out, an operator's PATCH.
 */
export function limitError(
  name: LimitName,
  value?: number,
  told: { stored: string; wayOut: (patch: string) => string } = {
    stored: ", so nothing of this request was stored.",
    wayOut: (patch) => `An operator can raise it (${patch}).`,
  },
): ApiError {
  const { what } = LIMITS[name];
  const amount = value === undefined ? "" : ` of ${value} ${what}`;
  const patch = `PATCH /admin/v1/stores/{storeId} with {"Limits": {"${name}": <number>}}`;
  return new ApiError(400, `Store limit reached: ${name}. This store already holds its limit${amount}${told.stored} ${told.wayOut(patch)}`);
}
