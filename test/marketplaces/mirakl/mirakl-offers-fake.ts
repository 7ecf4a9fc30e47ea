// The fake Mirakl's offers and imports (mirakl-fake.ts routes OF21, OF24, OF02, OF03, STO01,
// STO02, STO03 here, requests already checked against the description). Offers are kept in
// OF21's shape. OF24 does what its description warns: each offer sent replaces the one held,
// and a field not sent is reset (quantity to 0, description, discount, lead time, custom fields
// ... deleted, allow_quote_requests false). STO01 takes the CSV its description gives (the file
// is checked column by column) and sets quantities only. Both are imports: processed on a later
// status call (OF02, STO02), with an error report of the lines in error (OF03 in the layout of
// its example, STO03 in the one its text gives: line number, reason, then the line).
import { parse } from "csv-parse/sync";
import type { MiraklOffer, MiraklOfferUpdate } from "../../../src/marketplaces/mirakl/mirakl.types";
import { json, miraklError } from "./mirakl-answers";

export interface OffersOptions {
  /** Status calls answered WAITING/RUNNING before an import is done (1 by default). */
  readsBeforeDone?: number;
  /** Imports that end FAILED (their kind). */
  failing?: ("stock" | "offers")[];
  /** An error report that is not CSV. */
  garbledReports?: boolean;
}

interface Import {
  kind: "stock" | "offers";
  id: string;
  created: string;
  reads: number;
  done: boolean;
  lines: unknown[];
  errors: { line: number; reason: string; row: string[] }[];
}

export interface MiraklOffersFake {
  /** An offer the shop sells, in OF21's shape (a full one by default). */
  seed(sku: string, fields?: Partial<MiraklOffer>): MiraklOffer;
  offer(sku: string): MiraklOffer | undefined;
  imports: Import[];
  options: OffersOptions;
  handle(
    operationId: string,
    params: string[],
    url: URL,
    body: unknown,
    request: Request,
    rawBody: string,
    refuse: (problem: string) => Response,
  ): Promise<Response> | Response;
}

const STOCK_HEADER = ["offer-sku", "quantity", "warehouse-code", "update-delete"];

