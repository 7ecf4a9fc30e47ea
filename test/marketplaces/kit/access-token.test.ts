// The access-token cache every OAuth connector uses (src/marketplaces/kit/access-token.ts), driven
// directly with an explicit clock; the connectors' own tests drive it through their fakes.
import { describe, expect, it } from "vitest";
import { MarketplaceError } from "../../../src/marketplaces/connector";
import { accessTokens, issuedToken } from "../../../src/marketplaces/kit/access-token";
import { memoryStorage } from "../../../src/marketplaces/storage";

function harness(lifetimeMs: number, renewEarlyMs: number) {
  let now = 1_000_000;
  let issued = 0;
  const gates: (() => void)[] = [];
  let gated = false;
  const issue = async () => {
    issued += 1;
    const value = `token-${issued}`;
    if (gated) await new Promise<void>((resolve) => gates.push(resolve));
    return { value, lifetimeMs };
  };
  return {
    tokens: (keep?: Parameters<typeof accessTokens>[0]["keep"]) => accessTokens({ now: () => now, renewEarlyMs, issue, keep }),
    advance: (ms: number) => (now += ms),
    issued: () => issued,
    gate: (on: boolean) => (gated = on),
    open: () => gates.splice(0).forEach((g) => g()),
  };
}

describe("access tokens", () => {
  it("reuses a token until renewEarlyMs before it expires, then asks for a new one", async () => {
    const h = harness(900_000, 60_000);
    const tokens = h.tokens();
    expect(await tokens.get()).toBe("token-1");
    h.advance(839_999);
    expect(await tokens.get()).toBe("token-1");
    h.advance(1);
    expect(await tokens.get()).toBe("token-2");
    expect(h.issued()).toBe(2);
  });

  it("renews a short-lived token at half its life when renewEarlyMs is longer than that", async () => {
    const h = harness(60_000, 300_000);
    const tokens = h.tokens();
    await tokens.get();
    h.advance(29_999);
    expect(await tokens.get()).toBe("token-1");
    h.advance(1);
    expect(await tokens.get()).toBe("token-2");
  });

  it("makes one token request for calls that start together", async () => {
    const h = harness(900_000, 60_000);
    const tokens = h.tokens();
    h.gate(true);
    const waiting = [tokens.get(), tokens.get(), tokens.get()];
    await Promise.resolve();
    h.open();
    expect(await Promise.all(waiting)).toEqual(["token-1", "token-1", "token-1"]);
    expect(h.issued()).toBe(1);
  });

  it("drops the refused token, but not a newer one another call already fetched", async () => {
    const h = harness(900_000, 60_000);
    const tokens = h.tokens();
    const first = await tokens.get();
    tokens.drop(first);
    const second = await tokens.get();
    expect(second).toBe("token-2");
    tokens.drop(first);
    expect(await tokens.get()).toBe("token-2");
    expect(h.issued()).toBe(2);
  });

  it("keeps the token in the source's storage for the next connector, only for the same credentials", async () => {
    const h = harness(7_200_000, 300_000);
    const storage = memoryStorage();
    const keep = (fingerprint: string) => ({ storage, key: "test.token", fingerprint: async () => fingerprint });
    expect(await h.tokens(keep("a")).get()).toBe("token-1");
    expect(await h.tokens(keep("a")).get()).toBe("token-1");
    expect(await h.tokens(keep("b")).get()).toBe("token-2");
    expect(h.issued()).toBe(2);
    const tokens = h.tokens(keep("b"));
    tokens.drop(await tokens.get());
    expect(storage.get("test.token")).toBeUndefined();
  });

  it("reads expires_in in seconds, and takes the default for a missing, negative, textual or endless one", () => {
    expect(issuedToken({ access_token: "t", expires_in: 900 }, "answer", 200, 3600)).toEqual({ value: "t", lifetimeMs: 900_000 });
    for (const expires_in of [undefined, -5, 0, "900", JSON.parse("1e400") as number]) {
      expect(issuedToken({ access_token: "t", expires_in }, "answer", 200, 3600).lifetimeMs).toBe(3_600_000);
    }
  });

  it("answers a retryable error naming the answer when it carries no access_token", () => {
    for (const body of [null, "text", {}, { access_token: "" }, { access_token: 7 }]) {
      let error: unknown;
      try {
        issuedToken(body, "Example token answer", 200, 3600);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(MarketplaceError);
      expect((error as MarketplaceError).message).toBe("Example token answer carries no access_token");
      expect((error as MarketplaceError).retryable).toBe(true);
    }
  });
});
