// PUT /v1/Authorization: a consumer key in, a signed token out.
import { z } from "zod";
import { directoryDb } from "../db/shards";
import { findActiveKeyByHash } from "../consumer-keys/consumer-keys.queries";
import { ApiError } from "../http/errors";
import { ok } from "../http/envelope";
import { createRouter } from "../app-env";
import { validate } from "../http/validate";
import { documented, envelope } from "../http/openapi";
import { sha256Hex, timingSafeEqual } from "../lib/crypto";
import { toWireDate, wireDateOrNull } from "../lib/dates";
import { throttleAddress } from "./authorize";
import { expiryOf, issueToken, type Lifespan } from "./tokens";

const INVALID_KEY = "The consumer key is not valid. Check it in the store's API settings, or ask the operator for a new one.";

// The key is only hashed and compared, never stored: one holding a lone surrogate is a malformed
// key like any other (401), so the route opts out of validate()'s stored-text check.
const authorizationBody = z.object({
  ConsumerKey: z.string().min(1).max(200),
});

export const authorizationRoutes = createRouter().put(
  "/",
  documented("exchange", {
    summary: "Exchange a consumer key for an access token",
    tags: ["Authorization"],
    answer: envelope({
      Token: z.string().describe("Goes in the path: /v1/{token}/..."),
      TokenExpirationDate: wireDateOrNull.describe("null for a key whose Lifespan is NeverExpires."),
    }),
  }),
  async (c, next) => {
    // Throttled per address before the body is even read, so keys cannot be guessed at speed.
    await throttleAddress(c);
    await next();
  },
  validate("json", authorizationBody, { storesText: false }),
  async (c) => {
    const { ConsumerKey } = c.req.valid("json");
    const keyHash = await sha256Hex(ConsumerKey);
    const key = await findActiveKeyByHash(directoryDb(c.env), keyHash);
    // The lookup is by hash, so its timing says nothing about the key; the comparison is
    // constant-time all the same.
    if (!key || !timingSafeEqual(key.keyHash, keyHash)) throw new ApiError(401, INVALID_KEY);
    const issuedAt = Date.now();
    const expiresAt = expiryOf(key.lifespan as Lifespan, issuedAt);
    const token = await issueToken(c.env.TOKEN_SIGNING_SECRET, { consumerKeyId: key.id, issuedAt, expiresAt });
    return ok(c, { Token: token, TokenExpirationDate: toWireDate(expiresAt) });
  },
);
