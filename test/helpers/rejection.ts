// What a connector call rejected with, for the connector tests: the test fails unless it is a
// MarketplaceError (a connector never lets another error out of a marketplace call).
import { expect } from "vitest";
import { MarketplaceError } from "../../src/marketplaces/connector";

export async function rejection(promise: Promise<unknown>): Promise<MarketplaceError> {
  const error = await promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MarketplaceError);
  return error as MarketplaceError;
}
