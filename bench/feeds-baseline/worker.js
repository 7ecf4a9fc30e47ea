// GET /?store=<id>&db=<binding>&pageRows=1000[&r2=1[&gz=1][&partMiB=5]]: reads the store's whole catalog (in the
// database named, its shard) in keyset pages (the query the compiler uses) and writes every row
// with a positive price as CSV into memory, then answers how long the reads and the whole took.
// Serialization follows src/feeds/csv.ts. With r2=1 the bytes also go to an R2 multipart upload in
// 5 MiB parts, one part in flight while the next fills, as the compile writes its file (then the
// object is deleted): what the local R2 alone adds to the same reads, the floor of any compile.
// With gz=1 as well the bytes pass through a gzip CompressionStream before the parts: the same
// work with a tenth of the bytes stored. partMiB sets the part size (5).
const csvField = (v) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
const COLUMNS = "sku, title, description, link, image_link, price, currency, availability, brand, gtin, attributes, updated_at";

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const store = url.searchParams.get("store");
    const pageRows = Number(url.searchParams.get("pageRows") ?? 1000);
    const db = env[url.searchParams.get("db") ?? "DB"];
    const toR2 = url.searchParams.get("r2") === "1";
    const gzip = toR2 && url.searchParams.get("gz") === "1";
    const PART = Number(url.searchParams.get("partMiB") ?? 5) * 1024 * 1024;
    const start = Date.now();
    let readMs = 0;
    let rows = 0;
    let bytes = 0;
    let chunk = "";
    const encoder = new TextEncoder();
    const key = `bench/bare-${start}.csv`;
    const upload = toR2 ? await env.FEEDS.createMultipartUpload(key) : null;
    const parts = [];
    let part = new Uint8Array(PART);
    let filled = 0;
    let inFlight = null;
    /** Copies `encoded` into the part buffer, shipping each full part (one upload in flight). */
    const toParts = async (encoded) => {
      while (encoded.length > 0) {
        const room = PART - filled;
        part.set(encoded.subarray(0, room), filled);
        filled += Math.min(room, encoded.length);
        encoded = encoded.subarray(room);
        if (filled === PART) {
          if (inFlight) parts.push(await inFlight);
          inFlight = upload.uploadPart(parts.length + 1, part);
          part = new Uint8Array(PART);
          filled = 0;
        }
      }
    };
    let stored = 0;
    // With gz=1 the bytes pass through a gzip CompressionStream first; its output fills the parts.
    const compressor = gzip ? new CompressionStream("gzip") : null;
    const gzWriter = compressor?.writable.getWriter();
    const gzPump = compressor
      ? (async () => {
          const reader = compressor.readable.getReader();
          for (;;) {
            const { done, value } = await reader.read();
            if (done) return;
            stored += value.length;
            await toParts(value);
          }
        })()
      : null;
    /** Encodes `text`: into the gzip stream, or straight into the parts. */
    const flush = async (text) => {
      const encoded = encoder.encode(text);
      bytes += encoded.length;
      if (!upload) return;
      if (gzWriter) await gzWriter.write(encoded);
      else {
        stored += encoded.length;
        await toParts(encoded);
      }
    };
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
        await flush(chunk);
        chunk = "";
      }
      if (page.length < pageRows) break;
      after = page[page.length - 1][0];
    }
    await flush(chunk);
    if (gzWriter) {
      await gzWriter.close();
      await gzPump;
    }
    if (upload) {
      if (inFlight) parts.push(await inFlight);
      if (filled > 0) parts.push(await upload.uploadPart(parts.length + 1, part.subarray(0, filled)));
      await upload.complete(parts);
    }
    const totalMs = Date.now() - start;
    if (upload) await env.FEEDS.delete(key);
    return Response.json({ rows, bytes, stored, parts: parts.length, readMs, totalMs });
  },
};
