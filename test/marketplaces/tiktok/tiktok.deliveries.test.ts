// TikTok Shop deliveries call by call against the fake: a shipment ships the order's package with
// the seller's tracking number and TikTok's shipping provider id (found by carrier name); some lines
// of a package are split off first; lines in no package go through MarkPackageAsShipped; a second
// shipment of a shipped order corrects the tracking number; every delivery reads the order first,
// so a repeated one sends nothing twice. Cancellation goes through the seller cancellation call,
// the whole order or the lines not shipped. What TikTok ships itself, and acknowledgements, are
// NotApplicable with the reason.
import { describe, expect, it } from "vitest";
import { rejection } from "../../helpers/rejection";
import { cancelDelivery, HOUR, importAll, importedOrders, lineId, orderAt, orderId, packageIdOf, setup, shipDelivery, START, UPS, USPS } from "./tiktok-setup";

describe("TikTok Shop shipments", () => {
  it("ships the order's package with self_shipment (tracking without spaces, the carrier's provider id), once", async () => {
    const { fake, connector } = setup({ orders: [orderAt(1, {}, 2)] });
    const order = (await importedOrders(connector)).get(orderId(1))!;
    const delivery = shipDelivery(order, { trackingNumber: "9400 1118 9922 3197 4284 90", carrier: "usps" });
    expect(await connector.ship(delivery)).toEqual({ state: "delivered", reference: packageIdOf(1), warning: null });
    const ship = fake.requestsOf("api", "ShipPackage");
    expect(ship.map((r) => [r.path, r.body])).toEqual([
      [`/fulfillment/202309/packages/${packageIdOf(1)}/ship`, { self_shipment: { tracking_number: "9400111899223197428490", shipping_provider_id: USPS } }],
    ]);
    expect(fake.orders.get(orderId(1))!.status).toBe("AWAITING_COLLECTION");

    // The same delivery again (its answer was lost, say): the order is read, nothing is sent.
    expect(await connector.ship(delivery)).toEqual({
      state: "delivered",
      reference: null,
      warning: "TikTok already had this tracking number (an earlier attempt reached it); nothing sent again",
    });
    expect(fake.requestsOf("api", "ShipPackage")).toHaveLength(1);
    expect([fake.violations, fake.refusals]).toEqual([[], []]);
  });

  it("finds the provider by the carrier's long name, else the default; refuses a shipment without a provider or a tracking number", async () => {
    const { fake, connector, make } = setup({ orders: [orderAt(1), orderAt(2), orderAt(3)] });
    const orders = await importedOrders(connector);
    await connector.ship(shipDelivery(orders.get(orderId(1))!, { carrier: "United Parcel Service" }));
    await make({ shippingProviderId: USPS }).ship(shipDelivery(orders.get(orderId(2))!, { carrier: "Some Local Courier" }));
    expect(
      fake.requestsOf("api", "ShipPackage").map((r) => (r.body as { self_shipment: { shipping_provider_id: string } }).self_shipment.shipping_provider_id),
    ).toEqual([UPS, USPS]);

    const none = await rejection(connector.ship(shipDelivery(orders.get(orderId(3))!, { carrier: "Some Local Courier" })));
    expect([none.retryable, none.message]).toEqual([
      false,
      'TikTok has no shipping_provider_id for carrier "Some Local Courier": add it to the source\'s shippingProviders or set shippingProviderId',
    ]);
    const untracked = await rejection(connector.ship(shipDelivery(orders.get(orderId(3))!, { trackingNumber: null })));
    expect([untracked.retryable, untracked.message]).toEqual([
      false,
      "TikTok needs a tracking number to ship a package the seller ships (ShipPackage's self_shipment)",
    ]);
    expect(fake.requestsOf("api", "ShipPackage")).toHaveLength(2);
  });

  it("splits some lines of a package into their own package first, then ships it; the rest ships later in the package left", async () => {
    const { fake, connector } = setup({ orders: [orderAt(1, {}, 3)] });
    const order = (await importedOrders(connector)).get(orderId(1))!;
    const first = shipDelivery(order, { trackingNumber: "1Z999AA10123456784", carrier: "UPS", lines: [lineId(1, 1), lineId(1, 3)] });
    const outcome = await connector.ship(first);
    expect(fake.requestsOf("api", "SplitOrders").map((r) => [r.path, r.body])).toEqual([
      [`/fulfillment/202309/orders/${orderId(1)}/split`, { splittable_groups: [{ id: `${first.id}-1`, order_line_item_ids: [lineId(1, 1), lineId(1, 3)] }] }],
    ]);
    expect(outcome).toEqual({ state: "delivered", reference: "5800000000000000001", warning: null });
    expect(fake.orders.get(orderId(1))!.status).toBe("PARTIALLY_SHIPPING");

    const rest = await connector.ship(shipDelivery(order, { trackingNumber: "1Z999AA10123456785", carrier: "UPS", lines: [lineId(1, 2)] }));
    expect(rest).toEqual({ state: "delivered", reference: packageIdOf(1), warning: null });
    expect(fake.fulfilled.map((c) => [c.operation, c.detail])).toEqual([
      ["SplitOrders", `5800000000000000001: ${lineId(1, 1)},${lineId(1, 3)}`],
      ["ShipPackage", `5800000000000000001: ${lineId(1, 1)},${lineId(1, 3)} 1Z999AA10123456784`],
      ["ShipPackage", `${packageIdOf(1)}: ${lineId(1, 2)} 1Z999AA10123456785`],
    ]);
    expect(fake.orders.get(orderId(1))!.status).toBe("AWAITING_COLLECTION");
    expect([fake.violations, fake.refusals]).toEqual([[], []]);
  });

  it("ships lines in no package with MarkPackageAsShipped, and corrects a shipped order's tracking with UpdatePackageShippingInfo", async () => {
    const { fake, connector } = setup({ orders: [orderAt(1, { packageId: null }, 2)] });
    const order = (await importedOrders(connector)).get(orderId(1))!;
    expect(await connector.ship(shipDelivery(order))).toEqual({ state: "delivered", reference: "5800000000000000001", warning: null });
    expect(fake.requestsOf("api", "MarkPackageAsShipped").map((r) => r.body)).toEqual([
      { order_line_item_ids: [lineId(1, 1), lineId(1, 2)], tracking_number: "9400111899223197428490", shipping_provider_id: USPS },
    ]);
    const corrected = await connector.ship(shipDelivery(order, { trackingNumber: "9400111899223197428491" }));
    expect(corrected).toEqual({ state: "delivered", reference: "5800000000000000001", warning: "tracking number corrected on package 5800000000000000001" });
    expect(fake.requestsOf("api", "UpdatePackageShippingInfo").map((r) => [r.path, r.body])).toEqual([
      ["/fulfillment/202309/packages/5800000000000000001/shipping_info/update", { tracking_number: "9400111899223197428491", shipping_provider_id: USPS }],
    ]);
    expect(fake.orders.get(orderId(1))!.line_items!.map((l) => l.tracking_number)).toEqual(["9400111899223197428491", "9400111899223197428491"]);
    expect([fake.violations, fake.refusals]).toEqual([[], []]);
  });

  it("ships every line item of an order whose lines are not TikTok's (inserted by the seller's system and claimed), but refuses a part of one", async () => {
    const { fake, connector } = setup({ orders: [orderAt(1, {}, 2)] });
    const imported = (await importedOrders(connector)).get(orderId(1))!;
    const claimed = { ...imported, items: [{ ...imported.items[0]!, sourceLineId: "1", quantity: 2 }] };
    const partial = shipDelivery(claimed);
    partial.shipment.lines = [{ sourceLineId: "1", quantity: 1 }];
    const refused = await rejection(connector.ship(partial));
    expect(refused.message).toBe(`TikTok order ${orderId(1)} has no line items 1`);
    expect(await connector.ship(shipDelivery(claimed))).toEqual({ state: "delivered", reference: packageIdOf(1), warning: null });
    expect(fake.fulfilled.map((c) => c.detail)).toEqual([`${packageIdOf(1)}: ${lineId(1, 1)},${lineId(1, 2)} 9400111899223197428490`]);
  });

  it("says TikTok ships what it ships itself (NotApplicable), refuses a cancelled order, and has no acknowledgement", async () => {
    const { fake, connector } = setup({
      orders: [orderAt(1, { shippingType: "TIKTOK" }), orderAt(2, { fulfillmentType: "FULFILLMENT_BY_TIKTOK" }), orderAt(3)],
    });
    const orders = await importedOrders(connector);
    expect(connector.notApplicable!(shipDelivery(orders.get(orderId(1))!))).toBe(
      "TikTok ships this order with its own carrier (shipping_type TIKTOK): the seller arranges the handover in Seller Center and TikTok gives the " +
        "tracking number",
    );
    expect(connector.notApplicable!(shipDelivery(orders.get(orderId(2))!))).toBe(
      "TikTok fulfils this order from its own warehouses (FULFILLMENT_BY_TIKTOK): there is nothing for the seller to ship",
    );
    expect(connector.notApplicable!(shipDelivery(orders.get(orderId(3))!))).toBeNull();
    fake.touch(orderId(3), (o) => {
      o.status = "CANCELLED";
      for (const l of o.line_items!) l.display_status = "CANCELLED";
    });
    const cancelled = await rejection(connector.ship(shipDelivery(orders.get(orderId(3))!)));
    expect([cancelled.retryable, cancelled.message]).toEqual([false, `TikTok order ${orderId(3)} is cancelled on TikTok: nothing was shipped`]);
    expect(await connector.acknowledge({ ...shipDelivery(orders.get(orderId(3))!), kind: "acknowledge", sellerOrderNumber: null })).toEqual({
      state: "notApplicable",
      reason: "TikTok Shop has no order acknowledgement: a paid order (AWAITING_SHIPMENT) is the seller's to ship as it is",
    });
    expect(fake.requestsOf("api", "ShipPackage")).toHaveLength(0);
  });

  it("fails a shipment TikTok refuses with TikTok's code and message (a 200 with an error inside)", async () => {
    const { fake, connector } = setup();
    const order = (await importedOrders(connector)).get(orderId(1))!;
    fake.failNext({
      status: 200,
      body: { code: 21011005, message: "The shipping_provider_id is not valid.", request_id: "R2", data: null },
      operation: "ShipPackage",
    });
    const refused = await rejection(connector.ship(shipDelivery(order)));
    expect([refused.status, refused.retryable, refused.message]).toEqual([
      200,
      false,
      "TikTok 21011005 on ShipPackage: The shipping_provider_id is not valid. (request_id R2)",
    ]);
    fake.failNext({ status: 503, operation: "ShipPackage" });
    const down = await rejection(connector.ship(shipDelivery(order)));
    expect([down.status, down.retryable, down.message.replace(/ \(request_id \w+\)/, "")]).toEqual([
      503,
      true,
      "TikTok 36009003 on ShipPackage (HTTP 503): Internal error.",
    ]);
  });
});

