export const SCOPES = ["FeedsRead", "InventoryUpdate", "OrdersCreate", "OrdersRead", "OrdersUpdate", "ReturnsRead", "ReturnsUpdate"] as const;
export type Scope = (typeof SCOPES)[number];
