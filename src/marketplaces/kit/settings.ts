// What every connector's Settings schema shares: the read that turns a bad Settings object into a
// MarketplaceError naming each wrong field, and an https-only URL field (credentials and tokens
// travel to it). The admin API validates the same schemas before a source is stored.
import { z } from "zod";
import { MarketplaceError, type ConnectorContext } from "../connector";

/**
 * A connector's Settings read with its zod schema, or a MarketplaceError no retry can fix
 * naming every field that is wrong (`<marketplace> settings of source <id> are invalid: ...`).
 */
export function connectorSettings<T>(schema: z.ZodType<T>, ctx: ConnectorContext, marketplace: string): T {
  const parsed = schema.safeParse(ctx.settings);
  if (parsed.success) return parsed.data;
  const detail = parsed.error.issues.map((i) => `${i.path.map(String).join(".") || "settings"}: ${i.message}`).join("; ");
  throw new MarketplaceError(`${marketplace} settings of source ${ctx.sourceId} are invalid: ${detail}`, null, false);
}

/** An https URL, without trailing slashes: plain http would carry the source's secrets in clear. */
export const httpsUrl = () => z.url({ protocol: /^https$/, error: "must be an https URL" }).transform((url) => url.replace(/\/+$/, ""));
