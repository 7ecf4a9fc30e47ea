// What one invocation of the mover (an alarm, or an advance() call) spends of Cloudflare's
// per-invocation limits, counted as it goes: the Worker's env with its bindings reporting to a
// count (src/lib/binding-tally.ts, the wrapper the tests' invocation meter uses too): each D1
// statement (each statement of a batch counts as one query, as Cloudflare counts them), each call
// to a Durable Object, an R2 bucket or a queue (a subrequest), and the largest value bound to a
// statement (production D1 takes at most 2 MB a value). runMove stops starting steps before the
// next could cross a limit and hands over to the next alarm. Local workerd enforces none of
// these; this is how a move stays inside them in production (docs/sharding.md, "Bounded work").
// The limits themselves are CLOUDFLARE_LIMITS in src/lib/binding-tally.ts.
import { tallyBindings } from "../lib/binding-tally";

export interface InvocationCount {
  d1Queries: number;
  subrequests: number;
  /** The largest value bound to any statement, in UTF-8 bytes. */
  largestValueBytes: number;
}

/** An env whose D1 databases, Durable Object namespaces, buckets and queues count what they are asked into `count`. */
export function countedEnv(env: Env, count: InvocationCount): Env {
  return tallyBindings(env, {
    d1: (queries) => {
      count.d1Queries += queries;
    },
    value: (bytes) => {
      count.largestValueBytes = Math.max(count.largestValueBytes, bytes);
    },
    call: () => {
      count.subrequests += 1;
    },
  });
}
