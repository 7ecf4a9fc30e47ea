export const SCOPES = ["FeedsRead", "InventoryUpdate", "OrdersCreate", "OrdersRead", "OrdersUpdate"] as const;
export type Scope = (typeof SCOPES)[number];
