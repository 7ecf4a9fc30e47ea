// The simulated marketplace's catalogue of orders: order k of a source is created at
// k × interval (a grid on the epoch, so the rate is steady and a time window maps to a range of
// k) and its content is drawn from a PRNG seeded by (source id, k). The same source therefore
// always sells the same orders, whichever cycle asks and however often.
import type { ImportedOrder, ImportedOrderItem } from "../connector";
import { Unmappable, type OrderReader } from "../kit/orders-page";
import { prng } from "../../lib/prng";

const FIRST_NAMES = ["Ava", "Liam", "Noah", "Mia", "Ethan", "Zoe", "Lucas", "Aria", "Mason", "Chloe", "Omar", "Priya"];
const LAST_NAMES = ["Nguyen", "Smith", "Garcia", "Okafor", "Kowalski", "Jensen", "Haddad", "Tanaka", "Rossi", "Brown"];
const STREETS = ["Maple Ave", "Oak St", "Cedar Ln", "Pine Rd", "Elm St", "Lakeview Dr", "Sunset Blvd", "Hillcrest Ct"];
// City, state, ZIP and the state's sales-tax rate the marketplace collects.
const PLACES: [string, string, string, number][] = [
  ["Austin", "TX", "78701", 0.0825],
  ["Denver", "CO", "80202", 0.0881],
  ["Seattle", "WA", "98101", 0.1025],
  ["Columbus", "OH", "43215", 0.075],
  ["Portland", "OR", "97201", 0],
  ["Raleigh", "NC", "27601", 0.0725],
  ["Phoenix", "AZ", "85004", 0.086],
  ["Boston", "MA", "02108", 0.0625],
];
const CATALOG: [string, string, number][] = [
  ["MUG-BLU-12", "Stoneware mug, blue, 12 oz", 12.5],
  ["TEE-BLK-M", "Organic cotton T-shirt, black, M", 19.99],
  ["BTL-STL-750", "Insulated steel bottle, 750 ml", 24.95],
  ["LMP-DSK-LED", "LED desk lamp with dimmer", 39.0],
  ["BAG-CNV-TOTE", "Canvas tote bag", 14.0],
  ["NTB-A5-DOT", "A5 dotted notebook", 8.75],
  ["CBL-USBC-2M", "USB-C cable, 2 m", 11.49],
  ["SCK-WOOL-L", "Merino socks, L, 3 pairs", 22.0],
  ["CND-SOY-LAV", "Soy candle, lavender", 16.5],
  ["PLN-CER-S", "Ceramic planter, small", 18.25],
  ["HDP-BT-NC", "Bluetooth headphones, noise cancelling", 89.99],
  ["KTL-ELC-1L", "Electric kettle, 1 l", 34.9],
];
const SHIPPING: [method: string, service: string, value: string, price: number][] = [
  ["Standard", "Standard Shipping", "STD", 5.99],
  ["Expedited", "Expedited Shipping", "EXP", 9.99],
  ["NextDay", "Next Day Air", "NDA", 19.99],
];

export interface Grid {
  intervalMs: number;
  /** No order before this time (the marketplace's opening), ms. */
  startAt: number;
  /** No order after this time, ms; null: it keeps selling. */
  endAt: number | null;
}

/** The first and last order index with startAt ≤ created ≤ min(endAt, now), or null if none. */
export function indexRange(grid: Grid, since: number, now: number): { first: number; last: number } | null {
  const from = Math.max(since, grid.startAt);
  const to = Math.min(now, grid.endAt ?? now);
  const first = Math.ceil(from / grid.intervalMs);
  const last = Math.floor(to / grid.intervalMs);
  return first <= last ? { first, last } : null;
}

/** 32-bit FNV-1a of a string. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** The marketplace's order-number prefix of a source: stable, and different between sources. */
export function orderNumberPrefix(sourceId: string): string {
  return `SIM${hash32(sourceId).toString(36).toUpperCase().padStart(7, "0")}`;
}

export function orderNumberOf(sourceId: string, k: number): string {
  return `${orderNumberPrefix(sourceId)}-${k}`;
}

/** The index k of one of this source's order numbers, or null when the number is not its own. */
export function indexOfOrderNumber(sourceId: string, orderNumber: string): number | null {
  const prefix = `${orderNumberPrefix(sourceId)}-`;
  if (!orderNumber.startsWith(prefix)) return null;
  const rest = orderNumber.slice(prefix.length);
  return /^\d{1,15}$/.test(rest) ? Number(rest) : null;
}

