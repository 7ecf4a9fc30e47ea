// The orders half of the fake TikTok Shop (tiktok-fake.ts checks the signature, token, query and
// body schema, then routes here): GetOrderList and GetOrderDetail, and an order's life through its
// packages as the SDK's field descriptions tell it: SplitOrders moves line items into a new package
// per group; ShipPackage ships a package the seller ships itself (self_shipment with tracking
// number and a known shipping_provider_id; not for orders TikTok ships, shipping_type TIKTOK);
// MarkPackageAsShipped makes a shipped package of some line items; UpdatePackageShippingInfo
// corrects a shipped package's tracking; CancelOrder cancels the order or some line items (not
// what is shipped). Line items and the order then take the statuses TikTok gives them
// (AWAITING_COLLECTION, PARTIALLY_SHIPPING, CANCELLED), and update_time moves.
//
// Chosen where the SDK is silent: refusals come as HTTP 200 with codes 21011001-21011009 (the SDK
// publishes none); GetOrderList sorts ties by id; its page token is base64 of the offset and the
// search it belongs to, and a token sent with another search is refused (36009004); the last page's
// next_page_token is "".
import type { TiktokLineItem, TiktokOrder } from "../../../src/marketplaces/tiktok/tiktok.types";
import { schemaProblems, type Schema } from "../fake-kit/schema-check";
import type { Ok, Refuse } from "./tiktok-products-fake";

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);
const clone = <T>(value: T): T => structuredClone(value);
const shipped = (l: TiktokLineItem) => typeof l.tracking_number === "string" && l.tracking_number !== "";
const cancelled = (l: TiktokLineItem) => l.display_status === "CANCELLED";
const open = (l: TiktokLineItem) => !shipped(l) && !cancelled(l);

/** A short digest of a search, so a page token is only good for the search it came from. */
export function digest(text: string): string {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return (h >>> 0).toString(16);
}

