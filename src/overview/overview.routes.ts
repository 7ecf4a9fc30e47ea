// /admin/v1/overview and /admin/v1/stores/{storeId}/overview: the numbers the console's two
// overviews draw, for any operator's tool as well. Read-only; bounded statements (overview.ts).
import { z } from "zod";
import { storeDb } from "../db/shards";
import { ok } from "../http/envelope";
import { createRouter } from "../app-env";
import { validate } from "../http/validate";
import { documented, envelope } from "../http/openapi";
import { requireStore } from "../stores/stores.queries";
import { hubOverview, storeOverview } from "./overview";
import { hubOverview as hubAnswer, storeOverview as storeAnswer } from "./overview.schemas";

const storeParam = z.object({ storeId: z.string() });

export const overviewRoutes = createRouter()
  .get(
    "/overview",
    documented("admin", {
      summary: "The hub at a glance: every store's orders today and over 7 days, sources' health, backlog, feeds, and what needs the operator first",
      description:
        "Answered in one directory statement and 5 D1 statements per shard (run at once) whatever the stores hold: orders from the day counts the database " +
        "keeps, sources from their last 20 cycles.",
      tags: ["Overview"],
      answer: envelope({ Overview: hubAnswer }),
    }),
    async (c) => ok(c, { Overview: await hubOverview(c.env, Date.now()) }),
  )
  .get(
    "/stores/:storeId/overview",
    documented("admin", {
      summary: "A store at a glance: orders per day per source over 30 days, statuses now, each source's last 20 cycles, the delivery backlog, feeds",
      description: "Answered in 7 D1 statements whatever the store holds: orders from the day counts the database keeps, never from the orders themselves.",
      tags: ["Overview"],
      answer: envelope({ Overview: storeAnswer }),
    }),
    validate("param", storeParam),
    async (c) => {
      const store = await requireStore(c.env, c.req.valid("param").storeId);
      return ok(c, { Overview: await storeOverview(storeDb(c.env, store), store, Date.now()) });
    },
  );
