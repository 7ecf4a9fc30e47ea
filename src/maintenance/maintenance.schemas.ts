// The maintenance switch on the wire (the OpenAPI document shows it; the console reads it).
import { z } from "zod";
import { envelope } from "../http/openapi";

export const maintenanceAnswer = envelope({ Maintenance: z.object({ Enabled: z.boolean(), Message: z.string() }) });
