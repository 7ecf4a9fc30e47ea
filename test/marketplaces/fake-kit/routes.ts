// How every fake finds the operation of its description a request is for: the description's
// paths as regexes (a `{name}` stands for one path segment, captured), literal paths tried before
// templated ones, so /v3/orders/released is not read as /v3/orders/{purchaseOrderId}.

export interface Route<Op> {
  op: Op;
  regex: RegExp;
}

/** The operations as routes, fewest path parameters first (the order among equals kept). */
export function routesOf<Op extends { path: string }>(operations: readonly Op[]): Route<Op>[] {
  const params = (path: string) => path.match(/\{/g)?.length ?? 0;
  return [...operations]
    .sort((a, b) => params(a.path) - params(b.path))
    .map((op) => ({ op, regex: new RegExp(`^${op.path.replace(/\{[^}]+\}/g, "([^/]+)")}$`) }));
}
