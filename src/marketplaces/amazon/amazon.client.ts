// One Selling Partner API call, as every part of the Amazon connector makes it: paced per
// operation (amazon.pacing.ts, the pace kept in the source's storage), with the Login with
// Amazon token renewed once on 401/403, a short 429 waited out once, and Amazon's error bodies
// turned into MarketplaceErrors. The waits a cycle may spend are counted here.
import { MarketplaceError, type ConnectorContext } from "../connector";
import { accessTokens, issuedToken, withFreshToken } from "../kit/access-token";
import { answerFailure, readJsonAnswer, sendToMarketplace } from "../kit/marketplace-http";
import type { SourceStorage } from "../storage";
import { describeAmazonErrors } from "./amazon.mapping";
import { afterAnswer, refillMs, takeCall, USAGE_PLANS, type AmazonOperation, type PaceState } from "./amazon.pacing";
import type { AmazonSettings } from "./amazon.settings";

export const TIMEOUT_MS = 15_000;
// LWA tokens live 3600 s; renewing a minute early keeps a call from carrying a token that dies in flight.
const TOKEN_RENEW_EARLY_MS = 60_000;

export interface AmazonClientOptions {
  /** Waits for the pace; a test passes one that moves its clock instead. */
  sleep: (ms: number) => Promise<void>;
  /** The longest a single call waits for its operation's pace before giving up to a later cycle. */
  maxWaitMs: number;
  /** The most one connector (one cycle) spends waiting for the pace in all. */
  waitBudgetMs: number;
}

export interface AmazonClient {
  /** The answer of a call that succeeded; a failed one is thrown as a MarketplaceError. */
  call(op: AmazonOperation, method: "GET" | "POST" | "PATCH", path: string, body?: unknown): Promise<Response>;
  /** The JSON object of a call that succeeded (null when the answer is not an object). */
  callJson<T>(op: AmazonOperation, method: "GET" | "POST" | "PATCH", path: string, body?: unknown): Promise<T | null>;
}

export function amazonClient(
  ctx: ConnectorContext,
  storage: SourceStorage,
  settings: AmazonSettings,
  baseUrl: string,
  options: AmazonClientOptions,
): AmazonClient {
  const { sleep, maxWaitMs } = options;
  let waitBudgetMs = options.waitBudgetMs;
  const nowMs = () => ctx.now().getTime();

  const tokens = accessTokens({
    now: nowMs,
    renewEarlyMs: TOKEN_RENEW_EARLY_MS,
    async issue() {
      const response = await sendToMarketplace({
        marketplace: "Login with Amazon",
        fetch: ctx.fetch,
        method: "POST",
        url: settings.tokenUrl,
        headers: { "Content-Type": "application/x-www-form-urlencoded;charset=UTF-8", Accept: "application/json" },
        body: new URLSearchParams({
          grant_type: "refresh_token",
          refresh_token: settings.refreshToken,
          client_id: settings.clientId,
          client_secret: settings.clientSecret,
        }).toString(),
        timeoutMs: TIMEOUT_MS,
      });
      if (!response.ok) {
        // A refused refresh token or client will not change by itself: the seller must authorise again.
        throw await answerFailure(response, {
          prefix: `Login with Amazon refused the token request: ${response.status}`,
          describe: describeAmazonErrors,
          now: ctx.now(),
        });
      }
      return issuedToken(await readJsonAnswer(response, "Login with Amazon token answer"), "Login with Amazon token answer", response.status, 3600);
    },
  });

  const paceKey = (op: AmazonOperation) => `amazon:pace:${op}`;

  /** Takes one call of `op` from its bucket, waiting when the wait is short, else failing for a later cycle. */
  async function pace(op: AmazonOperation): Promise<void> {
    const plan = USAGE_PLANS[op];
    const now = nowMs();
    let decision = takeCall(storage.get<PaceState>(paceKey(op)), now, plan);
    if (!decision.allowed) {
      const wait = decision.waitMs;
      if (wait > maxWaitMs || wait > waitBudgetMs) throw pacedError(op, wait, decision.state);
      waitBudgetMs -= wait;
      await sleep(wait);
      // Taken at the moment the wait ends, which fits by construction whatever the clock says now.
      decision = takeCall(storage.get<PaceState>(paceKey(op)), Math.max(nowMs(), now + wait), plan);
      if (!decision.allowed) throw pacedError(op, decision.waitMs, decision.state);
    }
    storage.put(paceKey(op), decision.state);
  }

  function pacedError(op: AmazonOperation, waitMs: number, state: PaceState): MarketplaceError {
    const plan = USAGE_PLANS[op];
    return new MarketplaceError(
      `Amazon ${op} is paced at ${state.ratePerSecond} calls/s (burst ${plan.capacity}): the next call fits in ${Math.ceil(waitMs / 1000)} s, so it waits ` +
        `for a later cycle`,
      429,
      true,
      waitMs,
    );
  }

  function noteAnswer(op: AmazonOperation, response: Response): void {
    const state = storage.get<PaceState>(paceKey(op));
    if (!state) return;
    storage.put(
      paceKey(op),
      afterAnswer(state, nowMs(), USAGE_PLANS[op], { status: response.status, rateLimitHeader: response.headers.get("x-amzn-RateLimit-Limit") }),
    );
  }

  function httpError(op: AmazonOperation, response: Response): Promise<MarketplaceError> {
    return answerFailure(response, {
      prefix: `Amazon ${op} ${response.status}`,
      describe: describeAmazonErrors,
      defaultWaitMs: (status) => (status === 429 ? refillMs(storage.get<PaceState>(paceKey(op)), USAGE_PLANS[op]) : null),
      now: ctx.now(),
    });
  }

  async function call(op: AmazonOperation, method: "GET" | "POST" | "PATCH", path: string, body?: unknown): Promise<Response> {
    let waited429 = false;
    for (;;) {
      // An expired or revoked token answers 403 (the models) or 401: one fresh token, one retry.
      const response = await withFreshToken(
        tokens,
        async (token) => {
          await pace(op);
          const headers: Record<string, string> = { "x-amz-access-token": token, Accept: "application/json" };
          if (body !== undefined) headers["Content-Type"] = "application/json";
          const answer = await sendToMarketplace({
            marketplace: "Amazon",
            fetch: ctx.fetch,
            method,
            url: `${baseUrl}${path}`,
            headers,
            body: body === undefined ? undefined : JSON.stringify(body),
            timeoutMs: TIMEOUT_MS,
          });
          noteAnswer(op, answer);
          return answer;
        },
        [401, 403],
      );
      if (response.status === 429 && !waited429) {
        const error = await httpError(op, response);
        const wait = error.retryAfterMs ?? 0;
        if (wait > maxWaitMs || wait > waitBudgetMs) throw error;
        waited429 = true;
        waitBudgetMs -= wait;
        await sleep(wait);
        continue;
      }
      if (!response.ok) throw await httpError(op, response);
      return response;
    }
  }

  return {
    call,
    async callJson<T>(op: AmazonOperation, method: "GET" | "POST" | "PATCH", path: string, body?: unknown): Promise<T | null> {
      const response = await call(op, method, path, body);
      const answer = await readJsonAnswer(response, `Amazon ${op}`);
      return typeof answer === "object" && answer !== null && !Array.isArray(answer) ? (answer as T) : null;
    },
  };
}
