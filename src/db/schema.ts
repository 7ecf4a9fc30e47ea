// The only description of the database. `npm run db:generate` turns changes here into SQL under
// migrations/. Times are integer milliseconds since the epoch (UTC), so they sort and index as
// numbers and render as ISO 8601 in one place (src/lib/dates.ts).
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

const ms = (name: string) => integer(name, { mode: "number" });

/**
 * Per-store limits (src/stores/limits.ts): the defaults are far above what a real seller holds,
 * and an operator changes them per store. SQLite triggers (migrations/0004_orders_scale.sql)
 * refuse a row over a limit, so every write path is covered and a refused batch stores nothing.
 */
export const stores = sqliteTable("stores", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  maskBuyerPii: integer("mask_buyer_pii", { mode: "boolean" }).notNull().default(false),
  createdAt: ms("created_at").notNull(),
  deletedAt: ms("deleted_at"),
  maxOrders: integer("max_orders").notNull().default(2_000_000),
  maxOrderItems: integer("max_order_items").notNull().default(10_000_000),
  maxProducts: integer("max_products").notNull().default(2_000_000),
  maxFeeds: integer("max_feeds").notNull().default(200),
  maxSources: integer("max_sources").notNull().default(200),
  maxConsumerKeys: integer("max_consumer_keys").notNull().default(200),
  /** Bytes of text the store's orders with their lines, outbox rows and products may hold. */
  maxStoredBytes: integer("max_stored_bytes").notNull().default(2_000_000_000),
  /**
   * The shard database holding the store's data (src/db/shards.ts). The directory's row says where
   * the store lives; a shard's copy of the row (its orders' foreign keys and limit triggers read
   * it) says where that shard last knew it to live. 'DB' is the directory itself: stores created
   * before sharding stay there until moved.
   */
  shard: text("shard").notNull().default("DB"),
  /**
   * Bumped by every change of the directory's row (settings, limits, deletion, a move's switch).
   * A shard's copy takes a row only when it is newer (src/stores/stores.queries.ts
   * upsertStoreCopy), and a key's limiter keeps the store's part of the newest grant it was told
   * (src/throttle/grants.ts), so a write built from an earlier read never undoes a later one.
   */
  revision: integer("revision").notNull().default(0),
});

/**
 * The id ranges of the shards (directory only). Orders, lines, line changes, outbox, set-aside and webhook
 * delivery ids are SQLite AUTOINCREMENT ids, and a moved store's rows keep theirs, so every shard
 * allocates from its own range: epoch E is [E * 2^34, (E + 1) * 2^34), issued once, to one shard,
 * always above every earlier one. A shard takes a fresh epoch when it is first used and whenever a
 * store moves into it, so the ids it then hands out are above every id that exists anywhere.
 */
export const shardEpochs = sqliteTable("shard_epochs", {
  epoch: integer("epoch").primaryKey({ autoIncrement: true }),
  shard: text("shard").notNull(),
  issuedAt: ms("issued_at").notNull(),
});

/**
 * What a store holds, against its limits. Kept by triggers on orders, order_items, products,
 * feeds, sources, consumer_keys (active keys only) and outbox, in the same statement as the change.
 */
export const storeUsage = sqliteTable("store_usage", {
  storeId: text("store_id")
    .primaryKey()
    .references(() => stores.id),
  orders: integer("orders").notNull().default(0),
  orderItems: integer("order_items").notNull().default(0),
  products: integer("products").notNull().default(0),
  feeds: integer("feeds").notNull().default(0),
  sources: integer("sources").notNull().default(0),
  consumerKeys: integer("consumer_keys").notNull().default(0),
  /** What orders, order_items, outbox and products rows of the store hold (migrations/0007_stored_bytes.sql). */
  storedBytes: integer("stored_bytes").notNull().default(0),
});

export const consumerKeys = sqliteTable(
  "consumer_keys",
  {
    id: text("id").primaryKey(),
    storeId: text("store_id")
      .notNull()
      .references(() => stores.id),
    name: text("name").notNull(),
    /** SHA-256 of the key, hex. The key itself is shown once and never stored. */
    keyHash: text("key_hash").notNull(),
    /** JSON array of scope names. */
    scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
    lifespan: text("lifespan").notNull(),
    bucketSize: integer("bucket_size"),
    leakRatePerSecond: real("leak_rate_per_second"),
    createdAt: ms("created_at").notNull(),
    revokedAt: ms("revoked_at"),
  },
  (t) => [uniqueIndex("consumer_keys_key_hash").on(t.keyHash), index("consumer_keys_store").on(t.storeId)],
);