describe("TikTok Shop cancellations", () => {
  it("cancels the whole order with the seller cancellation call and the Settings' reason, once", async () => {
    const { fake, connector, make } = setup({ orders: [orderAt(1, {}, 2), orderAt(2)] });
    const orders = await importedOrders(connector);
    const delivery = cancelDelivery(orders.get(orderId(1))!);
    expect(await connector.cancel(delivery)).toEqual({ state: "delivered", reference: "410000000000000001", warning: null });
    expect(fake.requestsOf("api", "CancelOrder").map((r) => r.body)).toEqual([{ order_id: orderId(1), cancel_reason: "seller_cancel_reason_out_of_stock" }]);
    expect(fake.orders.get(orderId(1))!.status).toBe("CANCELLED");
    expect(await connector.cancel(delivery)).toEqual({
      state: "delivered",
      reference: null,
      warning: "TikTok already shows the order cancelled; nothing sent",
    });
    await make({ cancelReason: "seller_cancel_reason_wrong_price" }).cancel(cancelDelivery(orders.get(orderId(2))!));
    expect(fake.requestsOf("api", "CancelOrder").map((r) => (r.body as { cancel_reason: string }).cancel_reason)).toEqual([
      "seller_cancel_reason_out_of_stock",
      "seller_cancel_reason_wrong_price",
    ]);
    expect([fake.violations, fake.refusals]).toEqual([[], []]);
  });

  it("cancels only the lines not shipped of a partly shipped order, and refuses an order with nothing left to cancel", async () => {
    const { fake, connector } = setup({ orders: [orderAt(1, {}, 2)] });
    const order = (await importedOrders(connector)).get(orderId(1))!;
    await connector.ship(shipDelivery(order, { lines: [lineId(1, 1)] }));
    expect(await connector.cancel(cancelDelivery(order))).toEqual({
      state: "delivered",
      reference: "410000000000000001",
      warning: `only the line items not shipped were cancelled (${lineId(1, 2)})`,
    });
    expect(fake.requestsOf("api", "CancelOrder").map((r) => r.body)).toEqual([
      { order_id: orderId(1), cancel_reason: "seller_cancel_reason_out_of_stock", order_line_item_ids: [lineId(1, 2)] },
    ]);
    expect(fake.orders.get(orderId(1))!.line_items!.map((l) => l.display_status)).toEqual(["AWAITING_COLLECTION", "CANCELLED"]);
    const nothing = await rejection(connector.cancel(cancelDelivery(order)));
    expect([nothing.retryable, nothing.message]).toEqual([
      false,
      `TikTok order ${orderId(1)} has no line item left to cancel: every one is shipped or cancelled`,
    ]);
    expect([fake.violations, fake.refusals]).toEqual([[], []]);
  });
});

