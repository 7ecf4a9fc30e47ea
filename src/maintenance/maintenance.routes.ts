// PUT and GET /admin/v1/maintenance: the operator flips the /v1 maintenance switch and reads it
// back fresh (not from this isolate's cache). The switch itself is maintenance.ts.
import { z } from "zod";
import { ok } from "../http/envelope";
import { createRouter } from "../app-env";
import { validate } from "../http/validate";
import { documented } from "../http/openapi";
import { readMaintenance, writeMaintenance } from "./maintenance";
import { maintenanceAnswer } from "./maintenance.schemas";

const maintenanceBody = z.object({
  Enabled: z.boolean(),
  Message: z.string().max(500).optional(),
});

export const maintenanceRoutes = createRouter()
  .put(
    "/maintenance",
    documented("admin", { summary: "Switch maintenance on or off (/v1 answers 503 while on)", tags: ["Maintenance"], answer: maintenanceAnswer }),
    validate("json", maintenanceBody),
    async (c) => {
      const body = c.req.valid("json");
      const state = { enabled: body.Enabled, message: body.Message ?? "" };
      await writeMaintenance(c.env, state);
      return ok(c, { Maintenance: { Enabled: state.enabled, Message: state.message } });
    },
  )
  .get("/maintenance", documented("admin", { summary: "Maintenance state", tags: ["Maintenance"], answer: maintenanceAnswer }), async (c) => {
    const state = await readMaintenance(c.env, { fresh: true });
    return ok(c, { Maintenance: { Enabled: state.enabled, Message: state.message } });
  });
