export const SCOPES = ["FeedsRead", "OrdersCreate", "OrdersRead", "OrdersUpdate"] as const;
export type Scope = (typeof SCOPES)[number];
