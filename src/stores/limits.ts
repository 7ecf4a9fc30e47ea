// Per-store limits (issue 12): what each one is called on the wire, which column holds it, and
// how a refusal by the database's triggers (migrations/0004_orders_scale.sql) becomes an answer.
// The triggers raise 'Store limit reached: <Name>' and abort the whole statement, and a D1 batch
// is one transaction, so a refused request stores nothing.
import { ApiError } from "../http/errors";

export const LIMITS = {
  Orders: { column: "maxOrders", what: "orders" },
  OrderItems: { column: "maxOrderItems", what: "order items" },
  Products: { column: "maxProducts", what: "products" },
  Feeds: { column: "maxFeeds", what: "feeds" },
  Sources: { column: "maxSources", what: "marketplace sources" },
  ConsumerKeys: { column: "maxConsumerKeys", what: "active consumer keys" },
  /** Bytes of text held by the store's orders with their lines, outbox rows and products (issue 20). */
  StoredBytes: { column: "maxStoredBytes", what: "bytes of stored data" },
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

/** The answer to a refused write: names the limit, its value when known, and the way out. */
export function limitError(name: LimitName, value?: number): ApiError {
  const { what } = LIMITS[name];
  const amount = value === undefined ? "" : ` of ${value} ${what}`;
  return new ApiError(
    400,
    `Store limit reached: ${name}. This store already holds its limit${amount}, so nothing of this request was stored. ` +
      `An operator can raise it (PATCH /admin/v1/stores/{storeId} with {"Limits": {"${name}": <number>}}).`,
  );
}
