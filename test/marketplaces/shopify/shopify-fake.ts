// A fake Shopify GraphQL Admin API (2026-01) for tests in workerd. Every request is parsed and
// validated with graphql-js against the schema extracts of ../shared/reference/shopify/ (orders and
// stock loaded by vitest.config.ts, returns and refunds imported from schema/ as text; types the
// extracts name but leave out become opaque scalars, the interfaces they leave out are dropped, an
// interface they define resolves by the fixture's __typename), deprecated fields and arguments
// included in the check, and then
// executed over fixtures in the schema's shape (shopify-fixtures.ts). A request the schema
// rejects, a search the fake does not understand, a cursor it never issued or a query over the
// 1,000-point ceiling is answered as Shopify would and recorded in `violations`. What a merchant
// does in Shopify's own admin (fulfilInAdmin, refundInAdmin, touch) changes the fixtures as the
// API's mutations do: a fulfillment with its line items, a Refund that moves the line counts.
//
// Throttling: a leaky bucket of cost points (maximumAvailable, restoreRate per second) on the
// fake's clock. The cost model is the fake's own reading of Shopify's published method (scalars
// and enums 0, objects 1, connections 2 + `first` x their nodes, mutations 10); the connector
// never computes cost, it reads `extensions.cost` like it does from Shopify.
import { env } from "cloudflare:workers";
import {
  type GraphQLError,
  Kind,
  NoDeprecatedCustomRule,
  buildASTSchema,
  execute,
  getNamedType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  parse,
  specifiedRules,
  validate,
  visit,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLFieldResolver,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from "graphql";
import { badDay, faultQueue, faultResponse, type AnswerFault } from "../fake-kit/faults";
import { supportedActions, type Json } from "./shopify-fixtures";
import { shopifyListingsFake, type ShopifyListingsOptions } from "./shopify-listings-fake";
import { shopifyReturnsFake } from "./shopify-returns-fake";

// The returns-and-refunds extract, a byte-for-byte copy of the reference's (schema/).
const RETURNS_SCHEMA = Object.values(
  import.meta.glob("./schema/admin-2026-01.returns-refunds-subset.graphql", { query: "?raw", import: "default", eager: true }) as Record<string, string>,
)[0]!;

export const SHOPIFY_FAKE_SHOP = "hub-test.myshopify.com";
export const SHOPIFY_FAKE_TOKEN = "shpat_fake_admin_token_0123456789";
const API_PATH = "/admin/api/2026-01/graphql.json";
const MAX_QUERY_COST = 1000;
const BUILT_IN = new Set(["String", "Int", "Float", "Boolean", "ID"]);

let cachedSchema: GraphQLSchema | null = null;

/** The extract as an executable schema: left-out types as scalars, left-out interfaces dropped. */
export function shopifySchema(): GraphQLSchema {
  if (cachedSchema) return cachedSchema;
  const document = mergeExtracts(mergeExtracts(parse(env.TEST_SHOPIFY_SCHEMA), parse(env.TEST_SHOPIFY_STOCK_SCHEMA)), parse(RETURNS_SCHEMA));
  const defined = new Set(document.definitions.flatMap((d) => ("name" in d && d.name ? [d.name.value] : [])));
  const missing = new Set<string>();
  const completed = visit(document, {
    ObjectTypeDefinition: (node) => ({ ...node, interfaces: (node.interfaces ?? []).filter((i) => defined.has(i.name.value)) }),
    InterfaceTypeDefinition: (node) => ({ ...node, interfaces: (node.interfaces ?? []).filter((i) => defined.has(i.name.value)) }),
    NamedType: (node) => {
      if (!defined.has(node.name.value) && !BUILT_IN.has(node.name.value)) missing.add(node.name.value);
    },
  });
  const opaque = [...missing].map((name) => ({ kind: Kind.SCALAR_TYPE_DEFINITION, name: { kind: Kind.NAME, value: name } }) as const);
  cachedSchema = buildASTSchema({ ...completed, definitions: [...completed.definitions, ...opaque] });
  return cachedSchema;
}

/**
 * The orders and the stock-and-price extracts as one document: both cut QueryRoot and Mutation
 * (their fields are joined); any other type both define is the same definition, kept once.
 */
function mergeExtracts(a: DocumentNode, b: DocumentNode): DocumentNode {
  const byName = new Map<string, DocumentNode["definitions"][number]>();
  const unnamed: DocumentNode["definitions"][number][] = [];
  for (const definition of [...a.definitions, ...b.definitions]) {
    const name = "name" in definition && definition.name ? definition.name.value : null;
    if (name === null) {
      unnamed.push(definition);
      continue;
    }
    const earlier = byName.get(name);
    if (earlier && earlier.kind === Kind.OBJECT_TYPE_DEFINITION && definition.kind === Kind.OBJECT_TYPE_DEFINITION) {
      const known = new Set((earlier.fields ?? []).map((f) => f.name.value));
      byName.set(name, { ...earlier, fields: [...(earlier.fields ?? []), ...(definition.fields ?? []).filter((f) => !known.has(f.name.value))] });
    } else if (!earlier) byName.set(name, definition);
  }
  return { ...a, definitions: [...byName.values(), ...unnamed] };
}

export interface RecordedCall {
  operationName: string | null;
  query: string;
  variables: Record<string, unknown>;
  /** Root fields the operation asked for (orders, fulfillmentCreate, ...). */
  fields: string[];
  status: number;
  requestedCost: number | null;
  actualCost: number | null;
  throttled: boolean;
  /** The fake's clock when the call arrived (ms). */
  at: number;
  /** Points available just before the call, after restoring. */
  availableBefore: number;
  errors: string[];
}

export interface ShopifyFakeOptions {
  orders?: Json[];
  now?: () => Date;
  maximumAvailable?: number;
  restoreRate?: number;
  accessToken?: string;
  /** The host calls must go to: the shop's domain unless a test sets a baseUrl. */
  host?: string;
  /** Variants and locations for stock and price calls (shopify-listings-fake.ts). */
  listings?: ShopifyListingsOptions;
}

interface PendingJob {
  job: Json;
  order: Json;
  reason: string;
}

export function createShopifyFake(opts: ShopifyFakeOptions = {}) {
  const schema = shopifySchema();
  const now = opts.now ?? (() => new Date());
  const token = opts.accessToken ?? SHOPIFY_FAKE_TOKEN;
  const orders: Json[] = structuredClone(opts.orders ?? []);
  const calls: RecordedCall[] = [];
  const violations: string[] = [];
  const issuedCursors = new Set<string>();
  const faults = faultQueue<"api">("api");
  const rejections = new Map<string, Json[]>();
  const pendingJobs: PendingJob[] = [];
  const bucket = {
    maximum: opts.maximumAvailable ?? 2000,
    restoreRate: opts.restoreRate ?? 100,
    available: opts.maximumAvailable ?? 2000,
    at: now().getTime(),
  };
  let serial = 0;

  const nowIso = () =>
    now()
      .toISOString()
      .replace(/\.\d{3}Z$/, "Z");

  function restore(): number {
    const t = now().getTime();
    bucket.available = Math.min(bucket.maximum, bucket.available + (bucket.restoreRate * Math.max(0, t - bucket.at)) / 1000);
    bucket.at = t;
    return bucket.available;
  }

  function throttleStatus() {
    return { maximumAvailable: bucket.maximum, currentlyAvailable: Math.floor(bucket.available), restoreRate: bucket.restoreRate };
  }

  // ---- lookups ---------------------------------------------------------------------------
  const allFulfillmentOrders = () => orders.flatMap((o) => (o.fulfillmentOrders as Json[]).map((fo) => ({ order: o, fo })));
  const findOrder = (id: unknown) => orders.find((o) => o.id === id) ?? null;

  // ---- paging ----------------------------------------------------------------------------
  function page(items: Json[], args: Record<string, unknown>, keyOf: (item: Json) => string, field: string) {
    let start = 0;
    if (typeof args.after === "string") {
      if (!issuedCursors.has(args.after)) violations.push(`${field}(after: ${args.after}): not a cursor this fake issued`);
      const key = atob(args.after);
      const index = items.findIndex((item) => keyOf(item) > key);
      start = index < 0 ? items.length : index;
    }
    if (typeof args.first !== "number") violations.push(`${field}: a connection needs first:`);
    const first = typeof args.first === "number" ? args.first : 0;
    const nodes = items.slice(start, start + first);
    const cursors = nodes.map((n) => btoa(keyOf(n)));
    for (const c of cursors) issuedCursors.add(c);
    return {
      edges: nodes.map((node, i) => ({ node, cursor: cursors[i] })),
      nodes,
      pageInfo: {
        hasNextPage: start + first < items.length,
        hasPreviousPage: start > 0,
        startCursor: cursors[0] ?? null,
        endCursor: cursors.at(-1) ?? null,
      },
    };
  }

  // Lists keep their order; a cursor is the item's position key, zero-padded so keys sort.
  const positional = (items: Json[]) => (item: Json) => String(items.indexOf(item)).padStart(6, "0");

  const fieldResolver: GraphQLFieldResolver<unknown, unknown> = (source, args, context, info) => {
    const value = (source as Json | null)?.[info.fieldName];
    if (typeof value === "function") return (value as (a: unknown, c: unknown) => unknown)(args, context);
    const named = getNamedType(info.returnType);
    if (Array.isArray(value) && named.name.endsWith("Connection")) {
      return page(value as Json[], args, positional(value as Json[]), `${info.parentType.name}.${info.fieldName}`);
    }
    if (Array.isArray(value) && typeof args.first === "number") return value.slice(0, args.first);
    return value;
  };

  // ---- the search syntax of `orders(query:)` -------------------------------------------------
  function ordersMatching(query: unknown): Json[] {
    const terms = typeof query === "string" ? (query.match(/(?:[^\s']+|'[^']*')+/g) ?? []) : [];
    let result = orders;
    for (const term of terms) {
      const m = /^updated_at:(>=|<=|>|<)?'?([^']+)'?$/.exec(term);
      const at = m ? Date.parse(m[2]!) : NaN;
      if (!m || Number.isNaN(at)) {
        violations.push(`orders(query:): the fake does not understand the term ${term}`);
        continue;
      }
      const op = m[1] ?? "=";
      result = result.filter((o) => {
        const u = Date.parse(o.updatedAt as string);
        return op === ">=" ? u >= at : op === "<=" ? u <= at : op === ">" ? u > at : op === "<" ? u < at : u === at;
      });
    }
    return result;
  }

  const orderKey = (o: Json) => `${o.updatedAt as string}|${o.id as string}`;

  // ---- mutations -------------------------------------------------------------------------
  function takeRejection(field: string): Json[] | null {
    const errors = rejections.get(field);
    if (!errors) return null;
    rejections.delete(field);
    return errors;
  }

  function refreshOrderStatus(order: Json): void {
    const lines = (order.fulfillmentOrders as Json[]).flatMap((fo) => fo.lineItems as Json[]);
    const remaining = lines.reduce((s, l) => s + (l.remainingQuantity as number), 0);
    const total = lines.reduce((s, l) => s + (l.totalQuantity as number), 0);
    order.displayFulfillmentStatus = remaining === 0 ? "FULFILLED" : remaining < total ? "PARTIALLY_FULFILLED" : "UNFULFILLED";
    order.updatedAt = nowIso();
  }

  function fulfillmentCreate(args: { fulfillment: Json }) {
    const rejected = takeRejection("fulfillmentCreate");
    if (rejected) return { fulfillment: null, userErrors: rejected };
    const input = args.fulfillment;
    const groups = input.lineItemsByFulfillmentOrder as Json[];
    const userError = (message: string) => ({ fulfillment: null, userErrors: [{ field: ["fulfillment"], message }] });
    if (groups.length === 0) return userError("Line items by fulfillment order must not be empty.");
    const found = groups.map((g) => ({ g, hit: allFulfillmentOrders().find((x) => x.fo.id === g.fulfillmentOrderId) }));
    if (found.some((f) => !f.hit)) return userError("Fulfillment order does not exist.");
    const order = found[0]!.hit!.order;
    if (found.some((f) => f.hit!.order !== order)) return userError("All fulfillment orders must belong to the same order.");
    const location = (found[0]!.hit!.fo.assignedLocation as Json).name;
    if (found.some((f) => (f.hit!.fo.assignedLocation as Json).name !== location)) {
      return userError("All fulfillment orders must be assigned to the same location.");
    }
    const takes: { line: Json; quantity: number }[] = [];
    for (const { g, hit } of found) {
      const fo = hit!.fo;
      const actions = (fo.supportedActions as Json[]).map((a) => a.action);
      if (!actions.includes("CREATE_FULFILLMENT"))
        return userError(`Fulfillment order ${fo.id as string} has an unfulfillable status= ${fo.status as string}.`);
      const lines = fo.lineItems as Json[];
      const wanted = (g.fulfillmentOrderLineItems as Json[] | null) ?? lines.map((l) => ({ id: l.id, quantity: l.remainingQuantity }));
      for (const w of wanted) {
        const line = lines.find((l) => l.id === w.id);
        if (!line) return userError(`Fulfillment order line item ${w.id as string} does not belong to ${fo.id as string}.`);
        const q = w.quantity as number;
        if (!(q > 0) || q > (line.remainingQuantity as number)) return userError("Invalid fulfillment order line item quantity requested.");
        takes.push({ line, quantity: q });
      }
    }
    const fulfillment = fulfil(
      order,
      found.map((f) => f.hit!.fo),
      takes,
      input.trackingInfo as Json | null | undefined,
      (input.notifyCustomer as boolean | undefined) ?? false,
    );
    return { fulfillment, userErrors: [] };
  }

  /** Fulfils these fulfillment order lines (checked by the caller): a SUCCESS fulfillment with its line items. */
  function fulfil(order: Json, fos: Json[], takes: { line: Json; quantity: number }[], tracking: Json | null | undefined, notifyCustomer: boolean): Json {
    for (const t of takes) {
      t.line.remainingQuantity = (t.line.remainingQuantity as number) - t.quantity;
      const lineItem = t.line.lineItem as Json;
      lineItem.unfulfilledQuantity = (lineItem.unfulfilledQuantity as number) - t.quantity;
      lineItem.fulfilledQuantity = ((lineItem.fulfilledQuantity as number | undefined) ?? 0) + t.quantity;
    }
    for (const fo of fos) {
      if ((fo.lineItems as Json[]).every((l) => l.remainingQuantity === 0)) {
        fo.status = "CLOSED";
        fo.supportedActions = supportedActions("CLOSED");
      }
      fo.updatedAt = nowIso();
    }
    serial += 1;
    const fulfillment: Json = {
      id: `gid://shopify/Fulfillment/${900000 + serial}`,
      legacyResourceId: String(900000 + serial),
      name: `${order.name as string}-F${(order.fulfillments as Json[]).length + 1}`,
      status: "SUCCESS",
      displayStatus: "FULFILLED",
      createdAt: nowIso(),
      updatedAt: nowIso(),
      requiresShipping: true,
      totalQuantity: takes.reduce((s, t) => s + t.quantity, 0),
      trackingInfo:
        tracking && (tracking.number || tracking.company) ? [{ number: tracking.number ?? null, company: tracking.company ?? null, url: null }] : [],
      notifyCustomer,
      lines: takes.map((t) => ({ fulfillmentOrderLineItemId: t.line.id, lineItemId: (t.line.lineItem as Json).id, quantity: t.quantity })),
      fulfillmentLineItems: takes.map((t, i) => ({
        id: `gid://shopify/FulfillmentLineItem/${(900000 + serial) * 10 + i + 1}`,
        quantity: t.quantity,
        lineItem: t.line.lineItem,
      })),
    };
    (order.fulfillments as Json[]).push(fulfillment);
    refreshOrderStatus(order);
    return fulfillment;
  }

  function fulfillmentTrackingInfoUpdate(args: { fulfillmentId: string; trackingInfoInput: Json; notifyCustomer?: boolean | null }) {
    const rejected = takeRejection("fulfillmentTrackingInfoUpdate");
    if (rejected) return { fulfillment: null, userErrors: rejected };
    const order = orders.find((o) => (o.fulfillments as Json[]).some((f) => f.id === args.fulfillmentId));
    const fulfillment = order ? (order.fulfillments as Json[]).find((f) => f.id === args.fulfillmentId)! : null;
    if (!order || !fulfillment) return { fulfillment: null, userErrors: [{ field: ["fulfillmentId"], message: "Fulfillment does not exist." }] };
    const t = args.trackingInfoInput;
    fulfillment.trackingInfo = [{ number: t.number ?? null, company: t.company ?? null, url: t.url ?? null }];
    fulfillment.updatedAt = nowIso();
    fulfillment.trackingNotifyCustomer = args.notifyCustomer ?? null;
    order.updatedAt = nowIso();
    return { fulfillment, userErrors: [] };
  }

  function orderCancel(args: Json) {
    const rejected = takeRejection("orderCancel");
    if (rejected) return { job: null, orderCancelUserErrors: rejected, userErrors: [] };
    const order = findOrder(args.orderId);
    if (!order) return { job: null, orderCancelUserErrors: [{ code: "NOT_FOUND", field: ["orderId"], message: "Order does not exist." }], userErrors: [] };
    if (order.cancelledAt || pendingJobs.some((j) => j.order === order)) {
      return {
        job: null,
        orderCancelUserErrors: [{ code: "INVALID", field: ["orderId"], message: "Cannot cancel an order that has already been cancelled." }],
        userErrors: [],
      };
    }
    serial += 1;
    const job = { id: `gid://shopify/Job/${crypto.randomUUID()}`, done: false, query: null };
    pendingJobs.push({ job, order, reason: args.reason as string });
    order.cancelArgs = args;
    return { job, orderCancelUserErrors: [], userErrors: [] };
  }

  const listings = shopifyListingsFake(opts.listings ?? {}, violations);
  const returnsFake = shopifyReturnsFake({ orders, violations, nowIso });

  const root = {
    ...listings.root,
    inventorySetQuantities: (args: { input: Json }, context: { idempotencyKey: string | null }) =>
      listings.root.inventorySetQuantities(args, context.idempotencyKey),
    orders: (args: Json) => {
      if (args.sortKey !== "UPDATED_AT") violations.push(`orders(sortKey: ${String(args.sortKey)}): the import must sort by UPDATED_AT`);
      if (args.reverse) violations.push("orders(reverse: true): the import pages oldest first");
      const sorted = [...ordersMatching(args.query)].sort((a, b) => (orderKey(a) < orderKey(b) ? -1 : orderKey(a) > orderKey(b) ? 1 : 0));
      return page(sorted, args, orderKey, "orders");
    },
    order: (args: Json) => findOrder(args.id),
    fulfillmentOrder: (args: Json) => allFulfillmentOrders().find((x) => x.fo.id === args.id)?.fo ?? null,
    fulfillmentCreate,
    fulfillmentTrackingInfoUpdate,
    orderCancel,
    ...returnsFake.root,
  };

  // ---- cost ------------------------------------------------------------------------------
  function argValue(node: ValueNode | undefined, variables: Record<string, unknown>): unknown {
    if (!node) return undefined;
    if (node.kind === Kind.VARIABLE) return variables[node.name.value];
    if (node.kind === Kind.INT) return Number(node.value);
    return undefined;
  }

  function selectionCost(
    set: SelectionSetNode | undefined,
    type: GraphQLObjectType,
    fragments: Map<string, FragmentDefinitionNode>,
    variables: Record<string, unknown>,
    data: unknown,
  ): number {
    if (!set) return 0;
    let total = 0;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        total += selectionCost(fragments.get(selection.name.value)?.selectionSet, type, fragments, variables, data);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        total += selectionCost(selection.selectionSet, type, fragments, variables, data);
      } else {
        total += fieldCost(selection, type, fragments, variables, data);
      }
    }
    return total;
  }

  function fieldCost(
    field: FieldNode,
    parent: GraphQLObjectType,
    fragments: Map<string, FragmentDefinitionNode>,
    variables: Record<string, unknown>,
    data: unknown,
  ): number {
    const def = parent.getFields()[field.name.value];
    if (!def) return 0;
    let type: GraphQLOutputType = def.type;
    if (isNonNullType(type)) type = type.ofType;
    const named = getNamedType(type);
    if (isLeafType(named) || !isObjectType(named)) return 0;
    const value = data === undefined ? undefined : (data as Json | null)?.[field.alias?.value ?? field.name.value];
    const firstArg = field.arguments?.find((a) => a.name.value === "first" || a.name.value === "last");
    const first = Number(argValue(firstArg?.value, variables) ?? 1);
    if (named.name.endsWith("Connection")) {
      // pageInfo and the like once; what is under nodes/edges once per node.
      const connection = value as Json | null | undefined;
      const nodes = (connection?.nodes ?? (connection?.edges as Json[] | undefined)?.map((e) => e.node)) as unknown[] | undefined;
      let perNode = 0;
      let once = 0;
      for (const sel of field.selectionSet?.selections ?? []) {
        if (sel.kind !== Kind.FIELD) continue;
        if (sel.name.value === "nodes" || sel.name.value === "edges") {
          const nodeType = getNamedType(named.getFields()[sel.name.value]!.type) as GraphQLObjectType;
          const nodeSet =
            sel.name.value === "nodes"
              ? sel.selectionSet
              : sel.selectionSet?.selections.find((s): s is FieldNode => s.kind === Kind.FIELD && s.name.value === "node")?.selectionSet;
          const innerType = sel.name.value === "nodes" ? nodeType : (getNamedType(nodeType.getFields().node!.type) as GraphQLObjectType);
          if (data === undefined) perNode += 1 + selectionCost(nodeSet, innerType, fragments, variables, undefined);
          else for (const n of nodes ?? []) perNode += 1 + selectionCost(nodeSet, innerType, fragments, variables, n);
        } else {
          once += selectionCost({ kind: Kind.SELECTION_SET, selections: [sel] }, named, fragments, variables, connection ?? undefined);
        }
      }
      return 2 + once + (data === undefined ? first * perNode : perNode);
    }
    if (isListType(type) || (isNonNullType(type) && isListType(type.ofType))) {
      if (data === undefined) return first * (1 + selectionCost(field.selectionSet, named, fragments, variables, undefined));
      return ((value as unknown[] | null) ?? []).reduce<number>((s, item) => s + 1 + selectionCost(field.selectionSet, named, fragments, variables, item), 0);
    }
    if (data !== undefined && (value === null || value === undefined)) return 0;
    return 1 + selectionCost(field.selectionSet, named, fragments, variables, value ?? undefined);
  }

  function operationCost(document: DocumentNode, operation: OperationDefinitionNode, variables: Record<string, unknown>, data?: unknown): number {
    const fragments = new Map(
      document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
    );
    if (operation.operation === "mutation") return 10 * operation.selectionSet.selections.length;
    return selectionCost(operation.selectionSet, schema.getQueryType()!, fragments, variables, data);
  }

  // ---- the endpoint ----------------------------------------------------------------------
  function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
    return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });
  }

  const fakeFetch: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    if (request.signal?.aborted) throw request.signal.reason;
    const url = new URL(request.url);
    const text = request.body ? await request.text() : "";
    const at = now().getTime();
    const record: RecordedCall = {
      operationName: null,
      query: "",
      variables: {},
      fields: [],
      status: 0,
      requestedCost: null,
      actualCost: null,
      throttled: false,
      at,
      availableBefore: restore(),
      errors: [],
    };
    calls.push(record);
    const answer = (status: number, body: unknown, headers?: Record<string, string>) => {
      record.status = status;
      const errors = (body as { errors?: unknown })?.errors;
      if (Array.isArray(errors)) record.errors = errors.map((e) => String((e as Json).message));
      else if (typeof errors === "string") record.errors = [errors];
      return json(status, body, headers);
    };
    const violation = (status: number, message: string) => {
      violations.push(message);
      return answer(status, { errors: status === 200 ? [{ message }] : message });
    };

    if (request.method !== "POST") return violation(405, `${request.method} ${url.pathname}: the GraphQL endpoint takes POST`);
    if (url.protocol !== "https:" || url.host !== (opts.host ?? SHOPIFY_FAKE_SHOP)) {
      return violation(404, `${url.origin}: not https://${opts.host ?? SHOPIFY_FAKE_SHOP}`);
    }
    if (url.pathname !== API_PATH) return violation(404, `${url.pathname}: not ${API_PATH}`);
    if ((request.headers.get("Content-Type") ?? "").split(";")[0]!.trim() !== "application/json") {
      return violation(415, `Content-Type must be application/json, got ${request.headers.get("Content-Type") ?? "none"}`);
    }
    if (request.headers.get("X-Shopify-Access-Token") !== token) {
      record.status = 401;
      record.errors = ["[API] Invalid API key or access token (unrecognized login or wrong password)"];
      return json(401, { errors: record.errors[0] });
    }
    const fault = faults.take("api", operationNameOf(text));
    if (fault) {
      if (fault.kind === "answer") record.status = fault.status;
      // A string goes out as it is (a proxy's page, a cut-off answer).
      return faultResponse(fault, (f) => answer(f.status, f.body ?? { errors: "Internal Server Error" }, f.headers));
    }

    let body: { query?: unknown; variables?: unknown; operationName?: unknown };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      return violation(400, "the body is not JSON");
    }
    if (typeof body.query !== "string") return violation(400, "the body has no query string");
    const variables = (body.variables ?? {}) as Record<string, unknown>;
    record.query = body.query;
    record.variables = variables;
    record.operationName = typeof body.operationName === "string" ? body.operationName : null;

    let document: DocumentNode;
    try {
      document = parse(body.query);
    } catch (error) {
      return violation(200, `syntax: ${(error as Error).message}`);
    }
    const problems = validate(schema, document, [...specifiedRules, NoDeprecatedCustomRule]);
    if (problems.length > 0) {
      for (const p of problems) violations.push(`${record.operationName ?? "query"}: ${p.message}`);
      return answer(200, { errors: problems.map((p) => ({ message: p.message, locations: p.locations, extensions: { code: "GRAPHQL_VALIDATION_FAILED" } })) });
    }
    const operation = document.definitions.find(
      (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION && (record.operationName === null || d.name?.value === record.operationName),
    );
    if (!operation) return violation(200, `no operation named ${record.operationName}`);
    record.fields = operation.selectionSet.selections.flatMap((s) => (s.kind === Kind.FIELD ? [s.name.value] : []));

    const requested = operationCost(document, operation, variables);
    record.requestedCost = requested;
    if (requested > MAX_QUERY_COST) {
      violations.push(`${record.operationName}: requested cost ${requested} is over ${MAX_QUERY_COST}`);
      return answer(200, {
        errors: [
          {
            message: `Query cost is ${requested}, which exceeds the single query max cost limit (${MAX_QUERY_COST}).`,
            extensions: { code: "MAX_COST_EXCEEDED", cost: requested, maxCost: MAX_QUERY_COST },
          },
        ],
      });
    }
    if (bucket.available < requested) {
      record.throttled = true;
      return answer(200, {
        errors: [{ message: "Throttled", extensions: { code: "THROTTLED" } }],
        extensions: { cost: { requestedQueryCost: requested, actualQueryCost: null, throttleStatus: throttleStatus() } },
      });
    }

    const result = await execute({
      schema,
      document,
      rootValue: root,
      contextValue: { idempotencyKey: idempotencyKeyOf(operation, variables) },
      variableValues: variables,
      operationName: record.operationName ?? undefined,
      fieldResolver,
    });
    if ("errors" in result && result.errors?.length) {
      for (const e of result.errors as readonly GraphQLError[]) violations.push(`${record.operationName}: execution: ${e.message} at ${e.path?.join(".")}`);
    }
    const actual = operation.operation === "mutation" ? requested : operationCost(document, operation, variables, result.data ?? {});
    record.actualCost = actual;
    bucket.available -= actual;
    return answer(200, {
      ...(result.data !== undefined ? { data: result.data } : {}),
      ...(result.errors?.length ? { errors: result.errors.map((e) => ({ message: e.message, path: e.path })) } : {}),
      extensions: { cost: { requestedQueryCost: requested, actualQueryCost: actual, throttleStatus: throttleStatus() } },
    });
  };

  /** The @idempotent key of the operation's inventorySetQuantities or refundCreate (at most one such field). */
  function idempotencyKeyOf(operation: OperationDefinitionNode, variables: Record<string, unknown>): string | null {
    const keyed = new Set(["inventorySetQuantities", "refundCreate"]);
    const fields = operation.selectionSet.selections.filter((f): f is FieldNode => f.kind === Kind.FIELD && keyed.has(f.name.value));
    if (fields.length > 1) violations.push("one keyed mutation per operation: the fake keys idempotency by operation");
    const argument = fields[0]?.directives?.find((d) => d.name.value === "idempotent")?.arguments?.find((a) => a.name.value === "key")?.value;
    const key = argument?.kind === Kind.STRING ? argument.value : argument?.kind === Kind.VARIABLE ? variables[argument.name.value] : null;
    if (fields.length > 0 && (typeof key !== "string" || key.trim() === ""))
      violations.push(`${fields[0]!.name.value} without an @idempotent key (required from 2026-04)`);
    return typeof key === "string" ? key : null;
  }

  return {
    fetch: fakeFetch,
    calls,
    /** A variant's stock and price as the fake holds them now. */
    variant: listings.variant,
    violations,
    orders,
    order: (n: number) => orders.find((o) => o.legacyResourceId === String(5000000000 + n))!,
    /** Calls of one operation (by root field: orders, order, fulfillmentCreate, ...). */
    callsOf: (field: string) => calls.filter((c) => c.fields.includes(field)),
    /** Sets the bucket's level now (0 drains it). */
    setAvailable(points: number) {
      restore();
      bucket.available = points;
    },
    available: () => restore(),
    /** Answer the next request with this instead of executing it (a string goes out as it is). */
    failNext: faults.failNext,
    failNextWithError: faults.failNextWithError,
    /** The next call of this mutation answers these userErrors. */
    rejectNext(field: "fulfillmentCreate" | "fulfillmentTrackingInfoUpdate" | "orderCancel", errors: Json[]) {
      rejections.set(field, errors);
    },
    /** Runs every queued orderCancel job: the order shows as cancelled. */
    completeJobs() {
      for (const { job, order, reason } of pendingJobs.splice(0)) {
        order.cancelledAt = nowIso();
        order.cancelReason = reason;
        order.closed = true;
        for (const fo of order.fulfillmentOrders as Json[]) {
          if (fo.status !== "CLOSED") {
            fo.status = "CANCELLED";
            fo.supportedActions = supportedActions("CANCELLED");
          }
        }
        order.updatedAt = nowIso();
        job.done = true;
      }
    },
    /** Marks queued jobs done without cancelling (what a failed job looks like from outside). */
    dropJobs() {
      for (const { job } of pendingJobs.splice(0)) job.done = true;
    },
    pendingJobs: () => pendingJobs.length,
    /** Returns and refunds (shopify-returns-fake.ts): add a return to an order, read what refundCreate made. */
    addReturn: returnsFake.addReturn,
    refunds: returnsFake.refunds,
    /**
     * The merchant fulfils units in Shopify's admin (not through the API): one fulfillment of the
     * order's line items (by index) and units, from its open fulfillment orders. Answers its GID.
     */
    fulfilInAdmin(n: number, lines: { line: number; quantity: number }[], tracking: { number: string; company: string } | null = null): string {
      const order = orders.find((o) => o.legacyResourceId === String(5000000000 + n))!;
      const takes = lines.map(({ line, quantity }) => {
        const lineItem = (order.lineItems as Json[])[line]!;
        const foLine = (order.fulfillmentOrders as Json[]).flatMap((fo) => fo.lineItems as Json[]).find((l) => l.lineItem === lineItem)!;
        if (quantity > (foLine.remainingQuantity as number)) throw new Error(`line ${line} of order ${n} has ${String(foLine.remainingQuantity)} unit(s) open`);
        return { line: foLine, quantity };
      });
      const fos = (order.fulfillmentOrders as Json[]).filter((fo) => takes.some((t) => (fo.lineItems as Json[]).includes(t.line)));
      return fulfil(order, fos, takes, tracking, false).id as string;
    },
    /**
     * The merchant refunds units in Shopify's admin: restockType CANCEL for units not shipped (they
     * leave fulfilment), RETURN or NO_RESTOCK for shipped ones; a shipping amount and a note. Answers the refund's GID.
     */
    refundInAdmin(
      n: number,
      lines: { line: number; quantity: number; restockType: "CANCEL" | "NO_RESTOCK" | "RETURN" }[],
      shipping = "0",
      note: string | null = null,
    ): string {
      const order = orders.find((o) => o.legacyResourceId === String(5000000000 + n))!;
      const refund = returnsFake.refundInAdmin(
        order,
        lines.map((l) => ({ ...l, line: (order.lineItems as Json[])[l.line]! })),
        shipping,
        note,
      );
      refreshOrderStatus(order);
      return refund.id as string;
    },
    /** Changes an order as a merchant would in the admin (its updatedAt moves to now). */
    touch(n: number, change: (order: Json) => void = () => {}) {
      const order = orders.find((o) => o.legacyResourceId === String(5000000000 + n))!;
      change(order);
      order.updatedAt = nowIso();
    },
  };
}

export type ShopifyFake = ReturnType<typeof createShopifyFake>;

/** The operationName a request body names (what a fault of one operation matches), or null. */
function operationNameOf(text: string): string | null {
  try {
    const name = (JSON.parse(text) as { operationName?: unknown } | null)?.operationName;
    return typeof name === "string" ? name : null;
  } catch {
    return null;
  }
}

/**
 * `orders` pages for ever, empty, each naming a next page: the same cursor every time
 * (`repeating`) or a new one each time. For failNext.
 */
export function shopifyPagesForEver(repeating: boolean): AnswerFault<"api"> {
  return badDay.endlessPages((n) => ({ data: { orders: { pageInfo: { hasNextPage: true, endCursor: repeating ? "again" : `page-${n}` }, nodes: [] } } }), {
    operation: "ShopifyOrders",
  });
}
