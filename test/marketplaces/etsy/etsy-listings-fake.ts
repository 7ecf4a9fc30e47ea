// The stock and price half of the fake Etsy (etsy-fake.ts checks auth, scopes, parameters and the
// body's schema, then routes the three listing operations here): getListingsByShop,
// getListingInventory and updateListingInventory as Etsy's description (etsy-description.json)
// has them. What the description says beyond the schema is held too: updateListingInventory
// "fails if the supplied values for product sku, offering quantity, and/or price are incompatible
// with values in *_on_property_* fields" (without a property, every product has the same value),
// and property values take no parentheses. What the reference README adds from third parties
// (UNCONFIRMED): the whole products array must be sent (a product left out is deleted), read-only
// fields stripped (the schema check refuses them). Each such request is answered 400 and recorded
// in `violations`.
//
// Chosen where the description is silent: a listing id the shop does not have answers 404
// {"error": "Listing N not found"}; updated products and offerings get new ids (as Etsy's
// inventory ids change on every update); a price float becomes Money {amount: cents, divisor: 100}
// in the listing's currency; listings are listed in listing_id order.
import type { EtsyListingInventory, EtsyMoney } from "../../../src/marketplaces/etsy/etsy.types";
import { schemaProblems, type Schema } from "../fake-kit/schema-check";

export interface SampleProduct {
  sku: string | null;
  quantity: number;
  /** Cents. */
  price: number;
  enabled?: boolean;
  /** The variation this product is (a listing with several products has one each). */
  property?: { propertyId: number; name: string; valueId: number; value: string };
}

export interface SampleListing {
  listingId: number;
  state?: "active" | "inactive" | "sold_out" | "draft" | "expired";
  title?: string;
  currency?: string;
  products: SampleProduct[];
  /** Property ids the quantity varies by; empty: one quantity for every product. */
  quantityOnProperty?: number[];
  priceOnProperty?: number[];
  skuOnProperty?: number[];
}

interface StoredListing {
  listingId: number;
  state: string;
  title: string;
  currency: string;
  inventory: EtsyListingInventory;
}

type PutBody = {
  products: {
    sku?: string | null;
    property_values?: { property_id: number; value_ids: number[]; values: string[] }[];
    offerings: { price: number; quantity: number; is_enabled: boolean }[];
  }[];
  price_on_property?: number[];
  quantity_on_property?: number[];
  sku_on_property?: number[];
};

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

/** A variation's identity: its property values' ids, in order. */
const variationOf = (values: { property_id?: number | null; value_ids?: number[] | null }[] | null | undefined) =>
  (values ?? []).map((v) => `${v.property_id}:${(v.value_ids ?? []).join(",")}`).join("|");

