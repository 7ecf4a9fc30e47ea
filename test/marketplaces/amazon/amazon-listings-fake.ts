// The stock and price half of the fake Amazon (amazon-fake.ts routes patchListingsItem here after
// holding the request to the Listings Items model: path, query, token, body schema, usage plan).
// What this adds is the model's and the reference README's rules for the two offer attributes the
// connector patches: only top-level attributes (`/attributes/<name>`, the model: "Patching nested
// attributes is not supported"), one marketplace, `fulfillment_availability` as
// `[{fulfillment_channel_code, quantity}]` and `purchasable_offer` as `[{marketplace_id,
// currency, our_price: [{schedule: [{value_with_tax}]}]}]` for a marketplace of the query. It
// keeps each SKU's quantity and price. Chosen where the model is silent (UNCONFIRMED): a SKU the
// seller has no listing for is answered 404 with the text the same path's GET and DELETE use;
// `invalidSkus` are answered INVALID with the issue of the model's own VALIDATION_INVALID case.
export interface AmazonListingsOptions {
  /** SKUs the seller has listings for; any other is answered 404. Default: every SKU. */
  knownSkus?: string[];
  /** SKUs whose patch Amazon finds INVALID. */
  invalidSkus?: string[];
}

export const AMAZON_FAKE_SELLER_ID = "A2FAKESELLER01";
const ATTRIBUTES = new Set(["fulfillment_availability", "purchasable_offer"]);

type Answer = { status: number; body: unknown };

export function amazonListingsFake(opts: AmazonListingsOptions = {}) {
  const known = opts.knownSkus ? new Set(opts.knownSkus) : null;
  const invalid = new Set(opts.invalidSkus ?? []);
  const items = new Map<string, { quantity?: number; price?: number; currency?: string }>();
  let submissions = 0;

  /** Problems with the request (a violation), or Amazon's answer. */
  function patch(
    sellerId: string,
    sku: string,
    query: Record<string, unknown>,
    body: { productType?: string; patches?: { op: string; path: string; value?: Record<string, unknown>[] }[] },
  ): string[] | Answer {
    const problems: string[] = [];
    if (sellerId !== AMAZON_FAKE_SELLER_ID) problems.push(`sellerId ${sellerId} is not the seller's (${AMAZON_FAKE_SELLER_ID})`);
    const marketplaces = (query.marketplaceIds as string[] | undefined) ?? [];
    if (marketplaces.length !== 1) problems.push("marketplaceIds must name one marketplace (the connector patches one)");
    if (!body.productType?.trim()) problems.push("productType must not be empty");
    let quantity: number | undefined;
    let price: { amount: number; currency: string } | undefined;
    for (const [i, p] of (body.patches ?? []).entries()) {
      const where = `patches[${i}]`;
      const name = /^\/attributes\/([a-z_]+)$/.exec(p.path)?.[1];
      if (!name) {
        problems.push(`${where}.path ${p.path} is not a top-level attribute (/attributes/<name>)`);
        continue;
      }
      if (!ATTRIBUTES.has(name)) problems.push(`${where}.path ${p.path} is not an offer attribute the connector should change`);
      if (p.op !== "merge" && p.op !== "replace") problems.push(`${where}.op ${p.op} would not set ${name}`);
      const value = p.value ?? [];
      if (value.length !== 1) problems.push(`${where}.value must hold one entry`);
      const v = value[0] ?? {};
      if (name === "fulfillment_availability") {
        if (v.fulfillment_channel_code !== "DEFAULT") problems.push(`${where}.value[0].fulfillment_channel_code must be DEFAULT (seller-fulfilled)`);
        if (!Number.isInteger(v.quantity) || (v.quantity as number) < 0) problems.push(`${where}.value[0].quantity must be a whole number >= 0`);
        quantity = v.quantity as number;
      }
      if (name === "purchasable_offer") {
        if (!marketplaces.includes(v.marketplace_id as string)) problems.push(`${where}.value[0].marketplace_id must be the marketplace of the query`);
        if (typeof v.currency !== "string" || !/^[A-Z]{3}$/.test(v.currency)) problems.push(`${where}.value[0].currency must be a currency code`);
        const amount = (v.our_price as { schedule?: { value_with_tax?: unknown }[] }[] | undefined)?.[0]?.schedule?.[0]?.value_with_tax;
        if (typeof amount !== "number" || amount < 0) problems.push(`${where}.value[0].our_price[0].schedule[0].value_with_tax must be a number >= 0`);
        price = { amount: amount as number, currency: v.currency as string };
      }
    }
    if (problems.length > 0) return problems;
    if (known && !known.has(sku))
      return { status: 404, body: { errors: [{ code: "NOT_FOUND", message: "The resource specified does not exist.", details: `SKU ${sku}` }] } };
    submissions += 1;
    const submissionId = `fake-submission-${submissions}`;
    if (invalid.has(sku)) {
      const issues = [
        {
          code: "90000900",
          message: "The attributes are invalid.",
          severity: "ERROR",
          attributeNames: ["purchasable_offer"],
          categories: ["INVALID_ATTRIBUTE"],
        },
      ];
      return { status: 200, body: { sku, status: "INVALID", submissionId, issues } };
    }
    const item = items.get(sku) ?? {};
    if (quantity !== undefined) item.quantity = quantity;
    if (price) Object.assign(item, { price: price.amount, currency: price.currency });
    items.set(sku, item);
    return { status: 200, body: { sku, status: "ACCEPTED", submissionId, issues: [] } };
  }

  return { patch, item: (sku: string) => items.get(sku) };
}