export function makeOrder(sourceId: string, k: number, intervalMs: number): ImportedOrder {
  const random = prng(hash32(`${sourceId}:${k}`));
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const firstName = pick(FIRST_NAMES);
  const lastName = pick(LAST_NAMES);
  const [city, state, zip, taxRate] = pick(PLACES);
  const isPrime = random() < 0.3;
  const [method, service, serviceValue, shippingPrice] = isPrime ? SHIPPING[1]! : pick(SHIPPING);
  const lineCount = 1 + Math.floor(random() * 4);
  const items: ImportedOrderItem[] = [];
  let subTotal = 0;
  let itemTax = 0;
  for (let line = 1; line <= lineCount; line++) {
    const [sku, name, price] = pick(CATALOG);
    const quantity = 1 + Math.floor(random() * 3);
    const discount = random() < 0.2 ? round2(price * quantity * 0.1) : 0;
    const tax = round2((price * quantity - discount) * taxRate);
    subTotal += price * quantity - discount;
    itemTax += tax;
    items.push({ sourceLineId: String(line), sku, name, quantity, unitPrice: price, saleTaxCost: tax, discount: discount.toFixed(2) });
  }
  // Prime members ship free; everyone else pays the method's price, taxed like the goods.
  const shippingTotal = isPrime ? 0 : shippingPrice;
  const shippingTaxTotal = round2(shippingTotal * taxRate);
  const giftWrapTotal = random() < 0.15 ? 3.99 : 0;
  const giftWrapTaxTotal = round2(giftWrapTotal * taxRate);
  const token = hash32(`${sourceId}:${k}:buyer`).toString(16).padStart(8, "0");
  const number = orderNumberOf(sourceId, k);
  return {
    sourceOrderNumber: number,
    sourceCustomerOrderNumber: `C${hash32(number).toString().padStart(10, "0")}`,
    sourceOrderStatus: "Created",
    createdAt: new Date(k * intervalMs),
    // Marketplaces hand sellers a relay address and a masked phone, never the buyer's own.
    buyerEmail: `${token}@relay.marketplace.example`,
    buyerPhone: `***-***-${String(hash32(token) % 10000).padStart(4, "0")}`,
    buyerUserId: `B${token}`,
    shipTo: {
      firstName,
      lastName,
      companyName: random() < 0.1 ? `${lastName} & Co.` : null,
      street1: `${1 + Math.floor(random() * 9899)} ${pick(STREETS)}`,
      street2: random() < 0.2 ? `Apt ${1 + Math.floor(random() * 40)}` : "",
      city,
      stateOrProvince: state,
      postalCode: zip,
      country: "US",
    },
    shippingMethod: method,
    shippingServiceName: service,
    shippingServiceValue: serviceValue,
    paymentType: "CreditCard",
    paymentTransactionId: `pay_${hash32(`${number}:pay`).toString(16).padStart(8, "0")}`,
    isPrime,
    subTotal: round2(subTotal),
    shippingTotal,
    shippingTaxTotal,
    giftWrapTotal,
    giftWrapTaxTotal,
    grandTotal: round2(subTotal + itemTax + shippingTotal + shippingTaxTotal + giftWrapTotal + giftWrapTaxTotal),
    items,
  };
}

/**
 * The marketplace's own record of order k: the order with its date as ISO text. Every
 * `malformedEvery`-th order (k divisible by it) has a line without a SKU, which the mapping below
 * refuses, so set-aside orders can be shown without a real marketplace.
 */
export interface SimulatedRecord extends Omit<ImportedOrder, "createdAt"> {
  createdAt: string;
}

export function makeRecord(sourceId: string, k: number, intervalMs: number, malformedEvery: number | null): SimulatedRecord {
  const order = makeOrder(sourceId, k, intervalMs);
  const record: SimulatedRecord = { ...order, createdAt: order.createdAt.toISOString() };
  if (malformedEvery !== null && k % malformedEvery === 0) {
    const line = record.items[record.items.length > 1 ? 1 : 0]!;
    record.items = record.items.map((item) => (item === line ? { ...item, sku: "" } : item));
  }
  return record;
}

/** The record as an order, or why it cannot be one. */
/** How a simulated record is read: the order, or set aside with the reason (a line without a SKU). */
export const simulatedOrderReader: OrderReader = {
  map(raw) {
    const record = raw as SimulatedRecord;
    const missing = record.items.findIndex((item) => item.sku.trim() === "");
    if (missing >= 0) throw new Unmappable(`line ${record.items[missing]!.sourceLineId} has no SKU`);
    const createdAt = new Date(record.createdAt);
    if (Number.isNaN(createdAt.getTime())) throw new Unmappable(`createdAt ${JSON.stringify(record.createdAt)} is not a date`);
    return { ...record, createdAt };
  },
  numberOf: (raw) => String((raw as SimulatedRecord).sourceOrderNumber),
  reason: (message) => message,
};