export function etsyListingsFake(opts: { shopId: number; listings: SampleListing[]; answerSchemas: Record<string, Schema>; violations: string[] }) {
  const { shopId, violations } = opts;
  const listings = new Map<number, StoredListing>();
  let ids = 0;
  const nextId = () => 5_000_000_000 + ++ids;

  function money(cents: number, currency: string): EtsyMoney {
    return { amount: cents, divisor: 100, currency_code: currency };
  }

  function add(sample: SampleListing): void {
    const currency = sample.currency ?? "USD";
    listings.set(sample.listingId, {
      listingId: sample.listingId,
      state: sample.state ?? "active",
      title: sample.title ?? `Listing ${sample.listingId}`,
      currency,
      inventory: {
        products: sample.products.map((p) => ({
          product_id: nextId(),
          sku: p.sku ?? "",
          is_deleted: false,
          offerings: [{ offering_id: nextId(), quantity: p.quantity, is_enabled: p.enabled ?? true, is_deleted: false, price: money(p.price, currency) }],
          property_values: p.property
            ? [
                {
                  property_id: p.property.propertyId,
                  property_name: p.property.name,
                  scale_id: null,
                  scale_name: null,
                  value_ids: [p.property.valueId],
                  values: [p.property.value],
                },
              ]
            : [],
        })),
        price_on_property: sample.priceOnProperty ?? [],
        quantity_on_property: sample.quantityOnProperty ?? [],
        sku_on_property: sample.skuOnProperty ?? [],
      },
    });
  }
  for (const l of opts.listings) add(l);

  function checked<T>(operationId: string, body: T): Response {
    const problems = schemaProblems(body, opts.answerSchemas[operationId]!, `the fake's own ${operationId} answer`);
    if (problems.length > 0) throw new Error(problems.join("; "));
    return json(200, body);
  }

  function refuse(where: string, problems: string[]): Response {
    for (const p of problems) violations.push(`${where}: ${p}`);
    return json(400, { error: problems.join("; ") });
  }

  const liveProducts = (l: StoredListing) => (l.inventory.products ?? []).filter((p) => !p.is_deleted);

  function shopListing(l: StoredListing, withInventory: boolean) {
    const products = liveProducts(l);
    const offerings = products.flatMap((p) => p.offerings ?? []).filter((o) => !o.is_deleted);
    const cheapest = Math.min(...offerings.map((o) => o.price!.amount!));
    return {
      listing_id: l.listingId,
      shop_id: shopId,
      title: l.title,
      state: l.state,
      quantity: offerings.filter((o) => o.is_enabled).reduce((n, o) => n + o.quantity!, 0),
      price: money(Number.isFinite(cheapest) ? cheapest : 0, l.currency),
      has_variations: products.length > 1,
      skus: [...new Set(products.map((p) => p.sku!).filter(Boolean))],
      ...(withInventory && { inventory: structuredClone(l.inventory) }),
    };
  }

  function getListingsByShop(query: Map<string, unknown>): Response {
    const state = (query.get("state") as string | undefined) ?? "active";
    const includes = (query.get("includes") as string[] | undefined) ?? [];
    const limit = (query.get("limit") as number | undefined) ?? 25;
    const offset = (query.get("offset") as number | undefined) ?? 0;
    const matching = [...listings.values()].filter((l) => l.state === state).sort((a, b) => a.listingId - b.listingId);
    return checked("getListingsByShop", {
      count: matching.length,
      results: matching.slice(offset, offset + limit).map((l) => shopListing(l, includes.includes("Inventory"))),
    });
  }

  /** What the description and the README's notes refuse in a body that fits the schema. */
  function putProblems(listing: StoredListing, body: PutBody): string[] {
    const problems: string[] = [];
    const products = body.products;
    const onProperty = { quantity: body.quantity_on_property ?? [], price: body.price_on_property ?? [], sku: body.sku_on_property ?? [] };
    if (products.length > 1) {
      const same = (values: unknown[]) => values.every((v) => v === values[0]);
      const offerings = products.flatMap((p) => p.offerings);
      if (onProperty.quantity.length === 0 && !same(offerings.map((o) => o.quantity)))
        problems.push("offering quantities differ while quantity_on_property is empty");
      if (onProperty.price.length === 0 && !same(offerings.map((o) => o.price))) problems.push("offering prices differ while price_on_property is empty");
      if (onProperty.sku.length === 0 && !same(products.map((p) => p.sku ?? ""))) problems.push("product skus differ while sku_on_property is empty");
    }
    products.forEach((p, i) => {
      if (p.offerings.length === 0) problems.push(`products[${i}] has no offering`);
      p.offerings.forEach((o, j) => {
        if (!Number.isInteger(o.quantity) || o.quantity < 0) problems.push(`products[${i}].offerings[${j}].quantity must be a whole number >= 0`);
        if (!(o.price > 0)) problems.push(`products[${i}].offerings[${j}].price must be above 0`);
      });
      for (const v of p.property_values ?? []) if (v.values.some((x) => /[()]/.test(x))) problems.push(`products[${i}] has a property value with parentheses`);
    });
    // Etsy replaces the inventory with what is sent: a product left out would be deleted.
    const had = liveProducts(listing)
      .map((p) => `${p.sku}#${variationOf(p.property_values)}`)
      .sort();
    const sent = products.map((p) => `${p.sku ?? ""}#${variationOf(p.property_values)}`).sort();
    if (had.join("\n") !== sent.join("\n"))
      problems.push(`the products sent (${sent.join(", ")}) are not the listing's (${had.join(", ")}): the whole products array must be sent`);
    return problems;
  }

  function updateListingInventory(where: string, listing: StoredListing, body: PutBody): Response {
    const problems = putProblems(listing, body);
    if (problems.length > 0) return refuse(where, problems);
    listing.inventory = {
      products: body.products.map((p) => {
        const before = liveProducts(listing).find((q) => variationOf(q.property_values) === variationOf(p.property_values));
        return {
          product_id: nextId(),
          sku: p.sku ?? "",
          is_deleted: false,
          offerings: p.offerings.map((o) => ({
            offering_id: nextId(),
            quantity: o.quantity,
            is_enabled: o.is_enabled,
            is_deleted: false,
            price: money(Math.round(o.price * 100), listing.currency),
          })),
          property_values: (p.property_values ?? []).map((v, k) => ({ ...before?.property_values?.[k], ...v })),
        };
      }),
      price_on_property: body.price_on_property ?? [],
      quantity_on_property: body.quantity_on_property ?? [],
      sku_on_property: body.sku_on_property ?? [],
    };
    return checked("updateListingInventory", structuredClone(listing.inventory));
  }

  return {
    add,
    handles: (operationId: string) => ["getListingsByShop", "getListingInventory", "updateListingInventory"].includes(operationId),
    handle(operationId: string, where: string, pathValues: Map<string, unknown>, query: Map<string, unknown>, body: unknown): Response {
      if (operationId === "getListingsByShop") return getListingsByShop(query);
      const listing = listings.get(pathValues.get("listing_id") as number);
      if (!listing) return json(404, { error: `Listing ${String(pathValues.get("listing_id"))} not found` });
      if (operationId === "getListingInventory") return checked("getListingInventory", structuredClone(listing.inventory));
      return updateListingInventory(where, listing, body as PutBody);
    },
    /** A Sku's quantity, price (cents) and currency on Etsy now, per product holding it. */
    offeringsOf(sku: string): { listingId: number; quantity: number; price: number; currency: string }[] {
      return [...listings.values()].flatMap((l) =>
        liveProducts(l)
          .filter((p) => p.sku === sku)
          .flatMap((p) =>
            (p.offerings ?? []).map((o) => ({ listingId: l.listingId, quantity: o.quantity!, price: o.price!.amount!, currency: o.price!.currency_code! })),
          ),
      );
    },
    listing: (id: number) => listings.get(id),
  };
}
