// The connector registry: a source's Type picks one entry. Each entry validates its Settings
// (the admin routes answer 400 naming the field) and builds a Connector for one cycle.
import { z } from "zod";
import { decryptJson, encryptJson } from "../lib/crypto";
import { outboundFetch } from "../lib/outbound";
import { MarketplaceError, type Connector, type ConnectorContext } from "./connector";
import { createAmazonConnector } from "./amazon/amazon.connector";
import { amazonSettingsSchema } from "./amazon/amazon.settings";
import { createEbayConnector } from "./ebay/ebay.connector";
import { ebaySettingsSchema } from "./ebay/ebay.settings";
import { createEtsyConnector } from "./etsy/etsy.connector";
import { etsySettingsSchema } from "./etsy/etsy.settings";
import { createMiraklConnector } from "./mirakl/mirakl.connector";
import { miraklSettingsSchema } from "./mirakl/mirakl.settings";
import { createShopifyConnector } from "./shopify/shopify.connector";
import { shopifySettingsSchema } from "./shopify/shopify.settings";
import { createSimulatedConnector, receivedWire } from "./simulated/simulated.connector";
import { simulatedSettingsSchema } from "./simulated/simulated.settings";
import type { SourceStorage } from "./storage";
import { createTiktokConnector } from "./tiktok/tiktok.connector";
import { tiktokSettingsSchema } from "./tiktok/tiktok.settings";
import { createWalmartConnector } from "./walmart/walmart.connector";
import { walmartSettingsSchema } from "./walmart/walmart.settings";

export interface ConnectorEntry {
  settingsSchema: z.ZodType<Record<string, unknown>>;
  /** Which Settings fields are secrets: kept encrypted like the rest, but masked in answers. */
  secretFields: string[];
  /**
   * Which Settings fields decide the host the secrets are sent to: changing one needs every
   * secret given again in the same request (decisions 6).
   */
  endpointFields: string[];
  create(ctx: ConnectorContext, storage: SourceStorage): Connector;
  /** The connector takes stock and price (Connector.listings); the listings route answers NotApplicable otherwise. */
  pushesListings?: boolean;
  /** What the marketplace received, as the admin route shows it, for a connector that keeps it (simulated). */
  received?(storage: SourceStorage): unknown[];
}

/** Settings every source takes besides its marketplace's: read by the core (src/sync/cycle.ts), never by a connector. */
const coreSettings = {
  /** false: the source only imports; no stock or price is sent to it (decisions 11). */
  pushStock: z.boolean().optional(),
};

export const CONNECTORS = {
  simulated: {
    settingsSchema: simulatedSettingsSchema.extend(coreSettings),
    secretFields: [],
    endpointFields: [],
    create: createSimulatedConnector,
    received: receivedWire,
    pushesListings: true,
  },
  walmart: {
    settingsSchema: walmartSettingsSchema.extend(coreSettings),
    secretFields: ["clientId", "clientSecret"],
    endpointFields: ["baseUrl"],
    create: createWalmartConnector,
    pushesListings: true,
  },
  ebay: {
    settingsSchema: ebaySettingsSchema.extend(coreSettings),
    secretFields: ["clientId", "clientSecret", "refreshToken"],
    endpointFields: ["baseUrl", "tokenUrl"],
    create: createEbayConnector,
    pushesListings: true,
  },
  shopify: {
    settingsSchema: shopifySettingsSchema.extend(coreSettings),
    secretFields: ["accessToken"],
    endpointFields: ["shopDomain", "baseUrl"],
    create: createShopifyConnector,
    pushesListings: true,
  },
  amazon: {
    settingsSchema: amazonSettingsSchema.extend(coreSettings),
    secretFields: ["clientId", "clientSecret", "refreshToken"],
    endpointFields: ["baseUrl", "tokenUrl"],
    create: (ctx, storage) => createAmazonConnector(ctx, storage),
    pushesListings: true,
  },
  etsy: {
    settingsSchema: etsySettingsSchema.extend(coreSettings),
    secretFields: ["keystring", "sharedSecret", "refreshToken"],
    endpointFields: ["baseUrl", "tokenUrl"],
    create: (ctx, storage) => createEtsyConnector(ctx, storage),
    pushesListings: true,
  },
  mirakl: {
    settingsSchema: miraklSettingsSchema.extend(coreSettings),
    secretFields: ["apiKey"],
    endpointFields: ["baseUrl"],
    create: createMiraklConnector,
    pushesListings: true,
  },
  tiktok: {
    settingsSchema: tiktokSettingsSchema.extend(coreSettings),
    secretFields: ["appSecret", "refreshToken"],
    endpointFields: ["baseUrl", "authUrl"],
    create: createTiktokConnector,
    pushesListings: true,
  },
} satisfies Record<string, ConnectorEntry>;

export type SourceType = keyof typeof CONNECTORS;
export const SOURCE_TYPES = Object.keys(CONNECTORS) as [SourceType, ...SourceType[]];

export function connectorEntry(type: string): ConnectorEntry | null {
  return Object.hasOwn(CONNECTORS, type) ? (CONNECTORS[type as SourceType] as ConnectorEntry) : null;
}

/** The source's connector, built from its decrypted Settings. */
export async function buildConnector(
  env: Pick<Env, "SOURCE_SETTINGS_KEY">,
  source: { id: string; type: string; settingsCiphertext: string },
  storage: SourceStorage,
  clock: () => Date,
  fetchImpl?: typeof fetch,
): Promise<Connector> {
  const entry = connectorEntry(source.type);
  if (!entry) throw new MarketplaceError(`No connector for Type '${source.type}'.`, null, false);
  const { pushStock, ...settings } = await decryptJson<Record<string, unknown>>(env.SOURCE_SETTINGS_KEY, source.settingsCiphertext);
  const useFetch = fetchImpl ?? (outboundFetch as typeof fetch);
  const key = env.SOURCE_SETTINGS_KEY;
  const secrets = { seal: (value: string) => encryptJson(key, value), open: (sealed: string) => decryptJson<string>(key, sealed) };
  const connector = entry.create({ sourceId: source.id, settings, fetch: useFetch, now: clock, secrets }, storage);
  // Settings.pushStock is the core's, not the connector's: false makes the source import-only.
  return pushStock === false ? (Object.create(connector, { listings: { value: undefined } }) as Connector) : connector;
}
