// Every statement on products: upserts by (store, Sku), deletes, counts, and the keyset pages the
// feed compiler reads. The import paths that feed them are catalog.ts.
import { and, count, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { products, type ProductRow } from "../db/schema";
import type { ProductInput } from "./product-fields";

/** D1 binds at most 100 parameters a statement; a product row binds 13. */
const ROWS_PER_STATEMENT = 7;
/** Statements per db.batch: one round trip, all or nothing. */
const STATEMENTS_PER_BATCH = 50;
export const ROWS_PER_BATCH = ROWS_PER_STATEMENT * STATEMENTS_PER_BATCH;

const excluded = (column: string) => sql.raw(`excluded.${column}`);

export async function upsertProducts(db: Db, storeId: string, rows: ProductInput[], now: number): Promise<void> {
  const statements = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    statements.push(
      db
        .insert(products)
        .values(rows.slice(i, i + ROWS_PER_STATEMENT).map((r) => ({ ...r, storeId, updatedAt: now })))
        .onConflictDoUpdate({
          target: [products.storeId, products.sku],
          set: {
            title: excluded("title"),
            description: excluded("description"),
            link: excluded("link"),
            imageLink: excluded("image_link"),
            price: excluded("price"),
            currency: excluded("currency"),
            availability: excluded("availability"),
            brand: excluded("brand"),
            gtin: excluded("gtin"),
            attributes: excluded("attributes"),
            updatedAt: excluded("updated_at"),
          },
        }),
    );
  }
  for (let i = 0; i < statements.length; i += STATEMENTS_PER_BATCH) {
    const chunk = statements.slice(i, i + STATEMENTS_PER_BATCH);
    await db.batch(chunk as [(typeof chunk)[number], ...typeof chunk]);
  }
}

export async function deleteProduct(db: Db, storeId: string, sku: string): Promise<boolean> {
  const gone = await db
    .delete(products)
    .where(and(eq(products.storeId, storeId), eq(products.sku, sku)))
    .returning({ sku: products.sku });
  return gone.length > 0;
}

/** One batch of a deleted store's purge: up to `limit` of its products; answers how many went. */
export async function purgeProducts(db: Db, storeId: string, limit: number): Promise<number> {
  const gone = await db
    .delete(products)
    .where(and(eq(products.storeId, storeId), sql`${products.sku} in (select ${products.sku} from ${products} where ${products.storeId} = ${storeId} limit ${limit})`))
    .returning({ sku: products.sku });
  return gone.length;
}

export async function countProducts(db: Db, storeId: string): Promise<number> {
  const row = await db.select({ n: count() }).from(products).where(eq(products.storeId, storeId)).get();
  return row?.n ?? 0;
}

const PAGE_COLUMNS =
  "sku, title, description, link, image_link, price, currency, availability, brand, gtin, attributes, updated_at";

/**
 * The next page after `afterSku` (null: from the start), in Sku order; the primary key serves it.
 * The compile's hot read: plain D1 with rows as arrays, mapped here, skips the ORM's generic
 * per-column mapping, which cost about as much as the query itself on a million rows.
 */
export async function pageProducts(d1: D1Database, storeId: string, afterSku: string | null, limit: number): Promise<ProductRow[]> {
  const statement =
    afterSku === null
      ? d1.prepare(`select ${PAGE_COLUMNS} from products where store_id = ?1 order by sku limit ?2`).bind(storeId, limit)
      : d1.prepare(`select ${PAGE_COLUMNS} from products where store_id = ?1 and sku > ?3 order by sku limit ?2`).bind(storeId, limit, afterSku);
  const rows = await statement.raw<[string, string | null, string | null, string | null, string | null, number | null, string | null, string | null, string | null, string | null, string | null, number]>();
  const out = new Array<ProductRow>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    out[i] = {
      storeId,
      sku: r[0],
      title: r[1],
      description: r[2],
      link: r[3],
      imageLink: r[4],
      price: r[5],
      currency: r[6],
      availability: r[7],
      brand: r[8],
      gtin: r[9],
      attributes: r[10] === null ? null : (JSON.parse(r[10]) as Record<string, string>),
      updatedAt: r[11],
    };
  }
  return out;
}

/** How many of these Skus (at most 1,000, as one JSON parameter) the store does not hold yet. */
export async function countUnknownSkus(db: Db, storeId: string, skus: string[]): Promise<number> {
  const row = await db
    .select({ n: count() })
    .from(sql`json_each(${JSON.stringify(skus)}) as upload`)
    .where(sql`not exists (select 1 from ${products} where ${products.storeId} = ${storeId} and ${products.sku} = upload.value)`)
    .get();
  return row?.n ?? 0;
}