export function tiktokFulfilment(opts: {
  orders: TiktokOrder[];
  now: () => Date;
  ok: Ok;
  refuse: Refuse;
  providers: Record<string, string>;
  answerSchema: (operationId: string) => Schema & { properties: { data?: Schema } };
}) {
  const { now, ok, refuse, providers } = opts;
  const orders = new Map<string, TiktokOrder>();
  const changes: { operation: string; orderId: string; detail: string }[] = [];
  const orderSchema = opts.answerSchema("GetOrderDetail").properties.data!.properties!.orders!.items!;
  let packages = 0;
  let cancels = 0;

  function add(order: TiktokOrder): void {
    const problems = schemaProblems(order, orderSchema, `order ${order.id}`);
    if (problems.length > 0) throw new Error(`a fake order does not fit the SDK: ${problems.join("; ")}`);
    orders.set(order.id!, clone(order));
  }
  for (const order of opts.orders) add(order);

  function changed(order: TiktokOrder): void {
    order.update_time = seconds(now());
  }

  /** The order's status from its line items, as TikTok moves it. */
  function settle(order: TiktokOrder): void {
    const lines = order.line_items ?? [];
    const live = lines.filter((l) => !cancelled(l));
    if (live.length === 0) {
      order.status = "CANCELLED";
      order.cancel_time = seconds(now());
      order.cancellation_initiator = "SELLER";
    } else if (live.every(shipped)) order.status = "AWAITING_COLLECTION";
    else if (live.some(shipped)) order.status = "PARTIALLY_SHIPPING";
    changed(order);
  }

  function newPackage(order: TiktokOrder): string {
    packages += 1;
    const id = `58${String(packages).padStart(17, "0")}`;
    order.packages = [...(order.packages ?? []), { id }];
    return id;
  }

  function shipLines(order: TiktokOrder, lines: TiktokLineItem[], tracking: string, provider: string): void {
    for (const l of lines) {
      l.tracking_number = tracking;
      l.shipping_provider_id = provider;
      l.shipping_provider_name = providers[provider];
      l.package_status = "PROCESSING";
      l.display_status = "AWAITING_COLLECTION";
      l.rts_time = seconds(now());
    }
    order.tracking_number = tracking;
    order.shipping_provider_id = provider;
    order.shipping_provider = providers[provider];
    settle(order);
  }

  /** The order a package belongs to, with the package's line items. */
  function packageOf(packageId: string): { order: TiktokOrder; lines: TiktokLineItem[] } | null {
    for (const order of orders.values()) {
      const lines = (order.line_items ?? []).filter((l) => l.package_id === packageId);
      if (lines.length > 0) return { order, lines };
    }
    return null;
  }

  function fulfillable(order: TiktokOrder): Response | null {
    if (order.status !== "AWAITING_SHIPMENT" && order.status !== "PARTIALLY_SHIPPING")
      return refuse(21011002, `The order ${order.id} is in status ${order.status} and cannot be fulfilled.`);
    if (order.shipping_type === "TIKTOK") return refuse(21011003, `The order ${order.id} ships with TikTok's carrier: self shipment is not allowed.`);
    return null;
  }

  function checkShipment(tracking: unknown, provider: unknown): Response | null {
    if (typeof tracking !== "string" || tracking === "") return refuse(21011004, "tracking_number is required for self shipment.");
    if (typeof provider !== "string" || !providers[provider]) return refuse(21011005, `The shipping_provider_id ${JSON.stringify(provider)} is not valid.`);
    return null;
  }

  function getOrderList(query: Record<string, string>, body: Record<string, unknown>): Response {
    const size = Number(query.page_size);
    const field = query.sort_field ?? "create_time";
    const descending = (query.sort_order ?? "DESC") === "DESC";
    const search = digest(JSON.stringify([body, field, descending]));
    let offset = 0;
    if (query.page_token !== undefined) {
      const [at, of] = (() => {
        try {
          return atob(query.page_token).split(":");
        } catch {
          return [];
        }
      })();
      if (of !== search || !/^\d+$/.test(at ?? "")) return refuse(36009004, "Invalid page_token: it belongs to another search.", 400);
      offset = Number(at);
    }
    const inRange = (value: number | undefined, ge: string, lt: string) =>
      (body[ge] === undefined || (value ?? 0) >= (body[ge] as number)) && (body[lt] === undefined || (value ?? 0) < (body[lt] as number));
    const key = (o: TiktokOrder) => (field === "update_time" ? o.update_time! : o.create_time!);
    const matching = [...orders.values()]
      .filter((o) => inRange(o.update_time, "update_time_ge", "update_time_lt") && inRange(o.create_time, "create_time_ge", "create_time_lt"))
      .filter((o) => body.order_status === undefined || o.status === body.order_status)
      .sort((a, b) => (descending ? key(b) - key(a) : key(a) - key(b)) || (a.id! < b.id! ? -1 : 1));
    const next = offset + size < matching.length ? btoa(`${offset + size}:${search}`) : "";
    return ok({ orders: matching.slice(offset, offset + size).map(clone), next_page_token: next, total_count: matching.length });
  }

  function shipPackage(packageId: string, body: { self_shipment?: { tracking_number?: string; shipping_provider_id?: string } }): Response {
    const found = packageOf(packageId);
    if (!found) return refuse(21011001, `The package ${packageId} is not found.`);
    const { order, lines } = found;
    const wrong = fulfillable(order) ?? checkShipment(body.self_shipment?.tracking_number, body.self_shipment?.shipping_provider_id);
    if (wrong) return wrong;
    const toShip = lines.filter(open);
    if (toShip.length === 0) return refuse(21011006, `The package ${packageId} is already shipped or cancelled.`);
    shipLines(order, toShip, body.self_shipment!.tracking_number!, body.self_shipment!.shipping_provider_id!);
    changes.push({
      operation: "ShipPackage",
      orderId: order.id!,
      detail: `${packageId}: ${toShip.map((l) => l.id).join(",")} ${body.self_shipment!.tracking_number}`,
    });
    return ok({});
  }

  /** The line items named, all of this order and open; or TikTok's refusal. */
  function openLines(order: TiktokOrder, ids: string[]): TiktokLineItem[] | Response {
    const lines = ids.map((id) => (order.line_items ?? []).find((l) => l.id === id));
    const unknown = ids.filter((_, i) => !lines[i]);
    if (unknown.length > 0) return refuse(21011007, `The line items ${unknown.join(", ")} are not in order ${order.id}.`);
    const closed = lines.filter((l) => !open(l!));
    if (closed.length > 0) return refuse(21011008, `The line items ${closed.map((l) => l!.id).join(", ")} are shipped or cancelled.`);
    if (new Set(ids).size !== ids.length) return refuse(21011007, "A line item is named twice.");
    return lines as TiktokLineItem[];
  }

  function splitOrders(orderId: string, body: { splittable_groups?: { id?: string; order_line_item_ids?: string[] }[] }): Response {
    const order = orders.get(orderId);
    if (!order) return refuse(21011001, `The order ${orderId} is not found.`);
    const wrong = fulfillable(order);
    if (wrong) return wrong;
    const groups = body.splittable_groups ?? [];
    if (groups.length === 0 || groups.some((g) => !g.id || !g.order_line_item_ids?.length))
      return refuse(21011009, "Each splittable group needs an id and line items.");
    const lines = openLines(
      order,
      groups.flatMap((g) => g.order_line_item_ids!),
    );
    if (lines instanceof Response) return lines;
    const made = groups.map((g) => {
      const id = newPackage(order);
      for (const l of order.line_items!) if (g.order_line_item_ids!.includes(l.id!)) l.package_id = id;
      return { id, splittable_group_id: g.id! };
    });
    changed(order);
    changes.push({
      operation: "SplitOrders",
      orderId,
      detail: made.map((p) => `${p.id}: ${groups.find((g) => g.id === p.splittable_group_id)!.order_line_item_ids!.join(",")}`).join("; "),
    });
    return ok({ packages: made });
  }

  function markPackageAsShipped(orderId: string, body: { order_line_item_ids?: string[]; tracking_number?: string; shipping_provider_id?: string }): Response {
    const order = orders.get(orderId);
    if (!order) return refuse(21011001, `The order ${orderId} is not found.`);
    const wrong = fulfillable(order) ?? checkShipment(body.tracking_number, body.shipping_provider_id);
    if (wrong) return wrong;
    const lines = openLines(order, body.order_line_item_ids ?? []);
    if (lines instanceof Response) return lines;
    if (lines.length === 0) return refuse(21011009, "order_line_item_ids is required.");
    const packageId = newPackage(order);
    for (const l of lines) l.package_id = packageId;
    shipLines(order, lines, body.tracking_number!, body.shipping_provider_id!);
    changes.push({ operation: "MarkPackageAsShipped", orderId, detail: `${packageId}: ${lines.map((l) => l.id).join(",")} ${body.tracking_number}` });
    return ok({ order_id: orderId, order_line_item_ids: lines.map((l) => l.id!), package_id: packageId });
  }

  function updatePackageShippingInfo(packageId: string, body: { tracking_number?: string; shipping_provider_id?: string }): Response {
    const found = packageOf(packageId);
    if (!found) return refuse(21011001, `The package ${packageId} is not found.`);
    const wrong = checkShipment(body.tracking_number, body.shipping_provider_id);
    if (wrong) return wrong;
    const sent = found.lines.filter(shipped);
    if (sent.length === 0) return refuse(21011006, `The package ${packageId} is not shipped yet.`);
    shipLines(found.order, sent, body.tracking_number!, body.shipping_provider_id!);
    changes.push({ operation: "UpdatePackageShippingInfo", orderId: found.order.id!, detail: `${packageId}: ${body.tracking_number}` });
    return ok({});
  }

  function cancelOrder(body: { order_id?: string; cancel_reason?: string; order_line_item_ids?: string[] }): Response {
    const order = orders.get(body.order_id ?? "");
    if (!order) return refuse(21011001, `The order ${body.order_id} is not found.`);
    if (!body.cancel_reason) return refuse(21011009, "cancel_reason is required.");
    if (order.status === "CANCELLED") return refuse(21011002, `The order ${order.id} is already cancelled.`);
    const all = order.line_items ?? [];
    let lines: TiktokLineItem[];
    if (body.order_line_item_ids) {
      const named = openLines(order, body.order_line_item_ids);
      if (named instanceof Response) return named;
      lines = named;
    } else {
      if (all.some(shipped)) return refuse(21011002, `The order ${order.id} is partly shipped: name the line items to cancel.`);
      lines = all.filter(open);
    }
    for (const l of lines) {
      l.display_status = "CANCELLED";
      l.package_status = "CANCELLED";
      l.cancel_user = "SELLER";
      l.cancel_reason = body.cancel_reason;
    }
    settle(order);
    cancels += 1;
    const cancelId = `41${String(cancels).padStart(16, "0")}`;
    changes.push({ operation: "CancelOrder", orderId: order.id!, detail: lines.map((l) => l.id).join(",") });
    return ok({ cancel_id: cancelId, cancel_status: "CANCELLATION_REQUEST_COMPLETE" });
  }

  return {
    orders,
    changes,
    add,
    /** Changes an order as TikTok would (its update_time becomes the fake's now). */
    touch(orderId: string, change: (order: TiktokOrder) => void = () => {}) {
      const order = orders.get(orderId);
      if (!order) throw new Error(`the fake has no order ${orderId}`);
      change(order);
      changed(order);
    },
    handle(operation: string, path: Record<string, string>, query: Record<string, string>, body: unknown): Response {
      const json = (body ?? {}) as Record<string, never>;
      switch (operation) {
        case "GetOrderList":
          return getOrderList(query, json);
        case "GetOrderDetail":
          return ok({ orders: query.ids!.split(",").flatMap((id) => (orders.has(id) ? [clone(orders.get(id)!)] : [])) });
        case "ShipPackage":
          return shipPackage(path.package_id!, json);
        case "SplitOrders":
          return splitOrders(path.order_id!, json);
        case "MarkPackageAsShipped":
          return markPackageAsShipped(path.order_id!, json);
        case "UpdatePackageShippingInfo":
          return updatePackageShippingInfo(path.package_id!, json);
        case "CancelOrder":
          return cancelOrder(json);
        default:
          return refuse(36009009, `${operation} is not played by this fake.`, 404);
      }
    },
  };
}