export const sources = sqliteTable(
  "sources",
  {
    id: text("id").primaryKey(),
    storeId: text("store_id")
      .notNull()
      .references(() => stores.id),
    type: text("type").notNull(),
    name: text("name").notNull(),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    /** AES-GCM ciphertext of the Settings JSON (src/lib/crypto.ts); never returned. */
    settingsCiphertext: text("settings_ciphertext").notNull(),
    /** Import cursor: orders changed at or after this time (minus an overlap) are fetched. */
    cursorAt: ms("cursor_at"),
    /** The returns import's own cursor (decisions 13), kept like cursorAt. */
    returnsCursorAt: ms("returns_cursor_at"),
    /** The last cycle (src/sync/cycle.ts), for the status view. */
    lastCycleStartedAt: ms("last_cycle_started_at"),
    lastCycleEndedAt: ms("last_cycle_ended_at"),
    lastCycleImported: integer("last_cycle_imported").notNull().default(0),
    importedTotal: integer("imported_total").notNull().default(0),
    /** What went wrong in the last cycle (import or delivery), null when it went through. */
    lastError: text("last_error"),
    /** The last 20 cycle summaries, newest first (src/sync/cycle-history.ts). */
    recentCycles: text("recent_cycles", { mode: "json" }).$type<unknown[]>().notNull().default(sql`'[]'`),
    createdAt: ms("created_at").notNull(),
    updatedAt: ms("updated_at").notNull(),
  },
  (t) => [uniqueIndex("sources_store_name").on(t.storeId, t.name)],
);

export const FULFILLMENT_STATUSES = ["Unshipped", "PartiallyShipped", "Shipped", "Canceled"] as const;

export const orders = sqliteTable(
  "orders",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    storeId: text("store_id")
      .notNull()
      .references(() => stores.id),
    /** The source this order syncs with; null for an inserted order no source claims. */
    sourceId: text("source_id"),
    orderSource: text("order_source").notNull(),
    orderSourceOrderNumber: text("order_source_order_number").notNull(),
    orderSourceCustomerOrderNumber: text("order_source_customer_order_number"),
    orderDestinationOrderNumber: text("order_destination_order_number"),
    status: text("status").notNull(),
    sourceOrderStatus: text("source_order_status").notNull().default(""),
    buyerEmailAddress: text("buyer_email_address").notNull(),
    buyerPhoneNumber: text("buyer_phone_number").notNull(),
    buyerUserId: text("buyer_user_id"),
    firstName: text("first_name").notNull(),
    lastName: text("last_name").notNull(),
    shipToCompanyName: text("ship_to_company_name"),
    street1: text("street1").notNull(),
    street2: text("street2").notNull().default(""),
    city: text("city").notNull(),
    stateOrProvince: text("state_or_province").notNull(),
    postalCode: text("postal_code").notNull(),
    country: text("country").notNull(),
    shippingMethod: text("shipping_method").notNull(),
    shippingServiceName: text("shipping_service_name").notNull().default(""),
    shippingServiceValue: text("shipping_service_value").notNull().default(""),
    destinationShippingCarrier: text("destination_shipping_carrier").notNull().default(""),
    paymentType: text("payment_type"),
    paymentTransactionId: text("payment_transaction_id"),
    isMarketplacePrime: integer("is_marketplace_prime", { mode: "boolean" }).notNull().default(false),
    grandTotal: real("grand_total").notNull(),
    subTotal: real("sub_total").notNull(),
    shippingTotal: real("shipping_total").notNull().default(0),
    shippingTaxTotal: real("shipping_tax_total").notNull().default(0),
    giftWrapTotal: real("gift_wrap_total").notNull().default(0),
    giftWrapTaxTotal: real("gift_wrap_tax_total").notNull().default(0),
    shipmentTrackingNumber: text("shipment_tracking_number"),
    syncUserErrorMessage: text("sync_user_error_message"),
    cancelReason: text("cancel_reason"),
    /** ImportedOrder.sourceData as JSON: the marketplace's own facts later deliveries need; never shown. */
    sourceData: text("source_data"),
    dateCreatedInOrderSource: ms("date_created_in_order_source").notNull(),
    dateCreatedInDestination: ms("date_created_in_destination"),
    dateShipped: ms("date_shipped"),
    dateUpdated: ms("date_updated").notNull(),
    /**
     * Unshipped, PartiallyShipped, Shipped or Canceled (decisions 12): what the order's lines
     * say, kept by every write that moves them (src/orders/orders.writes.ts), so lists and counts
     * can filter on it through an index.
     */
    fulfillmentStatus: text("fulfillment_status", { enum: FULFILLMENT_STATUSES }).notNull().default("Unshipped"),
  },
  (t) => [
    // Enforces "one order per marketplace order number" even under concurrent inserts.
    uniqueIndex("orders_store_source_number").on(t.storeId, t.orderSource, t.orderSourceOrderNumber),
    // One index per list/count filter shape; id last so the tie-break needs no sort.
    index("orders_store_created").on(t.storeId, t.dateCreatedInOrderSource, t.id),
    index("orders_store_status_created").on(t.storeId, t.status, t.dateCreatedInOrderSource, t.id),
    index("orders_store_updated").on(t.storeId, t.dateUpdated, t.id),
    index("orders_store_status_updated").on(t.storeId, t.status, t.dateUpdated, t.id),
    // The sorts that are not the filtered date (src/orders/order-list.ts): each walks its index
    // in order and stops after a page, whatever the store's size.
    index("orders_store_id").on(t.storeId, t.id),
    index("orders_store_status_id").on(t.storeId, t.status, t.id),
    index("orders_store_total").on(t.storeId, t.grandTotal, t.id),
    index("orders_store_status_total").on(t.storeId, t.status, t.grandTotal, t.id),
    // fulfillmentStatus= (decisions 12) on the two dates a list or count filters on.
    index("orders_store_fulfillment_created").on(t.storeId, t.fulfillmentStatus, t.dateCreatedInOrderSource, t.id),
    index("orders_store_fulfillment_updated").on(t.storeId, t.fulfillmentStatus, t.dateUpdated, t.id),
  ],
);

