// GET /admin/v1/stores/:storeId/sources/:sourceId/listings[?sku=&status=] (decisions 11): each
// tracked Sku's quantity and price at one source, as last accepted by the marketplace, what is
// still to send, and why the last send failed.
import { z } from "zod";
import { storeDb } from "../db/shards";
import { LISTING_STATES } from "../db/schema";
import { ok } from "../http/envelope";
import { ApiError } from "../http/errors";
import { createRouter } from "../app-env";
import { documented, envelope } from "../http/openapi";
import { validate } from "../http/validate";
import { listingsAnswer } from "./listings.schemas";
import { decryptJson } from "../lib/crypto";
import { toWireDate } from "../lib/dates";
import { requireStore } from "../stores/stores.queries";
import { connectorEntry } from "../marketplaces/registry";
import { findSource } from "./sources.queries";
import { countListings, listListings } from "../stock/listings.queries";

const params = z.object({ storeId: z.string(), sourceId: z.string() });
const query = z.object({
  sku: z.string().min(1).max(100).optional(),
  status: z.enum(LISTING_STATES).optional(),
  after: z.string().max(100).optional().describe("Skus after this one (the NextAfter of the previous page)."),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

export const listingsRoutes = createRouter().get(
  "/stores/:storeId/sources/:sourceId/listings",
  documented("admin", {
    summary: "Stock and price per Sku at a source (decisions 11)",
    tags: ["Sources"],
    answer: envelope(listingsAnswer.shape),
  }),
  validate("param", params),
  validate("query", query),
  async (c) => {
    const { storeId, sourceId } = c.req.valid("param");
    const filter = c.req.valid("query");
    const db = storeDb(c.env, await requireStore(c.env, storeId));
    const source = await findSource(db, storeId, sourceId);
    if (!source) throw new ApiError(404, `No source with SourceId '${sourceId.slice(0, 40)}' in store '${storeId.slice(0, 40)}'.`);
    if (!connectorEntry(source.type)?.pushesListings) {
      return ok(c, { Push: "NotApplicable", Counts: { Pending: 0, Submitted: 0, Accepted: 0, UnknownSku: 0, Refused: 0 }, Listings: [], NextAfter: null });
    }
    const settings = await decryptJson<Record<string, unknown>>(c.env.SOURCE_SETTINGS_KEY, source.settingsCiphertext);
    const d1 = db.$client;
    const [rows, counts] = await Promise.all([listListings(d1, source.id, filter), countListings(d1, source.id)]);
    return ok(c, {
      Push: settings.pushStock === false ? "ImportOnly" : "Enabled",
      Counts: { Pending: counts.pending, Submitted: counts.submitted, Accepted: counts.accepted, UnknownSku: counts.unknownSku, Refused: counts.refused },
      Listings: rows.map((r) => ({
        Sku: r.sku,
        Status: r.status,
        AcceptedQuantity: r.acceptedQuantity,
        AcceptedPrice: r.acceptedPrice,
        DateAccepted: toWireDate(r.acceptedAt),
        PendingQuantity: r.pendingQuantity,
        PendingPrice: r.pendingPrice,
        Currency: r.currency,
        Submission: r.submission,
        Attempts: r.attempts,
        DateNextAttempt: r.status === "pending" ? toWireDate(r.nextAttemptAt) : null,
        LastError: r.lastError,
        DateUpdated: toWireDate(r.updatedAt),
      })),
      NextAfter: rows.length === filter.limit ? rows.at(-1)!.sku : null,
    });
  },
);
