// The simulated marketplace's stock and price (decisions 11): it takes batches of Skus, answers
// each (a Sku named in Settings.unknownSkus is one it has no listing for), and records every push
// in the source's received list, so `npm start` shows what a marketplace would have been told.
import { z } from "zod";
import type { ListingOutcome, ListingsPush } from "../connector";

export const simulatedListingSettings = {
  /** SKUs this marketplace has no listing for: their stock and price are answered unknownSku. */
  unknownSkus: z.array(z.string()).default([]),
  /** Most Skus one push takes (at most 1,000: each push is kept whole in the received list). */
  listingBatchSize: z.number().int().min(1).max(1_000).default(1_000),
  /** Orders this marketplace reports cancelled (SourceOrderStatus Cancelled), as a buyer's cancellation would. */
  cancelledOrderNumbers: z.array(z.string()).default([]),
};

interface Deps {
  settings: { unknownSkus: string[]; listingBatchSize: number };
  /** Throws the configured fault for the operation, if any (the call recorded). */
  fault(body: Record<string, unknown>): void;
  record(body: Record<string, unknown>, answer: number): void;
}

export function simulatedListings({ settings, fault, record }: Deps): ListingsPush {
  const unknown = new Set(settings.unknownSkus);
  return {
    batchSize: settings.listingBatchSize,
    pushesPerCycle: 1_000,
    async push(updates) {
      const body = { items: updates.map((u) => ({ sku: u.sku, quantity: u.quantity, price: u.price, currency: u.currency })) };
      fault(body);
      const outcomes = new Map<string, ListingOutcome>();
      for (const u of updates) {
        outcomes.set(
          u.sku,
          unknown.has(u.sku)
            ? { state: "unknownSku", message: `Simulated marketplace 404 SKU_NOT_FOUND: no listing with SKU ${u.sku}` }
            : { state: "accepted" },
        );
      }
      record(body, updates.some((u) => unknown.has(u.sku)) ? 207 : 200);
      return outcomes;
    },
  };
}
