// One GraphQL call to a shop's Admin API, as every part of the Shopify connector makes it: paced
// by the shop's calculated-cost bucket (shopify.throttle.ts) with each operation's cost kept in
// the source's storage, THROTTLED answers waited out a few times, and Shopify's error shapes
// (HTTP errors, top-level `errors`) turned into MarketplaceErrors. Mutations' userErrors are the
// caller's: only it knows which are final.
import { MarketplaceError, type ConnectorContext } from "../connector";
import { answerFailure, readJsonAnswer, sendToMarketplace } from "../kit/marketplace-http";
import type { SourceStorage } from "../storage";
import type { ShopifySettings } from "./shopify.settings";
import { bucketFrom, waitForCostMs, type BucketEstimate } from "./shopify.throttle";
import type { ShopifyAnswer, ShopifyGraphqlError } from "./shopify.types";

const TIMEOUT_MS = 15_000;
/** The connector sleeps for the bucket at most this long at a time; a longer wait is the core's. */
const MAX_PACING_WAIT_MS = 10_000;
const MAX_THROTTLED_TRIES = 3;
/** Shopify refuses any single query dearer than this (MAX_COST_EXCEEDED): the most a call can need. */
const MAX_QUERY_COST = 1000;
/** Where each operation's requested cost is remembered from cycle to cycle. */
const COSTS_KEY = "shopify:query-costs";

// Top-level error codes worth another try (THROTTLED has its own path); anything else (a schema
// error, ACCESS_DENIED, MAX_COST_EXCEEDED) answers the same way every time.
const RETRYABLE_CODES = new Set(["INTERNAL_SERVER_ERROR"]);

export type ShopifyGraphql = <T>(operation: string, query: string, variables: Record<string, unknown>) => Promise<T>;

export function shopifyGraphql(ctx: ConnectorContext, storage: SourceStorage, settings: ShopifySettings, sleep: (ms: number) => Promise<void>): ShopifyGraphql {
  const endpoint = `${settings.baseUrl ?? `https://${settings.shopDomain}`}/admin/api/${settings.apiVersion}/graphql.json`;
  const now = () => ctx.now().getTime();

  let bucket: BucketEstimate | null = null;
  /**
   * The requested cost each operation last reported: what its next call will need. Kept in the
   * source's storage, so that only the very first call of an operation has to assume the worst.
   */
  const costs = new Map<string, number>(Object.entries(storage.get<Record<string, number>>(COSTS_KEY) ?? {}));

  function learnCost(operation: string, cost: number): void {
    if (costs.get(operation) === cost) return;
    costs.set(operation, cost);
    storage.put(COSTS_KEY, Object.fromEntries(costs));
  }

  /** Waits until the bucket holds what this operation costs, so the call is not THROTTLED. */
  async function pace(operation: string): Promise<void> {
    const expected = costs.get(operation) ?? MAX_QUERY_COST;
    const wait = waitForCostMs(bucket, now(), expected);
    if (wait === 0) return;
    if (wait > MAX_PACING_WAIT_MS) {
      throw new MarketplaceError(`Shopify ${operation}: the shop's query budget refills in ${Math.ceil(wait / 1000)} s`, null, true, wait);
    }
    await sleep(wait);
  }

  function httpError(operation: string, response: Response): Promise<MarketplaceError> {
    // Any 4xx but 429 (a refused token or scope, a shop that is gone or closed) needs the merchant
    // or the operator; retrying cannot fix it.
    return answerFailure(response, {
      prefix: `Shopify ${operation} ${response.status}`,
      describe(text) {
        const body = JSON.parse(text) as { errors?: unknown };
        if (typeof body?.errors === "string") return body.errors;
        return Array.isArray(body?.errors) ? describeErrors(body.errors as ShopifyGraphqlError[]) : null;
      },
      now: ctx.now(),
    });
  }

  return async function graphql<T>(operation: string, query: string, variables: Record<string, unknown>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      await pace(operation);
      const response = await sendToMarketplace({
        marketplace: "Shopify",
        fetch: ctx.fetch,
        method: "POST",
        url: endpoint,
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json",
          "X-Shopify-Access-Token": settings.accessToken,
        },
        body: JSON.stringify({ query, variables, operationName: operation }),
        timeoutMs: TIMEOUT_MS,
      });
      const receivedAt = now();
      if (!response.ok) throw await httpError(operation, response);
      const answer = (await readJsonAnswer(response, `Shopify ${operation}`)) as ShopifyAnswer<T> | null;
      const cost = answer?.extensions?.cost;
      bucket = bucketFrom(cost, receivedAt) ?? bucket;
      if (typeof cost?.requestedQueryCost === "number" && cost.requestedQueryCost >= 0) learnCost(operation, cost.requestedQueryCost);
      const errors = answer?.errors;
      if (typeof errors === "string") throw new MarketplaceError(`Shopify ${operation}: ${errors}`, response.status, false);
      if (Array.isArray(errors) && errors.length > 0) {
        if (errors.some((e) => codeOf(e) === "THROTTLED")) {
          // Retried after the time the restore rate needs to cover the refused query's cost.
          const wait = Math.max(waitForCostMs(bucket, now(), costs.get(operation) ?? 0), 1000);
          if (attempt < MAX_THROTTLED_TRIES && wait <= MAX_PACING_WAIT_MS) {
            await sleep(wait);
            continue;
          }
          throw new MarketplaceError(`Shopify ${operation}: Throttled`, response.status, true, wait);
        }
        const retryable = errors.every((e) => RETRYABLE_CODES.has(codeOf(e)));
        throw new MarketplaceError(`Shopify ${operation}: ${describeErrors(errors)}`, response.status, retryable);
      }
      if (!answer?.data || typeof answer.data !== "object") {
        throw new MarketplaceError(`Shopify ${operation}: the answer has no data`, response.status, true);
      }
      return answer.data;
    }
  };
}

function codeOf(error: ShopifyGraphqlError): string {
  const code = error?.extensions?.code;
  return typeof code === "string" ? code : "";
}

function describeErrors(errors: ShopifyGraphqlError[]): string {
  const parts = errors.map((e) => {
    const code = codeOf(e);
    return `${e?.message ?? "error"}${code ? ` (${code})` : ""}`;
  });
  return parts.join("; ") || "unknown error";
}
