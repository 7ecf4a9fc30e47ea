// GET /?store=<id>&db=<binding>&pageRows=1000: reads the store's whole catalog (in the database named, its shard) in keyset pages (the query the
// compiler uses) and writes every row with a positive price as CSV into memory, then answers
// how long the reads and the whole took. Serialization follows src/feeds/csv.ts.
const csvField = (v) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
const COLUMNS = "sku, title, description, link, image_link, price, currency, availability, brand, gtin, attributes, updated_at";

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const store = url.searchParams.get("store");
    const pageRows = Number(url.searchParams.get("pageRows") ?? 1000);
    const db = env[url.searchParams.get("db") ?? "DB"];
    const start = Date.now();
    let readMs = 0;
    let rows = 0;
    let bytes = 0;
    let chunk = "";
    const encoder = new TextEncoder();
    let after = null;
    for (;;) {
      const t = Date.now();
      const page =
        after === null
          ? await db.prepare(`select ${COLUMNS} from products where store_id = ?1 order by sku limit ?2`).bind(store, pageRows).raw()
          : await db.prepare(`select ${COLUMNS} from products where store_id = ?1 and sku > ?3 order by sku limit ?2`).bind(store, pageRows, after).raw();
      readMs += Date.now() - t;
      for (const r of page) {
        rows++;
        if (!(r[5] > 0)) continue;
        chunk += `${[r[0], r[1] ?? "", r[2] ?? "", r[3] ?? "", r[4] ?? "", `${r[5].toFixed(2)} ${r[6] ?? "USD"}`, r[7] ?? "", r[8] ?? "", r[9] ?? ""].map(csvField).join(",")}\r\n`;
      }
      if (chunk.length > 1 << 20) {
        bytes += encoder.encode(chunk).length;
        chunk = "";
      }
      if (page.length < pageRows) break;
      after = page[page.length - 1][0];
    }
    bytes += encoder.encode(chunk).length;
    return Response.json({ rows, bytes, readMs, totalMs: Date.now() - start });
  },
};