/**
 * Orders per store, date field, UTC day and status, kept by triggers on orders in the same
 * statement as the change: a count over a range sums whole days here and counts only its two
 * partial edge days in orders (src/orders/order-counts.ts).
 */
export const orderDayCounts = sqliteTable(
  "order_day_counts",
  {
    storeId: text("store_id").notNull(),
    /** 'c': date_created_in_order_source; 'u': date_updated. */
    field: text("field", { enum: ["c", "u"] }).notNull(),
    /** Start of the UTC day, ms. */
    day: ms("day").notNull(),
    status: text("status").notNull(),
    n: integer("n").notNull(),
  },
  (t) => [primaryKey({ columns: [t.storeId, t.field, t.day, t.status] })],
);

/**
 * Orders per store, UTC day of creation at the marketplace and OrderSource, kept by triggers on
 * orders like order_day_counts: the store overview's orders per day per source over 30 days
 * reads at most 30 days times the store's sources here, whatever the number of orders.
 */
export const orderSourceDayCounts = sqliteTable(
  "order_source_day_counts",
  {
    storeId: text("store_id").notNull(),
    /** Start of the UTC day of date_created_in_order_source, ms. */
    day: ms("day").notNull(),
    orderSource: text("order_source").notNull(),
    n: integer("n").notNull(),
  },
  (t) => [primaryKey({ columns: [t.storeId, t.day, t.orderSource] })],
);

export const orderItems = sqliteTable(
  "order_items",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    orderId: integer("order_id")
      .notNull()
      .references(() => orders.id),
    /** The marketplace's own line id; what a shipment or cancellation names. */
    sourceLineId: text("source_line_id"),
    sku: text("sku").notNull(),
    name: text("name").notNull(),
    quantity: integer("quantity").notNull(),
    unitPrice: real("unit_price").notNull(),
    saleTaxCost: real("sale_tax_cost").notNull().default(0),
    discount: text("discount").notNull().default("0"),
    /**
     * Units of the line shipped and cancelled so far, by the seller or the marketplace (decisions
     * 12). A trigger (migrations/0015_lines.sql) refuses any write that would make their sum
     * exceed `quantity` or either negative, so no race can ship or cancel a unit twice.
     */
    quantityShipped: integer("quantity_shipped").notNull().default(0),
    quantityCancelled: integer("quantity_cancelled").notNull().default(0),
    /**
     * Units of stock the line took when it arrived (decisions 11): its quantity when its Sku had
     * them, fewer when the take stopped at 0, 0 for an untracked or unknown Sku or an order that
     * arrived cancelled. Set in the write that lowers the stock (src/orders/orders.writes.ts), never
     * changed after. A cancellation gives back at most this: cancelled units first use up what the
     * line never took (src/orders/order-moves.ts stockGivenBack). Null on lines stored before
     * migrations/0017: read as the line's quantity, which is what cancellations gave back then.
     */
    stockTaken: integer("stock_taken"),
  },
  (t) => [index("order_items_order").on(t.orderId, t.id)],
);