export function miraklOffersFake(now: () => Date, options: OffersOptions): MiraklOffersFake {
  const offers = new Map<string, MiraklOffer>();
  const imports: Import[] = [];
  let nextOfferId = 2000;
  let nextImport = 3000;

  function seed(sku: string, fields: Partial<MiraklOffer> = {}): MiraklOffer {
    const offer: MiraklOffer & Record<string, unknown> = {
      active: true,
      offer_id: nextOfferId++,
      shop_sku: sku,
      product_sku: `MKP-${sku}`,
      product_title: `Product ${sku}`,
      product_references: [{ reference: `EAN-${sku}`, reference_type: "EAN" }],
      category_code: "C1",
      category_label: "Category",
      channels: ["US"],
      currency_iso_code: "USD",
      state_code: "11",
      price: 20,
      quantity: 7,
      description: `Offer for ${sku}`,
      internal_description: `Internal ${sku}`,
      price_additional_info: "Price includes eco-fee",
      leadtime_to_ship: 3,
      logistic_class: { code: "M", label: "Medium" },
      min_order_quantity: 1,
      max_order_quantity: 5,
      min_quantity_alert: 2,
      package_quantity: 1,
      available_start_date: "2026-01-01T00:00:00Z",
      available_end_date: "2027-01-01T00:00:00Z",
      allow_quote_requests: true,
      product_tax_code: "PTC-1",
      msrp: null,
      retail_prices: [],
      discount: { discount_price: 18, origin_price: 20, start_date: "2026-01-01T00:00:00Z", end_date: "2027-01-01T00:00:00Z", ranges: [] },
      all_prices: [
        {
          channel_code: null,
          price: 18,
          unit_origin_price: 20,
          unit_discount_price: 18,
          discount_start_date: "2026-01-01T00:00:00Z",
          discount_end_date: "2027-01-01T00:00:00Z",
          volume_prices: [
            { quantity_threshold: 1, unit_origin_price: 20, unit_discount_price: 18 },
            { quantity_threshold: 10, unit_origin_price: 17 },
          ],
        },
        {
          channel_code: "CA",
          price: 25,
          unit_origin_price: 25,
          unit_discount_price: null,
          discount_start_date: null,
          discount_end_date: null,
          volume_prices: [{ quantity_threshold: 1, unit_origin_price: 25 }],
        },
      ],
      offer_additional_fields: [{ code: "warranty", type: "STRING", value: "2 years" }],
      eco_contributions: [{ eco_contribution_amount: 0.5, epr_category_code: "FR-DEA", producer_id: "P-1" }],
      fulfillment: { center: { code: "DEFAULT" } },
      min_shipping_price: 4.99,
      min_shipping_price_additional: 1,
      min_shipping_type: "STD",
      min_shipping_zone: "US",
      shipping_deadline: "2026-01-05T00:00:00Z",
      ...fields,
    };
    offers.set(sku, offer);
    return structuredClone(offer);
  }

  /** OF24's offer over the one held: what is not sent is reset to its default (the description's warning). */
  function replace(held: MiraklOffer, sent: MiraklOfferUpdate): MiraklOffer {
    const discountSent = sent.discount;
    return {
      ...pick(held, [
        "offer_id",
        "shop_sku",
        "product_sku",
        "product_title",
        "product_references",
        "category_code",
        "category_label",
        "channels",
        "currency_iso_code",
        "fulfillment",
      ]),
      active: true,
      state_code: sent.state_code,
      price: sent.price,
      quantity: sent.quantity ?? 0,
      description: sent.description ?? null,
      internal_description: sent.internal_description ?? null,
      price_additional_info: sent.price_additional_info ?? null,
      leadtime_to_ship: sent.leadtime_to_ship ?? null,
      logistic_class: sent.logistic_class
        ? { code: sent.logistic_class, label: held.logistic_class?.code === sent.logistic_class ? held.logistic_class.label : sent.logistic_class }
        : null,
      min_order_quantity: sent.min_order_quantity ?? null,
      max_order_quantity: sent.max_order_quantity ?? null,
      min_quantity_alert: sent.min_quantity_alert ?? null,
      package_quantity: sent.package_quantity ?? null,
      available_start_date: sent.available_started ?? null,
      available_end_date: sent.available_ended ?? null,
      allow_quote_requests: sent.allow_quote_requests ?? false,
      product_tax_code: sent.product_tax_code ?? null,
      msrp: sent.msrp ?? null,
      discount: discountSent
        ? {
            discount_price: discountSent.price ?? null,
            origin_price: sent.price,
            start_date: discountSent.start_date ?? null,
            end_date: discountSent.end_date ?? null,
            ranges: discountSent.ranges ?? [],
          }
        : null,
      all_prices: sent.all_prices?.length
        ? sent.all_prices.map((p) => ({
            ...p,
            price: p.unit_discount_price ?? p.unit_origin_price,
            unit_discount_price: p.unit_discount_price ?? null,
            volume_prices: p.volume_prices ?? [],
          }))
        : [
            {
              channel_code: null,
              price: sent.price,
              unit_origin_price: sent.price,
              unit_discount_price: null,
              discount_start_date: null,
              discount_end_date: null,
              volume_prices: [{ quantity_threshold: 1, unit_origin_price: sent.price }],
            },
          ],
      offer_additional_fields: sent.offer_additional_fields ?? [],
      eco_contributions: sent.eco_contributions ?? [],
      retail_prices: sent.retail_prices?.map((r) => ({ ...r, price: r.unit_discount_price ?? r.unit_origin_price })) ?? [],
      ...pick(held, ["min_shipping_price", "min_shipping_price_additional", "min_shipping_type", "min_shipping_zone", "shipping_deadline", "warehouses"]),
    } as MiraklOffer;
  }

  function finish(imp: Import): void {
    imp.done = true;
    if (options.failing?.includes(imp.kind)) return;
    imp.lines.forEach((line, i) => {
      if (imp.kind === "stock") {
        const row = line as string[];
        const held = offers.get(row[0]!);
        if (!held) imp.errors.push({ line: i + 2, reason: `The offer with SKU ${row[0]} does not exist`, row });
        else held.quantity = Number(row[1]);
        return;
      }
      const sent = line as MiraklOfferUpdate;
      const held = offers.get(sent.shop_sku);
      const row = [sent.shop_sku, sent.product_id, sent.product_id_type, String(sent.price), String(sent.quantity), sent.update_delete];
      if (!held) imp.errors.push({ line: i + 1, reason: `The offer with SKU ${sent.shop_sku} does not exist`, row });
      else if (sent.product_id_type !== "SKU" || sent.product_id !== held.product_sku)
        imp.errors.push({ line: i + 1, reason: "The product does not exist", row });
      else if (!(sent.price > 0)) imp.errors.push({ line: i + 1, reason: "The price must be greater than 0", row });
      else offers.set(sent.shop_sku, replace(held, sent));
    });
  }

  function find(id: string, kind: Import["kind"]): Import | undefined {
    return imports.find((i) => i.id === id && i.kind === kind);
  }

  /** A status call: the import runs for `readsBeforeDone` calls, then is processed. */
  function progress(imp: Import): void {
    if (imp.done) return;
    imp.reads += 1;
    if (imp.reads > (options.readsBeforeDone ?? 1)) finish(imp);
  }

  const status = (imp: Import) => (!imp.done ? (imp.reads <= 1 ? "WAITING" : "RUNNING") : options.failing?.includes(imp.kind) ? "FAILED" : "COMPLETE");

  function report(imp: Import, header: string[], layout: "first" | "last"): Response {
    if (options.garbledReports) return new Response("<html>Report unavailable</html>", { status: 200, headers: { "Content-Type": "text/html" } });
    const quote = (v: string) => `"${v.replace(/"/g, '""')}"`;
    const rows = imp.errors.map((e) => (layout === "first" ? [String(e.line), e.reason, ...e.row] : [...e.row, String(e.line), e.reason]));
    const head = layout === "first" ? ["error-line", "error-reason", ...header] : [...header, "error-line", "error-message"];
    return new Response([head, ...rows].map((r) => r.map(quote).join(";")).join("\n") + "\n", { status: 200, headers: { "Content-Type": "text/csv" } });
  }

  async function stockImport(request: Request, rawBody: string, refuse: (problem: string) => Response): Promise<Response> {
    let file: unknown;
    try {
      // The body was read once to be recorded: parsed again from what was sent.
      file = (await new Response(rawBody, { headers: { "Content-Type": request.headers.get("Content-Type") ?? "" } }).formData()).get("file");
    } catch {
      return refuse("the body is not multipart/form-data");
    }
    if (!(file instanceof File)) return refuse("STO01 takes its CSV in the multipart field `file`");
    let rows: string[][];
    try {
      rows = parse(await file.text(), { delimiter: ";", skip_empty_lines: true }) as string[][];
    } catch (error) {
      return refuse(`the file is not the CSV the description gives: ${String(error)}`);
    }
    const header = rows[0] ?? [];
    if (header.join(";") !== STOCK_HEADER.join(";"))
      return refuse(`the file's header must be ${STOCK_HEADER.map((h) => `"${h}"`).join(";")}, got ${header.join(";")}`);
    for (const [i, row] of rows.slice(1).entries()) {
      const where = `line ${i + 2}`;
      if (row.length !== 4) return refuse(`${where} has ${row.length} columns, not 4`);
      if (!row[0]) return refuse(`${where} has no offer-sku`);
      if (!/^\d+$/.test(row[1]!)) return refuse(`${where}: quantity ${row[1]} is not a whole number`);
      if (!["", "update", "delete"].includes(row[3]!)) return refuse(`${where}: update-delete ${row[3]} is not update or delete`);
    }
    const imp: Import = { kind: "stock", id: crypto.randomUUID(), created: now().toISOString(), reads: 0, done: false, lines: rows.slice(1), errors: [] };
    imports.push(imp);
    return json(201, { import_id: imp.id });
  }

  return {
    seed,
    offer: (sku) => structuredClone(offers.get(sku)),
    imports,
    options,
    handle(operationId, params, url, body, request, rawBody, refuse) {
      if (operationId === "OF21") {
        const sku = url.searchParams.get("sku");
        const all = [...offers.values()].filter((o) => sku === null || o.shop_sku === sku);
        const max = Number(url.searchParams.get("max") ?? "10");
        const offset = Number(url.searchParams.get("offset") ?? "0");
        return json(200, { offers: all.slice(offset, offset + max).map((o) => structuredClone(o)), total_count: all.length });
      }
      if (operationId === "OF24") {
        const imp: Import = {
          kind: "offers",
          id: String(nextImport++),
          created: now().toISOString(),
          reads: 0,
          done: false,
          lines: (body as { offers: unknown[] }).offers,
          errors: [],
        };
        imports.push(imp);
        return json(201, { import_id: Number(imp.id) });
      }
      if (operationId === "STO01") return stockImport(request, rawBody, refuse);
      const imp = find(params[0] ?? "", operationId.startsWith("STO") ? "stock" : "offers");
      if (!imp) return miraklError(404, `import ${params[0]} not found`);
      if (operationId === "OF02" || operationId === "STO02") {
        progress(imp);
        const failed = imp.done && options.failing?.includes(imp.kind);
        const common = {
          date_created: imp.created,
          has_error_report: imp.done && imp.errors.length > 0,
          lines_in_error: imp.errors.length,
          lines_in_success: imp.done && !failed ? imp.lines.length - imp.errors.length : 0,
          status: status(imp),
        };
        if (operationId === "STO02") return json(200, { ...common, import_id: imp.id, shop_id: 1 });
        return json(200, {
          ...common,
          import_id: Number(imp.id),
          lines_in_pending: imp.done ? 0 : imp.lines.length,
          lines_read: imp.lines.length,
          mode: "NORMAL",
          offer_deleted: 0,
          offer_inserted: 0,
          offer_updated: imp.done && !failed ? imp.lines.length - imp.errors.length : 0,
          reason_status: failed ? "The file could not be processed" : "",
          type: "MIRAKL",
        });
      }
      if (!imp.done) return miraklError(404, "the import has no error report yet");
      if (operationId === "STO03") return report(imp, STOCK_HEADER, "first");
      return report(imp, ["sku", "product-id", "product-id-type", "price", "quantity", "update-delete"], "last");
    },
  };
}

function pick<T extends object>(from: T, keys: string[]): Partial<T> {
  return Object.fromEntries(keys.filter((k) => k in from).map((k) => [k, structuredClone((from as Record<string, unknown>)[k])])) as Partial<T>;
}
