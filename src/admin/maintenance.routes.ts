import { z } from "zod";
import { ok } from "../http/envelope";
import { createRouter } from "../http/create-router";
import { validate } from "../http/validate";
import { readMaintenance, writeMaintenance } from "./maintenance";

const maintenanceBody = z.object({
  Enabled: z.boolean(),
  Message: z.string().max(500).optional(),
});

export const maintenanceRoutes = createRouter()
  .put("/maintenance", validate("json", maintenanceBody), async (c) => {
    const body = c.req.valid("json");
    const state = { enabled: body.Enabled, message: body.Message ?? "" };
    await writeMaintenance(c.env, state);
    return ok(c, { Maintenance: { Enabled: state.enabled, Message: state.message } });
  })
  .get("/maintenance", async (c) => {
    const state = await readMaintenance(c.env, { fresh: true });
    return ok(c, { Maintenance: { Enabled: state.enabled, Message: state.message } });
  });
