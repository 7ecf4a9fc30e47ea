// The Worker as the tests run it (vitest.config.ts names this file as `main`): src/index.ts with
// every handler call and every Durable Object call or alarm run as one metered invocation, its
// bindings wrapped (test/helpers/invocation-meter.ts). Nothing here changes what the service does;
// a test that goes past one of Cloudflare's per-invocation limits fails (test/setup/invocation-limits.ts).
import worker from "../../src/index";
import * as service from "../../src/index";
import { invocation, meterEnv } from "../helpers/invocation-meter";

type ObjectClass = abstract new (ctx: DurableObjectState, env: Env) => object;

/** The class with its env metered and each of its methods (RPC, fetch, alarm) one invocation. */
function metered<C extends ObjectClass>(Base: C, name: string): C {
  abstract class Metered extends (Base as unknown as new (ctx: DurableObjectState, env: Env) => object) {
    constructor(ctx: DurableObjectState, env: Env) {
      super(ctx, meterEnv(env));
    }
  }
  for (const key of Object.getOwnPropertyNames(Base.prototype)) {
    const descriptor = Object.getOwnPropertyDescriptor(Base.prototype, key)!;
    if (key === "constructor" || typeof descriptor.value !== "function") continue;
    const method = descriptor.value as (...args: unknown[]) => unknown;
    Object.defineProperty(Metered.prototype, key, {
      ...descriptor,
      value: function (this: object, ...args: unknown[]) {
        return invocation(`${name}.${key}`, this, () => method.apply(this, args));
      },
    });
  }
  Object.defineProperty(Metered, "name", { value: name });
  return Metered as unknown as C;
}

// Any class src/index.ts adds later is still exported (unmetered, test/limits/meter.test.ts says so)
// until it is listed below: a local export wins over `export *`.
export * from "../../src/index";
export const RateLimiter = metered(service.RateLimiter, "RateLimiter");
export const SourceSync = metered(service.SourceSync, "SourceSync");
export const FeedCompiler = metered(service.FeedCompiler, "FeedCompiler");
export const WebhookSender = metered(service.WebhookSender, "WebhookSender");
export const StoreMover = metered(service.StoreMover, "StoreMover");

export default {
  fetch(request, env, ctx) {
    return invocation(`fetch ${request.method} ${new URL(request.url).pathname}`, undefined, () => worker.fetch(request, meterEnv(env), ctx));
  },
  scheduled(controller, env, ctx) {
    return invocation("scheduled", undefined, () => worker.scheduled(controller, meterEnv(env), ctx));
  },
  queue(batch, env) {
    return invocation("queue", undefined, () => worker.queue(batch, meterEnv(env)));
  },
} satisfies ExportedHandler<Env>;
