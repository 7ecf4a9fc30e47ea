// PUT /v1/{token}/Orders/{orderId}/Refund (decisions 13; scope OrdersUpdate): a seller's refund of
// lines, shipping or a return of the order, recorded and delivered to the marketplace (section 6
// rules). Mounted beside the orders routes, under the same path; the operator's own (the console's
// refund form) under /admin/v1.
import { z } from "zod";
import { requireScope } from "../auth/authorize";
import { storeDb } from "../db/shards";
import { requireStore } from "../stores/stores.queries";
import { createRouter } from "../app-env";
import { ok } from "../http/envelope";
import { documented, envelope } from "../http/openapi";
import { validate } from "../http/validate";
import { refundBody } from "../refunds/refunds.schemas";
import { toWireRefund, wireRefund } from "../refunds/refunds.wire";
import { wakeLater } from "../webhooks/wake";
import { refundOrder } from "./order-refund";
import { orderIdParam } from "./orders.schemas";

export const orderRefundRoutes = createRouter().put(
  "/:orderId/refund",
  documented("token", {
    summary: "Refund lines, shipping or a return of an order",
    description:
      "Each Item's Amount defaults to the line's paid amount (UnitPrice × Quantity − Discount + SaleTaxCost) per unit times Quantity; the refunds of a " +
      "line never add up to more than was paid for it nor to more units than were ordered, and the shipping's never to more than ShippingTotal + " +
      "ShippingTaxTotal. With ReturnId and no Items, the return's lines are refunded. The same call again answers the refund it recorded and records " +
      "nothing new.",
    tags: ["Orders"],
    answer: envelope({ Refund: wireRefund }),
  }),
  requireScope("OrdersUpdate"),
  validate("param", orderIdParam),
  validate("json", refundBody),
  async (c) => {
    const storeId = c.get("caller").storeId;
    const result = await refundOrder(c.get("db"), storeId, c.req.valid("param").orderId, c.req.valid("json"));
    wakeLater(c, storeId, result.webhooks);
    return ok(c, { Refund: toWireRefund(result.refund) });
  },
);

export const orderRefundAdminRoutes = createRouter().put(
  "/stores/:storeId/orders/:orderId/refund",
  documented("admin", {
    summary: "Refund lines, shipping or a return of an order (the console's refund form)",
    tags: ["Orders (operator)"],
    answer: envelope({ Refund: wireRefund }),
  }),
  validate("param", z.object({ storeId: z.string(), orderId: z.string() })),
  validate("json", refundBody),
  async (c) => {
    const { storeId, orderId } = c.req.valid("param");
    const store = await requireStore(c.env, storeId);
    const result = await refundOrder(storeDb(c.env, store), store.id, orderId, c.req.valid("json"));
    wakeLater(c, store.id, result.webhooks);
    return ok(c, { Refund: toWireRefund(result.refund) });
  },
);
