// The channel templates a feed may name in `Template`, by that name. A feed created without one
// uses google-shopping (decisions 7).
import type { FeedTemplate } from "./template";
import { googleShopping } from "./google-shopping";
import { metaCatalog } from "./meta-catalog";
import { microsoftMerchantCenter } from "./microsoft-merchant-center";
import { tiktokCatalog } from "./tiktok-catalog";

export const DEFAULT_TEMPLATE = googleShopping.name;

/** No channel: every product is written as it is, in Google's columns. */
export const plain: FeedTemplate = {
  name: "none",
  label: "None (every product, no channel rules)",
  columns: googleShopping.columns,
  check: () => ({ errors: [], warnings: [] }),
};

export const TEMPLATES: Record<string, FeedTemplate> = Object.fromEntries(
  [googleShopping, metaCatalog, microsoftMerchantCenter, tiktokCatalog, plain].map((t) => [t.name, t]),
);

/** [name, label] of every template, the default first: what an operator chooses from. */
export const TEMPLATE_CHOICES: [string, string][] = Object.values(TEMPLATES).map((t) => [t.name, t.label]);
