// Shopify's calculated-cost leaky bucket as the connector sees it: every answer reports
// `extensions.cost.throttleStatus` (points available, the bucket's size, points restored per
// second), and a query is refused (THROTTLED) when its requested cost exceeds what is available.
// Pure functions of (estimate, now, cost): the connector keeps the estimate and sleeps.
import type { ShopifyCost } from "./shopify.types";

export interface BucketEstimate {
  available: number;
  maximum: number;
  restoreRate: number;
  /** When the answer that reported it arrived (ms). */
  at: number;
}

/** The bucket an answer reports; null when the answer carries no usable throttle status. */
export function bucketFrom(cost: ShopifyCost | null | undefined, at: number): BucketEstimate | null {
  const status = cost?.throttleStatus;
  const available = status?.currentlyAvailable;
  const maximum = status?.maximumAvailable;
  const restoreRate = status?.restoreRate;
  if (typeof available !== "number" || typeof maximum !== "number" || typeof restoreRate !== "number") return null;
  if (!(restoreRate > 0) || !(maximum > 0) || !Number.isFinite(available)) return null;
  return { available, maximum, restoreRate, at };
}

/** Points available at `now`: what was left, plus what the restore rate has put back since. */
export function availableAt(bucket: BucketEstimate, now: number): number {
  return Math.min(bucket.maximum, bucket.available + (bucket.restoreRate * Math.max(0, now - bucket.at)) / 1000);
}

/** How long to wait before a query of this cost is admitted (0: at once). */
export function waitForCostMs(bucket: BucketEstimate | null, now: number, cost: number): number {
  if (bucket === null) return 0;
  // A query dearer than the whole bucket can never be admitted; waiting for a full bucket is all
  // there is (Shopify refuses it with MAX_COST_EXCEEDED, which the connector reports).
  const needed = Math.min(cost, bucket.maximum) - availableAt(bucket, now);
  return needed <= 0 ? 0 : Math.ceil((needed / bucket.restoreRate) * 1000);
}