export const LINE_CHANGE_KINDS = ["ship", "cancel"] as const;

/**
 * What moved an order's lines (decisions 12), one row each, in the order they were made: a
 * package (kind `ship`: its lines, tracking, carrier, date; its id is the ShipmentId) or a
 * cancellation of some quantities (kind `cancel`). Made by the seller (UpdateStatus, the
 * console) or reported by the marketplace (`origin`). Written only by src/orders/orders.writes.ts.
 */
export const lineChanges = sqliteTable(
  "line_changes",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    orderId: integer("order_id")
      .notNull()
      .references(() => orders.id),
    /** 1, 2, ... within the order: how a batch names a change it has not written yet. */
    seq: integer("seq").notNull(),
    storeId: text("store_id").notNull(),
    kind: text("kind", { enum: LINE_CHANGE_KINDS }).notNull(),
    origin: text("origin", { enum: ["seller", "marketplace"] }).notNull(),
    /** JSON [[orderItemId, quantity], ...]: the lines and how many units of each. */
    lines: text("lines", { mode: "json" }).$type<[number, number][]>().notNull(),
    trackingNumber: text("tracking_number"),
    carrier: text("carrier"),
    shippingMethod: text("shipping_method"),
    dateShipped: ms("date_shipped"),
    /** The marketplace's id of the package: reported with it, or answered when the hub's delivery of it was taken. */
    marketplaceRef: text("marketplace_ref"),
    createdAt: ms("created_at").notNull(),
    updatedAt: ms("updated_at").notNull(),
  },
  (t) => [uniqueIndex("line_changes_order_seq").on(t.orderId, t.seq)],
);
export type LineChangeRow = typeof lineChanges.$inferSelect;

export const OUTBOX_STATES = ["pending", "submitted", "delivered", "notApplicable", "failed"] as const;
/** What an outbox row tells the marketplace: an order move, or a return's or refund's (decisions 13). */
export const OUTBOX_KINDS = ["acknowledge", "ship", "cancel", "refund", "receiveReturn", "approveReturn", "rejectReturn"] as const;

/**
 * What must reach a marketplace: written in the same batch as the order change that causes it,
 * delivered by the sync. Rows are never deleted, so a delivery history stays readable.
 */
export const outbox = sqliteTable(
  "outbox",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    storeId: text("store_id").notNull(),
    sourceId: text("source_id").notNull(),
    orderId: integer("order_id")
      .notNull()
      .references(() => orders.id),
    kind: text("kind", { enum: OUTBOX_KINDS }).notNull(),
    /** JSON of the kind's payload; read only through src/outbox/outbox.queries.ts, which validates it. */
    payload: text("payload").notNull(),
    state: text("state", { enum: OUTBOX_STATES }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: ms("next_attempt_at").notNull(),
    lastError: text("last_error"),
    /** The marketplace's reference of the delivery (a fulfillment id, a feed id), when it gave one. */
    reference: text("reference"),
    /** What the marketplace noted on a delivered row, or why a row is notApplicable. */
    warning: text("warning"),
    createdAt: ms("created_at").notNull(),
    deliveredAt: ms("delivered_at"),
  },
  (t) => [index("outbox_source_due").on(t.sourceId, t.state, t.nextAttemptAt, t.id), index("outbox_order").on(t.orderId, t.id)],
);

/**
 * Orders a connector could not turn into an Order (decisions 6): kept with the reason and the
 * marketplace's own record until the operator retries or dismisses them.
 */
export const setAsideOrders = sqliteTable(
  "set_aside_orders",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    storeId: text("store_id").notNull(),
    sourceId: text("source_id").notNull(),
    orderSourceOrderNumber: text("order_source_order_number").notNull(),
    reason: text("reason").notNull(),
    /** The marketplace's record as JSON, at most 64 KiB; when it was larger, the start of it and recordTruncated. */
    record: text("record").notNull(),
    recordTruncated: integer("record_truncated", { mode: "boolean" }).notNull().default(false),
    firstSeenAt: ms("first_seen_at").notNull(),
    lastSeenAt: ms("last_seen_at").notNull(),
  },
  (t) => [uniqueIndex("set_aside_source_number").on(t.sourceId, t.orderSourceOrderNumber)],
);

/** Operator switches (maintenance) that must change without a redeploy. */
export const settings = sqliteTable("settings", {
  key: text("key").primaryKey(),
  value: text("value", { mode: "json" }).notNull(),
  updatedAt: ms("updated_at").notNull().default(sql`(unixepoch() * 1000)`),
});

