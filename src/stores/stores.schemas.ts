// A store and a consumer key on the wire: the zod descriptions the OpenAPI document shows, which
// stores.routes.ts answers and the console reads.
import { z } from "zod";
import { wireDateOrNull } from "../lib/dates";
import { LIFESPANS } from "../auth/tokens";
import { SCOPES } from "../auth/scopes";
import { LIMIT_NAMES, type LimitName } from "./limits";

const limitsAnswer = z
  .object(Object.fromEntries(LIMIT_NAMES.map((name) => [name, z.number().int()])) as Record<LimitName, z.ZodNumber>)
  .meta({ id: "StoreLimits" });
export const storeAnswer = z
  .object({
    StoreId: z.string(),
    Name: z.string(),
    MaskBuyerPii: z.boolean(),
    DateCreated: wireDateOrNull,
    Shard: z.string().describe("The shard database holding the store's data (GET /admin/v1/shards)."),
    Limits: limitsAnswer.describe("The most the store may hold of each; a write beyond one is refused."),
    Usage: limitsAnswer.optional().describe("What the store holds of each (on one store's answers, not in the list)."),
  })
  .meta({ id: "Store" });
export const keyAnswer = z
  .object({
    ConsumerKeyId: z.string(),
    StoreId: z.string(),
    Name: z.string(),
    Scopes: z.array(z.enum(SCOPES)),
    Lifespan: z.enum(LIFESPANS),
    BucketSize: z.number().int().nullable().describe("null: the default (50)."),
    LeakRatePerSecond: z.number().nullable().describe("null: the default (2)."),
    DateCreated: wireDateOrNull,
    DateRevoked: wireDateOrNull,
  })
  .meta({ id: "ConsumerKey" });

/** The path parameter of every /stores/:storeId route. */
export const storeParam = z.object({ storeId: z.string() });