describe("TikTok Shop lines (decisions 12)", () => {
  it(
    "cancels exactly the line items a line cancellation names; one TikTok shows cancelled is not sent again, a shipped or unknown one refuses the " +
      "delivery",
    async () => {
      const { fake, connector } = setup({ orders: [orderAt(1, {}, 3)] });
      const order = (await importedOrders(connector)).get(orderId(1))!;
      const second = cancelDelivery(order, [lineId(1, 2)]);
      expect(await connector.cancel(second)).toEqual({ state: "delivered", reference: "410000000000000001", warning: null });
      expect(fake.requestsOf("api", "CancelOrder").map((r) => r.body)).toEqual([
        { order_id: orderId(1), cancel_reason: "seller_cancel_reason_out_of_stock", order_line_item_ids: [lineId(1, 2)] },
      ]);
      expect(fake.orders.get(orderId(1))!.line_items!.map((l) => l.display_status)).toEqual(["AWAITING_SHIPMENT", "CANCELLED", "AWAITING_SHIPMENT"]);
      // The same delivery again (its answer lost): TikTok shows the line cancelled, nothing is sent.
      expect(await connector.cancel(second)).toEqual({
        state: "delivered",
        reference: null,
        warning: "TikTok already shows these line items cancelled; nothing sent",
      });

      await connector.ship(shipDelivery(order, { lines: [lineId(1, 1)] }));
      const shipped = await rejection(connector.cancel(cancelDelivery(order, [lineId(1, 1), lineId(1, 3)])));
      expect([shipped.retryable, shipped.message]).toEqual([
        false,
        `TikTok order ${orderId(1)}: line items ${lineId(1, 1)} are shipped on TikTok and cannot be cancelled`,
      ]);
      const unknown = await rejection(connector.cancel(cancelDelivery(order, ["576461413000009999"])));
      expect([unknown.retryable, unknown.message]).toEqual([false, `TikTok order ${orderId(1)} has no line items 576461413000009999`]);
      const two = cancelDelivery(order, [lineId(1, 3)]);
      two.lines = [{ sourceLineId: lineId(1, 3), quantity: 2 }];
      const tooMany = await rejection(connector.cancel(two));
      expect(tooMany.message).toBe(`TikTok order ${orderId(1)}: a TikTok line item is one unit, and more than one was asked of ${lineId(1, 3)}`);

      expect(await connector.cancel(cancelDelivery(order, [lineId(1, 2), lineId(1, 3)]))).toEqual({
        state: "delivered",
        reference: "410000000000000002",
        warning: "1 line item(s) were cancelled on TikTok already",
      });
      expect(fake.requestsOf("api", "CancelOrder").map((r) => (r.body as { order_line_item_ids: string[] }).order_line_item_ids)).toEqual([
        [lineId(1, 2)],
        [lineId(1, 3)],
      ]);
      expect(fake.orders.get(orderId(1))!.status).toBe("AWAITING_COLLECTION");
      expect([fake.violations, fake.refusals]).toEqual([[], []]);
    },
  );

  it("fails a line cancellation TikTok refuses (outside the US and UK, say) with TikTok's code and message, and retries a throttled one", async () => {
    const { fake, connector } = setup({ orders: [orderAt(1, {}, 2)] });
    const order = (await importedOrders(connector)).get(orderId(1))!;
    fake.failNext({
      status: 200,
      body: { code: 21011010, message: "Partial cancellation is not supported in this region.", request_id: "R7", data: null },
      operation: "CancelOrder",
    });
    const refused = await rejection(connector.cancel(cancelDelivery(order, [lineId(1, 1)])));
    expect([refused.status, refused.retryable, refused.message]).toEqual([
      200,
      false,
      "TikTok 21011010 on CancelOrder: Partial cancellation is not supported in this region. (request_id R7)",
    ]);
    fake.failNext({ status: 429, headers: { "Retry-After": "12" }, operation: "CancelOrder" });
    const throttled = await rejection(connector.cancel(cancelDelivery(order, [lineId(1, 1)])));
    expect([throttled.status, throttled.retryable, throttled.retryAfterMs]).toEqual([429, true, 12_000]);
    expect(fake.orders.get(orderId(1))!.line_items!.map((l) => l.display_status)).toEqual(["AWAITING_SHIPMENT", "AWAITING_SHIPMENT"]);
  });

  it("labels a package's split with the hub's package id, and a package whose answer was lost is not shipped twice", async () => {
    const { fake, connector } = setup({ orders: [orderAt(1, {}, 3)] });
    const order = (await importedOrders(connector)).get(orderId(1))!;
    const delivery = shipDelivery(order, { trackingNumber: "1Z999AA10123456784", carrier: "UPS", lines: [lineId(1, 2)] });
    delivery.shipment.shipmentId = "shp_7";
    fake.loseNextAnswer("ShipPackage");
    const lost = await rejection(connector.ship(delivery));
    expect(lost.retryable).toBe(true);
    expect(fake.requestsOf("api", "SplitOrders").map((r) => r.body)).toEqual([{ splittable_groups: [{ id: "shp_7-1", order_line_item_ids: [lineId(1, 2)] }] }]);
    expect(await connector.ship(delivery)).toEqual({
      state: "delivered",
      reference: null,
      warning: "TikTok already had this tracking number (an earlier attempt reached it); nothing sent again",
    });
    expect(fake.fulfilled.map((c) => c.operation)).toEqual(["SplitOrders", "ShipPackage"]);
    expect(fake.orders.get(orderId(1))!.line_items!.map((l) => l.tracking_number ?? null)).toEqual([null, "1Z999AA10123456784", null]);
  });

  it("imports each line item shipped or cancelled as TikTok has it, and the order's shipped packages, whoever shipped them", async () => {
    const { fake, connector, advance } = setup({ orders: [orderAt(1, {}, 3)] });
    const order = (await importedOrders(connector)).get(orderId(1))!;
    expect(order.shipments).toEqual([]);
    // The seller ships line 1 in Seller Center; the buyer's cancellation of line 3 is granted.
    advance(HOUR);
    fake.touch(orderId(1), (o) => {
      const [one, , three] = o.line_items!;
      Object.assign(one!, {
        package_id: "1150000000000000077",
        package_status: "PROCESSING",
        display_status: "AWAITING_COLLECTION",
        tracking_number: "9400111899223197428499",
        shipping_provider_id: USPS,
        shipping_provider_name: "USPS",
        rts_time: Math.floor(Date.parse("2026-03-01T12:30:00Z") / 1000),
      });
      Object.assign(three!, { display_status: "CANCELLED", package_status: "CANCELLED", cancel_user: "BUYER", cancel_reason: "No longer needed" });
      o.status = "PARTIALLY_SHIPPING";
    });
    // The hub ships line 2 (split off its package, shipped with the seller's tracking).
    await connector.ship(shipDelivery(order, { trackingNumber: "1Z999AA10123456784", carrier: "UPS", lines: [lineId(1, 2)] }));
    advance(HOUR);
    const [page] = await importAll(connector, { since: new Date(START), until: new Date(START + 2 * HOUR) });
    const again = page!.orders[0]!;
    expect(again.items.map((i) => [i.sourceLineId, i.quantity, i.quantityShipped, i.quantityCancelled])).toEqual([
      [lineId(1, 1), 1, 1, 0],
      [lineId(1, 2), 1, 1, 0],
      [lineId(1, 3), 1, 0, 1],
    ]);
    expect(again.shipments).toEqual([
      {
        sourceShipmentId: "1150000000000000077",
        trackingNumber: "9400111899223197428499",
        carrier: "USPS",
        shippingMethod: null,
        shippedAt: new Date("2026-03-01T12:30:00Z"),
        lines: [{ sourceLineId: lineId(1, 1), quantity: 1 }],
      },
      {
        sourceShipmentId: packageIdOf(1),
        trackingNumber: "1Z999AA10123456784",
        carrier: "UPS",
        shippingMethod: null,
        shippedAt: new Date(START + HOUR),
        lines: [{ sourceLineId: lineId(1, 2), quantity: 1 }],
      },
    ]);
    expect(again.sourceOrderStatus).toBe("AWAITING_COLLECTION");
    expect([fake.violations, fake.refusals]).toEqual([[], []]);
  });
});