/**
 * Console sessions signed out before they expired (src/console/sign-outs.queries.ts). A session is a
 * signed cookie, not a row; this list is what makes a copy of the cookie useless after sign-out.
 * A row is kept until the session would have expired anyway.
 */
export const consoleSignOuts = sqliteTable("console_sign_outs", {
  sessionId: text("session_id").primaryKey(),
  expiresAt: ms("expires_at").notNull(),
});

export type OrderRow = typeof orders.$inferSelect;
export type OrderItemRow = typeof orderItems.$inferSelect;

/**
 * A store's product catalog: the input of its feeds. Keyed by (store, Sku), which is also the
 * order a compile reads it in (keyset pages: sku > last sku seen).
 */
export const products = sqliteTable(
  "products",
  {
    storeId: text("store_id")
      .notNull()
      .references(() => stores.id),
    sku: text("sku").notNull(),
    title: text("title"),
    description: text("description"),
    link: text("link"),
    imageLink: text("image_link"),
    price: real("price"),
    currency: text("currency"),
    availability: text("availability"),
    brand: text("brand"),
    gtin: text("gtin"),
    /** Any other columns of an import, by name: what a feed's Columns may also name. */
    attributes: text("attributes", { mode: "json" }).$type<Record<string, string>>(),
    updatedAt: ms("updated_at").notNull(),
    /**
     * Units on the shelf (decisions 11); null: not tracked, never pushed to a marketplace. Never
     * negative: inputs are checked and every decrement is max(0, ...). (A CHECK constraint would
     * make drizzle-kit rebuild the table, which drops its usage triggers.)
     */
    quantity: integer("quantity"),
    /**
     * When a tracked product's quantity, price or currency last changed, on the store's stock
     * clock (stock_clock); set by triggers (migrations/0008_stock.sql) so every write path keeps
     * it. Each source's listings plan what changed after the last change it planned.
     */
    stockSeq: integer("stock_seq"),
  },
  (t) => [primaryKey({ columns: [t.storeId, t.sku] }), index("products_store_stock_seq").on(t.storeId, t.stockSeq)],
);

/** A store's stock clock: the last value handed to products.stock_seq. Only the triggers write it. */
export const stockClock = sqliteTable("stock_clock", {
  storeId: text("store_id").primaryKey(),
  seq: integer("seq").notNull(),
});

export const LISTING_STATES = ["pending", "submitted", "accepted", "unknownSku", "refused"] as const;

/**
 * A tracked Sku's quantity and price at one source (decisions 11): what the marketplace last
 * accepted, what is still to send, and why the last send failed. Written only by
 * src/stock/listings.queries.ts.
 */
