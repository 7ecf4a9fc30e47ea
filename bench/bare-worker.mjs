// The floor for bench/throttle.bench.mjs: a Worker that answers what GET /v1/{token}/Orders/count
// answers, with no routing, no auth, no throttle and no database.
const BODY = JSON.stringify({ Success: true, Message: "", Count: 20 });

export default {
  fetch() {
    return new Response(BODY, { headers: { "content-type": "application/json" } });
  },
};
