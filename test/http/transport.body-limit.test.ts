// The admin body limit counts a streamed body instead of buffering it (catalog uploads of up to
// 100 MB must not be held in an isolate's 128 MB). Driven on a small app so the limit is small.
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { AppEnv } from "../../src/app-env";
import { ApiError } from "../../src/http/errors";
import { limitStreamedBody } from "../../src/http/transport";

function appWithLimit(maxSize: number) {
  const app = new Hono<AppEnv>();
  let read = 0;
  app.use("*", limitStreamedBody(maxSize));
  app.put("/upload", async (c) => {
    const reader = c.req.raw.body!.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      read += value.byteLength;
    }
    return c.json({ read });
  });
  app.onError((error, c) => c.json({ Message: error.message }, error instanceof ApiError ? error.status : 500));
  return { app, bytesRead: () => read };
}

/** A body with no Content-Length: `chunks` pieces of `size` bytes each. */
function stream(chunks: number, size: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent++ === chunks) return controller.close();
      controller.enqueue(new Uint8Array(size).fill(65));
    },
  });
}

describe("limitStreamedBody", () => {
  it("passes a streamed body under the limit through whole", async () => {
    const { app } = appWithLimit(100);
    const res = await app.request("/upload", { method: "PUT", body: stream(4, 20) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ read: 80 });
  });

  it("answers 413 once a streamed body passes the limit, having handed on only what fit", async () => {
    const { app, bytesRead } = appWithLimit(100);
    const res = await app.request("/upload", { method: "PUT", body: stream(50, 20) });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ Message: "The request body is larger than 100 bytes." });
    expect(bytesRead()).toBe(100);
  });

  it("refuses a declared Content-Length over the limit before reading anything", async () => {
    const { app, bytesRead } = appWithLimit(100);
    const res = await app.request("/upload", { method: "PUT", body: "x".repeat(101), headers: { "content-length": "101" } });
    expect(res.status).toBe(413);
    expect(bytesRead()).toBe(0);
  });
});