export const listings = sqliteTable(
  "listings",
  {
    sourceId: text("source_id").notNull(),
    storeId: text("store_id").notNull(),
    sku: text("sku").notNull(),
    acceptedQuantity: integer("accepted_quantity"),
    acceptedPrice: real("accepted_price"),
    acceptedAt: ms("accepted_at"),
    /** The product's values when last planned: what the marketplace must end up showing. */
    pendingQuantity: integer("pending_quantity"),
    pendingPrice: real("pending_price"),
    currency: text("currency"),
    /** The product's stock_seq when planned: the source's plan cursor is the highest of these. */
    plannedSeq: integer("planned_seq").notNull(),
    status: text("status", { enum: LISTING_STATES }).notNull(),
    /**
     * A submitted row's marketplace reference (Walmart's feed ids) and the values it carried: the
     * values become accepted when the marketplace reports the Sku processed. Null otherwise.
     */
    submission: text("submission"),
    submittedQuantity: integer("submitted_quantity"),
    submittedPrice: real("submitted_price"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: ms("next_attempt_at").notNull(),
    lastError: text("last_error"),
    updatedAt: ms("updated_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.sourceId, t.sku] }),
    index("listings_source_due").on(t.sourceId, t.status, t.nextAttemptAt, t.sku),
    index("listings_source_planned").on(t.sourceId, t.plannedSeq),
  ],
);
export type ListingRow = typeof listings.$inferSelect;

/**
 * A feed definition and what its last successful compile produced. The counts, FileName and
 * file key always describe the file that is downloadable now; Status and statusMessage describe
 * the latest compile (which may be running or have failed while the previous file stays).
 */
export const feeds = sqliteTable(
  "feeds",
  {
    id: text("id").primaryKey(),
    storeId: text("store_id")
      .notNull()
      .references(() => stores.id),
    name: text("name").notNull(),
    /** name.toLowerCase(): what filterQuery searches and Name sorts by (SQLite's lower() is ASCII only). */
    nameKey: text("name_key").notNull(),
    format: text("format", { enum: ["csv", "tsv"] }).notNull(),
    template: text("template").notNull(),
    /** [{header, field}] in order; null = the template's columns. */
    columns: text("columns", { mode: "json" }).$type<{ header: string; field: string }[]>(),
    compileIntervalMinutes: integer("compile_interval_minutes"),
    /** Cells starting with = + - @ (or a tab or CR) are prefixed with ' so a spreadsheet shows them instead of running them. */
    escapeFormulas: integer("escape_formulas", { mode: "boolean" }).notNull().default(false),
    status: text("status").notNull(),
    statusMessage: text("status_message").notNull().default(""),
    fileName: text("file_name").notNull(),
    /** R2 key of the downloadable file; null until a compile has completed. */
    fileKey: text("file_key"),
    fileSize: integer("file_size"),
    totalCount: integer("total_count").notNull().default(0),
    validCount: integer("valid_count").notNull().default(0),
    warningCount: integer("warning_count").notNull().default(0),
    errorCount: integer("error_count").notNull().default(0),
    score: integer("score").notNull().default(0),
    /** A sample of the last compile's problems: [{sku, errors, warnings}]. */
    issues: text("issues", { mode: "json" }).$type<FeedIssue[]>(),
    dateLastCompiled: ms("date_last_compiled"),
    dateLastSubmitted: ms("date_last_submitted"),
    dateLastPulled: ms("date_last_pulled"),
    createdAt: ms("created_at").notNull(),
  },
  (t) => [index("feeds_store_name").on(t.storeId, t.nameKey, t.id), index("feeds_store_compiled").on(t.storeId, t.dateLastCompiled, t.id)],
);

export interface FeedIssue {
  sku: string;
  errors: string[];
  warnings: string[];
}

export type ProductRow = typeof products.$inferSelect;
export type FeedRow = typeof feeds.$inferSelect;

export const WEBHOOK_DELIVERY_STATES = ["pending", "delivered", "failed"] as const;

/**
 * A store's webhook endpoints (decisions 9; src/webhooks/). The secret is stored only as AES-GCM
 * ciphertext, like a source's Settings; during a rotation the previous one signs beside it until
 * previousSecretExpiresAt.
 */
export const webhooks = sqliteTable(
  "webhooks",
  {
    id: text("id").primaryKey(),
    storeId: text("store_id")
      .notNull()
      .references(() => stores.id),
    url: text("url").notNull(),
    /** JSON array of event names, or ["*"]. */
    events: text("events", { mode: "json" }).$type<string[]>().notNull(),
    description: text("description").notNull().default(""),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    /** Why the hub disabled it (a 410, five failed events in a row); null when enabled or disabled by the operator. */
    disabledReason: text("disabled_reason"),
    secretCiphertext: text("secret_ciphertext").notNull(),
    previousSecretCiphertext: text("previous_secret_ciphertext"),
    previousSecretExpiresAt: ms("previous_secret_expires_at"),
    createdAt: ms("created_at").notNull(),
    updatedAt: ms("updated_at").notNull(),
  },
  // What every event write probes: a store without endpoints costs one lookup here, no row.
  (t) => [index("webhooks_store_enabled").on(t.storeId, t.enabled)],
);

/**
 * One row per event and endpoint: what the endpoint is sent, how it went. Written in the same
 * batch as the change the event reports (src/webhooks/webhook-deliveries.queries.ts).
 */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** The `webhook-id` header: the same on every attempt, unique per event and endpoint. */
    eventId: text("event_id").notNull(),
    storeId: text("store_id").notNull(),
    webhookId: text("webhook_id")
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    /** What events are ordered by: 'order:<OrderId>' or 'feed:<FeedId>'; an import's row says 'new:<number>' until its order exists. */
    subject: text("subject").notNull(),
    type: text("type").notNull(),
    /** The exact body sent (and signed) on every attempt; null only inside an import's batch. */
    payload: text("payload"),
    state: text("state", { enum: WEBHOOK_DELIVERY_STATES }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: ms("next_attempt_at").notNull(),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    createdAt: ms("created_at").notNull(),
    finishedAt: ms("finished_at"),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_event").on(t.eventId),
    index("webhook_deliveries_due").on(t.webhookId, t.state, t.nextAttemptAt, t.id),
    index("webhook_deliveries_subject").on(t.webhookId, t.subject, t.id),
    index("webhook_deliveries_list").on(t.webhookId, t.id),
    index("webhook_deliveries_unfilled").on(t.storeId).where(sql`payload is null`),
  ],
);

/**
 * A store's move to another shard (directory only; src/store-moves/move.ts): one row per store, the
 * latest move, its progress and where a resumed step goes on from.
 */
export const STORE_MOVE_STATES = ["copying", "switching", "completed", "failed"] as const;
export const storeMoves = sqliteTable("store_moves", {
  storeId: text("store_id").primaryKey(),
  fromShard: text("from_shard").notNull(),
  toShard: text("to_shard").notNull(),
  status: text("status", { enum: STORE_MOVE_STATES }).notNull(),
  /** The step the move is at (src/store-moves/move.ts: capture, copy, catch-up, fence, drain, flip, grants, grace, cleanup, done). */
  phase: text("phase").notNull(),
  /** Where the copy or the cleanup goes on from: JSON of src/store-moves/move-copy.ts's cursor. */
  cursor: text("cursor", { mode: "json" }).$type<unknown>(),
  rowsCopied: integer("rows_copied").notNull().default(0),
  changesApplied: integer("changes_applied").notNull().default(0),
  rowsRemoved: integer("rows_removed").notNull().default(0),
  startedAt: ms("started_at").notNull(),
  updatedAt: ms("updated_at").notNull(),
  /** When writes were held (the fence went up) and for how long, once known. */
  writesHeldAt: ms("writes_held_at"),
  writeHoldMs: integer("write_hold_ms"),
  switchedAt: ms("switched_at"),
  finishedAt: ms("finished_at"),
  error: text("error"),
});

/**
 * In a shard: stores whose every row change is logged in move_log (a move out of this shard is
 * copying), and stores fenced (the move is switching: every write of the store's rows here is
 * refused with 'store_moved', except the cleanup's deletes once `purging`). Kept by the triggers
 * of migrations/0012_store_moves.sql on every table of a store's data.
 */
export const moveCapture = sqliteTable("move_capture", {
  storeId: text("store_id").primaryKey(),
  since: ms("since").notNull(),
});
export const moveLog = sqliteTable(
  "move_log",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    storeId: text("store_id").notNull(),
    tbl: text("tbl").notNull(),
    /** The changed row's key: its id, or (store or source, sku) for products and listings. */
    k1: text("k1").notNull(),
    k2: text("k2"),
  },
  (t) => [index("move_log_store_seq").on(t.storeId, t.seq)],
);
export const storeFences = sqliteTable("store_fences", {
  storeId: text("store_id").primaryKey(),
  purging: integer("purging", { mode: "boolean" }).notNull().default(false),
});

