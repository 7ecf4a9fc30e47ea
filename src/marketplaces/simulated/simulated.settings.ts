// A simulated source's Settings: how fast it sells, which faults it plays, which operations it
// lacks or takes for later. The admin API validates them before a source is stored.
import { z } from "zod";
import { simulatedListingSettings } from "./simulated.listings";
import { simulatedReturnSettings } from "./simulated.returns";

export const OPERATIONS = [
  "fetchOrders",
  "acknowledge",
  "ship",
  "cancel",
  "checkSubmitted",
  "pushListings",
  "fetchReturns",
  "refund",
  "receiveReturn",
  "decideReturn",
] as const;
export const DELIVERY_OPERATIONS = ["acknowledge", "ship", "cancel", "refund", "receiveReturn", "decideReturn"] as const;
/** What unsupportedOperations may name: the order capabilities, and the returns' operations (decisions 13). */
export const CAPABILITIES = ["acknowledge", "ship", "shipLines", "cancel", "cancelLines", "refund", "receiveReturn", "decideReturn"] as const;
export type Operation = (typeof OPERATIONS)[number];

const isoInstant = z.iso.datetime({ offset: true }).transform((value) => Date.parse(value));

export const simulatedSettingsSchema = z.strictObject({
  /** The steady rate at which the marketplace sells. */
  // At least one order in 1,000 hours: a rate that is positive but tiny (5e-324) made the order
  // interval Infinity, every date NaN, and each import fail in D1 (NOT NULL) for good.
  ordersPerHour: z.number().min(0.001).max(3_600_000).default(6),
  /** The marketplace opened at this time: no order is older. Default: none before the import window. */
  startAt: isoInstant.optional(),
  /** The marketplace stops selling at this time (makes a run's order count exact). */
  endAt: isoInstant.optional(),
  pageSize: z.number().int().min(1).max(500).default(100),
  /** Make calls fail: `http500`, `timeout`, or `rateLimited` (429 with Retry-After). */
  fault: z
    .strictObject({
      kind: z.enum(["http500", "timeout", "rateLimited"]),
      retryAfterSeconds: z.number().int().min(0).max(86_400).default(60),
      operations: z
        .array(z.enum(OPERATIONS))
        .min(1)
        .default([...OPERATIONS]),
    })
    .optional(),
  /** Order numbers whose deliveries the marketplace refuses with a 400 (no retry can fix it). */
  rejectOrderNumbers: z.array(z.string()).default([]),
  /** Every Nth order (order index divisible by N) has a line without a SKU: it is set aside. */
  malformedEvery: z.number().int().min(1).max(1_000_000).optional(),
  /**
   * These operations are accepted for later processing (answered `submitted` with a reference);
   * the result is given on the `checksBeforeResult`-th time it is asked: delivered, or rejected for
   * an order of rejectOrderNumbers.
   */
  asynchronous: z
    .strictObject({
      operations: z
        .array(z.enum(DELIVERY_OPERATIONS))
        .min(1)
        .default([...DELIVERY_OPERATIONS]),
      checksBeforeResult: z.number().int().min(1).max(100).default(1),
    })
    .optional(),
  /** Operations this marketplace does not have: their deliveries are notApplicable. */
  unsupportedOperations: z.array(z.enum(CAPABILITIES)).default([]),
  /**
   * Lines the marketplace ships or cancels of its own (decisions 12), by order number and line
   * number: `{ "SIM…-12": { shipped: { "1": 1 }, cancelled: { "2": 1 } } }`. A shipped entry is
   * one package of the marketplace's (id SIM-PKG-<order number>, tracking SIMTRK<order index>); the
   * hub meets both at its next import.
   */
  lineChanges: z
    .record(
      z.string(),
      z.strictObject({
        shipped: z.record(z.string(), z.number().int().min(1).max(1_000)).optional(),
        cancelled: z.record(z.string(), z.number().int().min(1).max(1_000)).optional(),
      }),
    )
    .default({}),
  ...simulatedListingSettings,
  ...simulatedReturnSettings,
});
export type SimulatedSettings = z.output<typeof simulatedSettingsSchema>;
