// The stock and price half of the fake TikTok Shop (tiktok-fake.ts checks the signature, token,
// query and body schema, then routes the four product operations here): SearchProducts,
// InventorySearch, UpdateInventory and UpdatePrice as TikTok's SDK describes them
// (tiktok-sdk.json). What the SDK's field descriptions say beyond the schema is held too:
// UpdateInventory takes the SKUs of one product only, each SKU with every warehouse it is stocked
// in ("Do not omit any or add unrelated warehouses"), a quantity in [0, 99,999]; the SKU must
// belong to a product in ACTIVATE status (UpdateInventory and UpdatePrice). A request that breaks
// a rule is answered as a TikTok refusal (a code other than 0) and recorded in `refusals`.
//
// Chosen where the SDK is silent (no error codes are published in it): a missing product answers
// code 12019004 "product not found", a product not in ACTIVATE 12019006, a SKU of another product
// 12019005; a warehouse list that is not the SKU's comes back in UpdateInventory's data.errors
// (code 12019010, one extra_error per warehouse); a price must be a decimal string above 0 with at
// most two decimals in the SKU's currency (12019020). Page tokens are base64 offsets.
export interface SampleSku {
  id: string;
  sellerSku: string;
  currency?: string;
  /** Cents. */
  price: number;
  /** Quantity per warehouse id. */
  warehouses: Record<string, number>;
}

export interface SampleProduct {
  id: string;
  status?: "ACTIVATE" | "SELLER_DEACTIVATED" | "PLATFORM_DEACTIVATED" | "DRAFT" | "DELETED";
  title?: string;
  skus: SampleSku[];
}

interface Stored {
  id: string;
  status: string;
  title: string;
  skus: { id: string; sellerSku: string; currency: string; price: string; warehouses: Map<string, number> }[];
}

export type Refuse = (code: number, message: string, status?: number) => Response;
export type Ok = (data: unknown) => Response;