// ---------------------------------------------------------------------------------------------
// Returns and refunds (decisions 13). Each table has one owner: src/returns/returns.queries.ts
// (returns, return_lines), src/refunds/refunds.queries.ts (refunds, refund_lines),
// src/sources/set-aside-returns.queries.ts (set_aside_returns).

export const RETURN_STATUSES = ["Requested", "Approved", "Received", "Refunded", "Closed", "Rejected"] as const;

/**
 * A buyer's return of lines of an order, as its marketplace reports it and as the seller receives
 * it. One per (source, marketplace return number); ReturnId is the id.
 */
export const returns = sqliteTable(
  "returns",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    storeId: text("store_id")
      .notNull()
      .references(() => stores.id),
    orderId: integer("order_id")
      .notNull()
      .references(() => orders.id),
    /** The source it came from, and the one its receipt and decisions are delivered to. */
    sourceId: text("source_id").notNull(),
    sourceReturnNumber: text("source_return_number").notNull(),
    status: text("status", { enum: RETURN_STATUSES }).notNull(),
    /** The marketplace's own word for the return's state. */
    sourceStatus: text("source_status").notNull().default(""),
    reason: text("reason"),
    /** ImportedReturn.sourceData as JSON: what later deliveries of the return need; never shown. */
    sourceData: text("source_data"),
    dateRequested: ms("date_requested").notNull(),
    dateUpdated: ms("date_updated").notNull(),
    createdAt: ms("created_at").notNull(),
    /** The write that last inserted or changed the row: its batch finds its own rows by it (webhook events). */
    lastWrite: text("last_write"),
  },
  (t) => [
    uniqueIndex("returns_source_number").on(t.storeId, t.sourceId, t.sourceReturnNumber),
    // The list's filter shapes, as orders have them; id last so the tie-break needs no sort.
    index("returns_store_requested").on(t.storeId, t.dateRequested, t.id),
    index("returns_store_status_requested").on(t.storeId, t.status, t.dateRequested, t.id),
    index("returns_store_updated").on(t.storeId, t.dateUpdated, t.id),
    index("returns_store_status_updated").on(t.storeId, t.status, t.dateUpdated, t.id),
    index("returns_store_id").on(t.storeId, t.id),
    index("returns_store_status_id").on(t.storeId, t.status, t.id),
    index("returns_order").on(t.orderId, t.id),
  ],
);

