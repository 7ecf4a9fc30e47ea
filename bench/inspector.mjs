// A client of a `wrangler dev` Worker's inspector (the Chrome DevTools protocol wrangler serves
// on --inspector-port), for benches that sample the isolate's heap or take a CPU profile while
// they run. Uses the `ws` package: wrangler's inspector proxy refuses the handshake of Node's
// built-in WebSocket. Not a test helper.
import WebSocket from "ws";

/** Connects to the inspector on `port`; resolves to { send(method, params), close() }. */
export async function inspect(port) {
  const targets = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
  const target = targets.find((t) => t.webSocketDebuggerUrl) ?? targets[0];
  if (!target?.webSocketDebuggerUrl) throw new Error(`no inspector target on port ${port}: ${JSON.stringify(targets).slice(0, 300)}`);
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    socket.once("open", resolve);
    socket.once("error", (error) => reject(new Error(`inspector on ${port}: ${error.message}`)));
  });
  let id = 0;
  const waiting = new Map();
  socket.on("message", (data) => {
    const message = JSON.parse(String(data));
    const pending = message.id !== undefined && waiting.get(message.id);
    if (!pending) return;
    waiting.delete(message.id);
    if (message.error) pending.reject(new Error(`${pending.method}: ${message.error.message}`));
    else pending.resolve(message.result);
  });
  return {
    /** A command's result; rejected when the inspector has not answered within `timeoutMs`. */
    send(method, params = {}, timeoutMs = 10_000) {
      const messageId = ++id;
      socket.send(JSON.stringify({ id: messageId, method, params }));
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(messageId);
          reject(new Error(`${method}: no answer from the inspector in ${timeoutMs} ms`));
        }, timeoutMs);
        const settle = (finish) => (value) => {
          clearTimeout(timer);
          finish(value);
        };
        waiting.set(messageId, { resolve: settle(resolve), reject: settle(reject), method });
      });
    },
    close() {
      socket.close();
    },
  };
}

/**
 * The isolate's live heap: a heap snapshot makes V8 collect everything unreachable first (workerd's
 * inspector leaves HeapProfiler.collectGarbage unanswered, the snapshot it serves), then
 * Runtime.getHeapUsage. Resolves to { usedSize, backingStorageSize } in bytes: the JS heap, and the
 * ArrayBuffers' memory outside it.
 */
export async function liveHeap(inspector) {
  await inspector.send("HeapProfiler.takeHeapSnapshot", { reportProgress: false }, 120_000);
  return inspector.send("Runtime.getHeapUsage");
}

/**
 * Samples Runtime.getHeapUsage every `everyMs`; stop() resolves to the peaks in bytes: `used`, the
 * JS heap (garbage not yet collected included, so an upper bound of what is live), and `withBuffers`,
 * that heap plus the ArrayBuffers' backing stores at the same sample.
 */
export function sampleHeap(inspector, everyMs = 100) {
  const peak = { used: 0, withBuffers: 0 };
  let running = true;
  const loop = (async () => {
    while (running) {
      try {
        const { usedSize, backingStorageSize = 0 } = await inspector.send("Runtime.getHeapUsage");
        peak.used = Math.max(peak.used, usedSize);
        peak.withBuffers = Math.max(peak.withBuffers, usedSize + backingStorageSize);
      } catch {
        // a sample lost to a busy isolate: the next one counts
      }
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return async () => {
    running = false;
    await loop;
    return peak;
  };
}

/**
 * The functions that took the most CPU (self time) in a V8 CPU profile from Profiler.stop, as
 * [name (url:line), ms, share] rows, the `top` largest.
 */
export function hotFunctions(profile, top = 25) {
  const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  const deltas = profile.timeDeltas ?? [];
  let total = 0;
  for (let i = 0; i < (profile.samples ?? []).length; i++) {
    const node = byNode.get(profile.samples[i]);
    const us = deltas[i] ?? 0;
    total += us;
    const frame = node.callFrame;
    const name = `${frame.functionName || "(anonymous)"} (${(frame.url || "").split("/").slice(-2).join("/")}:${frame.lineNumber + 1})`;
    self.set(name, (self.get(name) ?? 0) + us);
  }
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, us]) => [name, us / 1000, us / total]);
}