export function tiktokProductsFake(opts: { products: SampleProduct[]; refuse: Refuse; ok: Ok }) {
  const { refuse, ok } = opts;
  const products = new Map<string, Stored>();
  /** What each call changed, for the tests: [operation, product id, sku ids]. */
  const updates: { operation: string; productId: string; skuIds: string[] }[] = [];

  function add(p: SampleProduct): void {
    products.set(p.id, {
      id: p.id,
      status: p.status ?? "ACTIVATE",
      title: p.title ?? `Product ${p.id}`,
      skus: p.skus.map((s) => ({
        id: s.id,
        sellerSku: s.sellerSku,
        currency: s.currency ?? "USD",
        price: (s.price / 100).toFixed(2),
        warehouses: new Map(Object.entries(s.warehouses)),
      })),
    });
  }
  for (const p of opts.products) add(p);

  const page = (token: unknown) => (typeof token === "string" ? Number(atob(token)) : 0);
  const tokenAt = (offset: number) => btoa(String(offset));

  function searchProducts(query: Record<string, string>, body: { seller_skus?: string[]; status?: string }): Response {
    const size = Number(query.page_size);
    const start = page(query.page_token);
    if (!Number.isSafeInteger(start) || start < 0) return refuse(36009004, "Invalid page_token.");
    const wanted = body.seller_skus ? new Set(body.seller_skus) : null;
    const status = body.status ?? "ALL";
    const matching = [...products.values()]
      .filter((p) => status === "ALL" || p.status === status)
      .filter((p) => !wanted || p.skus.some((s) => wanted.has(s.sellerSku)))
      .sort((a, b) => (a.id < b.id ? -1 : 1));
    const slice = matching.slice(start, start + size);
    return ok({
      products: slice.map((p) => ({
        id: p.id,
        title: p.title,
        status: p.status,
        skus: p.skus.map((s) => ({
          id: s.id,
          seller_sku: s.sellerSku,
          price: { currency: s.currency, tax_exclusive_price: s.price },
          inventory: [...s.warehouses].map(([warehouse_id, quantity]) => ({ warehouse_id, quantity })),
        })),
      })),
      total_count: matching.length,
      next_page_token: start + size < matching.length ? tokenAt(start + size) : "",
    });
  }

  function inventorySearch(body: { sku_ids?: string[]; product_ids?: string[] }): Response {
    const skuIds = body.sku_ids ? new Set(body.sku_ids) : null;
    const productIds = body.product_ids ? new Set(body.product_ids) : null;
    if (!skuIds && !productIds) return refuse(36009004, "sku_ids or product_ids is required.");
    const inventory = [...products.values()]
      .map((p) => ({
        product_id: p.id,
        skus: p.skus
          .filter((s) => (skuIds ? skuIds.has(s.id) : productIds!.has(p.id)))
          .map((s) => ({
            id: s.id,
            seller_sku: s.sellerSku,
            total_available_quantity: [...s.warehouses.values()].reduce((a, b) => a + b, 0),
            total_committed_quantity: 0,
            warehouse_inventory: [...s.warehouses].map(([warehouse_id, quantity]) => ({ warehouse_id, available_quantity: quantity, committed_quantity: 0 })),
          })),
      }))
      .filter((p) => p.skus.length > 0);
    return ok({ inventory });
  }

  /** The product of an update, or TikTok's refusal of it. */
  function updatable(productId: string, skuIds: string[]): Stored | Response {
    const product = products.get(productId);
    if (!product || product.status === "DELETED") return refuse(12019004, `The product ${productId} is not found.`);
    if (product.status !== "ACTIVATE")
      return refuse(12019006, `The product ${productId} is in status ${product.status}; only ACTIVATE products can be updated.`);
    const stranger = skuIds.find((id) => !product.skus.some((s) => s.id === id));
    if (stranger) return refuse(12019005, `The SKU ${stranger} does not belong to the product ${productId}.`);
    return product;
  }

  function updateInventory(productId: string, body: { skus: { id: string; inventory: { warehouse_id?: string; quantity: number }[] }[] }): Response {
    const product = updatable(
      productId,
      body.skus.map((s) => s.id),
    );
    if (product instanceof Response) return product;
    const errors: unknown[] = [];
    for (const sent of body.skus) {
      const sku = product.skus.find((s) => s.id === sent.id)!;
      const named = sent.inventory.map((w) => w.warehouse_id ?? (sku.warehouses.size === 1 ? [...sku.warehouses.keys()][0]! : ""));
      const missing = [...sku.warehouses.keys()].filter((w) => !named.includes(w));
      const unrelated = named.filter((w) => !sku.warehouses.has(w));
      if (missing.length > 0 || unrelated.length > 0 || new Set(named).size !== named.length) {
        errors.push({
          code: 12019010,
          message: "The warehouses of the SKU must all be listed, each once, and no other.",
          detail: {
            sku_id: sku.id,
            extra_errors: [
              ...missing.map((w) => ({ code: 12019011, message: "warehouse missing", warehouse_id: w })),
              ...unrelated.map((w) => ({ code: 12019012, message: "warehouse not assigned to this SKU", warehouse_id: w })),
            ],
          },
        });
        continue;
      }
      sent.inventory.forEach((w, i) => sku.warehouses.set(named[i]!, w.quantity));
    }
    updates.push({ operation: "UpdateInventory", productId, skuIds: body.skus.map((s) => s.id) });
    return ok(errors.length > 0 ? { errors } : {});
  }

  function updatePrice(productId: string, body: { skus: { id: string; price?: { amount?: string; currency?: string } }[] }): Response {
    const product = updatable(
      productId,
      body.skus.map((s) => s.id),
    );
    if (product instanceof Response) return product;
    for (const sent of body.skus) {
      const sku = product.skus.find((s) => s.id === sent.id)!;
      const amount = sent.price?.amount ?? "";
      if (!/^\d+(\.\d{1,2})?$/.test(amount) || !(Number(amount) > 0))
        return refuse(12019020, `The price amount ${JSON.stringify(amount)} of SKU ${sku.id} is not valid.`);
      if (sent.price?.currency !== sku.currency) return refuse(12019020, `The price currency of SKU ${sku.id} must be ${sku.currency}.`);
    }
    for (const sent of body.skus) product.skus.find((s) => s.id === sent.id)!.price = Number(sent.price!.amount).toFixed(2);
    updates.push({ operation: "UpdatePrice", productId, skuIds: body.skus.map((s) => s.id) });
    return ok({});
  }

  return {
    handles: (operation: string) => ["SearchProducts", "InventorySearch", "UpdateInventory", "UpdatePrice"].includes(operation),
    handle(operation: string, pathValues: Record<string, string>, query: Record<string, string>, body: unknown): Response {
      if (operation === "SearchProducts") return searchProducts(query, (body ?? {}) as { seller_skus?: string[] });
      if (operation === "InventorySearch") return inventorySearch((body ?? {}) as { sku_ids?: string[] });
      if (operation === "UpdateInventory") return updateInventory(pathValues.product_id!, body as Parameters<typeof updateInventory>[1]);
      return updatePrice(pathValues.product_id!, body as Parameters<typeof updatePrice>[1]);
    },
    add,
    updates,
    /** A SKU as TikTok has it now: its quantity per warehouse and its price. */
    sku(sellerSku: string) {
      for (const p of products.values()) {
        const s = p.skus.find((x) => x.sellerSku === sellerSku);
        if (s) return { productId: p.id, skuId: s.id, price: s.price, currency: s.currency, warehouses: Object.fromEntries(s.warehouses) };
      }
      return null;
    },
    setStatus(productId: string, status: SampleProduct["status"] & string) {
      products.get(productId)!.status = status;
    },
  };
}
