// Orders for the fake eBay, in the shape of the description's Order schema. The stored
// description carries no examples, so these are written here from its field descriptions (the
// order id format of its createShippingFulfillment text, "01-03955-36441"; amounts as strings
// with a currency; the enumeration values it names: SHIP_TO, NOT_STARTED, NONE_REQUESTED, EBAY,
// PAID). The fake checks every order it serves against the schema, so none can drift from it.
import type { EbayLineItem, EbayOrder } from "../../../src/marketplaces/ebay/ebay.types";

export interface SampleLine {
  lineItemId: string;
  sku?: string | null;
  legacyItemId?: string;
  title?: string;
  quantity: number;
  /** The unit price; lineItemCost is this times the quantity. */
  unitPrice: string;
  tax?: string;
  promotion?: string;
  shipping?: string;
}

export interface SampleOrder {
  orderId: string;
  created: Date;
  modified: Date;
  lines: SampleLine[];
  salesRecordReference?: string;
  buyer?: string;
  shipTo?: {
    fullName: string;
    addressLine1: string;
    addressLine2?: string;
    city: string;
    stateOrProvince?: string;
    postalCode?: string;
    countryCode: string;
    companyName?: string;
  } | null;
  shippingServiceCode?: string;
  shippingCarrierCode?: string;
  paid?: boolean;
  currency?: string;
}

const money = (value: number, currency: string) => ({ value: value.toFixed(2), currency });
const cents = (s: string | undefined) => Math.round(Number(s ?? "0") * 100);

/** eBay-style order ids: two digits, five, five. */
export function orderIdOf(seq: number): string {
  return `12-${String(10_000 + seq).padStart(5, "0")}-${String(36_441 + seq).padStart(5, "0")}`;
}

export function sampleOrder(o: SampleOrder): EbayOrder {
  const currency = o.currency ?? "USD";
  let subtotal = 0;
  let discount = 0;
  let shipping = 0;
  let tax = 0;
  const lineItems: EbayLineItem[] = o.lines.map((l) => {
    const cost = cents(l.unitPrice) * l.quantity;
    const promo = cents(l.promotion);
    const ship = cents(l.shipping);
    const t = cents(l.tax);
    subtotal += cost;
    discount += promo;
    shipping += ship;
    tax += t;
    const line: EbayLineItem = {
      lineItemId: l.lineItemId,
      legacyItemId: l.legacyItemId ?? `1100${l.lineItemId.slice(-8)}`,
      title: l.title ?? `Item ${l.lineItemId}`,
      quantity: l.quantity,
      lineItemCost: money(cost / 100, currency),
      total: money((cost - promo + ship + t) / 100, currency),
      appliedPromotions: promo ? [{ description: "10% off", discountAmount: money(promo / 100, currency), promotionId: `PROMO-${l.lineItemId}` }] : [],
      taxes: t ? [{ amount: money(t / 100, currency) }] : [],
      deliveryCost: { shippingCost: money(ship / 100, currency) },
      lineItemFulfillmentStatus: "NOT_STARTED",
    };
    if (promo) line.discountedLineItemCost = money((cost - promo) / 100, currency);
    if (l.sku !== null) line.sku = l.sku ?? `SKU-${l.lineItemId}`;
    return line;
  });
  const total = subtotal - discount + shipping + tax;
  const buyer = o.buyer ?? "buyer_one";
  const order: EbayOrder = {
    orderId: o.orderId,
    creationDate: o.created.toISOString(),
    lastModifiedDate: o.modified.toISOString(),
    orderFulfillmentStatus: "NOT_STARTED",
    orderPaymentStatus: o.paid === false ? "PENDING" : "PAID",
    sellerId: "seller_one",
    buyer: {
      username: buyer,
      buyerRegistrationAddress: {
        fullName: "Ana Souza",
        email: `${buyer}@members.ebay.com`,
        primaryPhone: { phoneNumber: "4155550100" },
        contactAddress: { city: "San Jose", countryCode: "US", postalCode: "95125", stateOrProvince: "CA" },
      },
    },
    pricingSummary: {
      priceSubtotal: money(subtotal / 100, currency),
      ...(discount ? { priceDiscount: money(-discount / 100, currency) } : {}),
      deliveryCost: money(shipping / 100, currency),
      ...(tax ? { tax: money(tax / 100, currency) } : {}),
      total: money(total / 100, currency),
    },
    cancelStatus: { cancelState: "NONE_REQUESTED", cancelRequests: [] },
    paymentSummary: {
      payments:
        o.paid === false
          ? []
          : [
              {
                paymentMethod: "EBAY",
                paymentStatus: "PAID",
                paymentDate: new Date(o.created.getTime() + 60_000).toISOString(),
                amount: money(total / 100, currency),
              },
            ],
      refunds: [],
      totalDueSeller: money(total / 100, currency),
    },
    fulfillmentStartInstructions: [
      {
        fulfillmentInstructionsType: "SHIP_TO",
        ebaySupportedFulfillment: false,
        minEstimatedDeliveryDate: new Date(o.created.getTime() + 3 * 86_400_000).toISOString(),
        maxEstimatedDeliveryDate: new Date(o.created.getTime() + 6 * 86_400_000).toISOString(),
        ...(o.shipTo === null
          ? {}
          : {
              shippingStep: {
                shippingCarrierCode: o.shippingCarrierCode ?? "USPS",
                shippingServiceCode: o.shippingServiceCode ?? "USPSPriority",
                shipTo: {
                  fullName: o.shipTo?.fullName ?? "Ana Maria Souza",
                  ...(o.shipTo?.companyName ? { companyName: o.shipTo.companyName } : {}),
                  email: `${buyer}@members.ebay.com`,
                  primaryPhone: { phoneNumber: "4155550199" },
                  contactAddress: {
                    addressLine1: o.shipTo?.addressLine1 ?? "2145 Hamilton Ave",
                    ...((o.shipTo?.addressLine2 ?? "Unit 4") ? { addressLine2: o.shipTo?.addressLine2 ?? "Unit 4" } : {}),
                    city: o.shipTo?.city ?? "San Jose",
                    stateOrProvince: o.shipTo?.stateOrProvince ?? "CA",
                    postalCode: o.shipTo?.postalCode ?? "95125",
                    countryCode: o.shipTo?.countryCode ?? "US",
                  },
                },
              },
            }),
      },
    ],
    lineItems,
  };
  if (o.salesRecordReference !== undefined) order.salesRecordReference = o.salesRecordReference;
  return order;
}