/** A line of a return: an order line and how many of it come back, and how many came back. */
export const returnLines = sqliteTable(
  "return_lines",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    returnId: integer("return_id")
      .notNull()
      .references(() => returns.id),
    orderItemId: integer("order_item_id")
      .notNull()
      .references(() => orderItems.id),
    /** The marketplace's id of the return line (or of the order line when it has none). */
    sourceReturnLineId: text("source_return_line_id").notNull(),
    quantity: integer("quantity").notNull(),
    /** What the seller recorded as received (PUT .../Receive): never more than quantity. */
    quantityReceived: integer("quantity_received").notNull().default(0),
    /** Of those, put back in stock: each unit once (Restock). */
    quantityRestocked: integer("quantity_restocked").notNull().default(0),
    reason: text("reason"),
  },
  (t) => [uniqueIndex("return_lines_return_line").on(t.returnId, t.sourceReturnLineId), index("return_lines_item").on(t.orderItemId)],
);

export const REFUND_STATUSES = ["Pending", "Refunded", "Failed", "NotApplicable"] as const;

/**
 * Money paid back on an order: made by the seller through the hub (delivered to the marketplace
 * through the outbox) or made in the marketplace and imported. Immutable once written, except its
 * status (kept by triggers on the outbox: migrations/0016_returns.sql) and reference.
 */
export const refunds = sqliteTable(
  "refunds",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    storeId: text("store_id")
      .notNull()
      .references(() => stores.id),
    orderId: integer("order_id")
      .notNull()
      .references(() => orders.id),
    returnId: integer("return_id").references(() => returns.id),
    /** 'hub': PUT .../Refund; 'marketplace': imported. */
    origin: text("origin", { enum: ["hub", "marketplace"] }).notNull(),
    /** The marketplace's refund id: an imported refund's, or the reference a delivered one was given. */
    sourceRefundId: text("source_refund_id"),
    /** A hub refund's request, canonical and hashed: the same call again finds it and records nothing. */
    requestKey: text("request_key"),
    status: text("status", { enum: REFUND_STATUSES }).notNull(),
    reason: text("reason").notNull(),
    shippingAmount: real("shipping_amount").notNull().default(0),
    total: real("total").notNull(),
    currency: text("currency"),
    dateCreated: ms("date_created").notNull(),
    /** The write that inserted the row (see returns.lastWrite). */
    lastWrite: text("last_write"),
  },
  (t) => [
    index("refunds_order").on(t.orderId, t.id),
    index("refunds_return").on(t.returnId),
    uniqueIndex("refunds_order_request").on(t.orderId, t.requestKey),
    uniqueIndex("refunds_order_source_refund").on(t.orderId, t.sourceRefundId),
  ],
);

export const refundLines = sqliteTable(
  "refund_lines",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    refundId: integer("refund_id")
      .notNull()
      .references(() => refunds.id),
    orderItemId: integer("order_item_id")
      .notNull()
      .references(() => orderItems.id),
    /** Units refunded; 0 for an amount-only refund of the line. */
    quantity: integer("quantity").notNull(),
    amount: real("amount").notNull(),
  },
  (t) => [index("refund_lines_refund").on(t.refundId, t.id), index("refund_lines_item").on(t.orderItemId)],
);

/**
 * Returns set aside (decisions 6 and 13): one the connector could not map, or whose order the hub
 * does not hold, kept with the reason and the marketplace's record until retried or dismissed.
 */
export const setAsideReturns = sqliteTable(
  "set_aside_returns",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    storeId: text("store_id").notNull(),
    sourceId: text("source_id").notNull(),
    sourceReturnNumber: text("source_return_number").notNull(),
    orderSourceOrderNumber: text("order_source_order_number"),
    reason: text("reason").notNull(),
    record: text("record").notNull(),
    recordTruncated: integer("record_truncated", { mode: "boolean" }).notNull().default(false),
    firstSeenAt: ms("first_seen_at").notNull(),
    lastSeenAt: ms("last_seen_at").notNull(),
  },
  (t) => [uniqueIndex("set_aside_returns_source_number").on(t.sourceId, t.sourceReturnNumber)],
);

export type ReturnRow = typeof returns.$inferSelect;
export type ReturnLineRow = typeof returnLines.$inferSelect;
export type RefundRow = typeof refunds.$inferSelect;
export type RefundLineRow = typeof refundLines.$inferSelect;
