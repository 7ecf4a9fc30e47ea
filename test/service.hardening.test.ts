// The service-side items of issue 20 that are each one small rule: what a 500 logs, and more below.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../src/index";
import { BASE, storeWithToken } from "./helpers/api";

afterEach(() => {
  vi.restoreAllMocks();
});

/** The Worker with some bindings replaced, as a request reaches it. */
async function fetchWith(bindings: Partial<Env>, request: Request) {
  const ctx = createExecutionContext();
  const response = await worker.fetch(request, { ...env, ...bindings }, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

const unreachableDb = {
  prepare() {
    throw new Error("D1 is unreachable");
  },
  batch() {
    throw new Error("D1 is unreachable");
  },
} as unknown as D1Database;

describe("what a 500 logs", () => {
  it("names the route pattern, never the path that holds the token", async () => {
    const { token } = await storeWithToken();
    const logged: unknown[][] = [];
    vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => void logged.push(args));
    const res = await fetchWith({ DB: unreachableDb }, new Request(`${BASE}/v1/${token}/Orders/count?fromDate=2000-01-01&toDate=2100-01-01`));
    expect(res.status).toBe(500);
    const text = logged.map((args) => args.map((a) => (a instanceof Error ? a.message : String(a))).join(" ")).join("\n");
    expect(text).toContain("unhandled error GET /v1/:token/orders/count");
    expect(text).not.toContain(token);
  });
});
