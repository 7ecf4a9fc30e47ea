// Console page: a store's catalog (issue 22), its products in Sku order with Price and Quantity as
// GET /admin/v1/stores/:storeId/products answers them, paged by NextAfterSku, and one product
// looked up by Sku (GET .../products/:sku). Mounted at /console/stores/:storeId/catalog; the
// catalog upload stays on the Feeds tab, beside the feeds compiled from it.
import { Field, FormError, ReadError, StoreNav, Table, money, storeBase, storeCrumbs, when } from "../components";
import { consoleRouter, enc, withStore, type C } from "../context";
import type { Product, ProductPage } from "../wire";

const PER_PAGE = 100;

/** An absent value, as the other tables show it. */
const shown = (v: string | number | null) => (v === null ? "—" : String(v));

async function catalogPage(c: C) {
  const store = c.var.store;
  const api = `/stores/${enc(store.StoreId)}/products`;
  const base = `${storeBase(store)}/catalog`;
  const afterSku = c.req.query("afterSku") ?? "";
  const sku = (c.req.query("sku") ?? "").trim();
  const query = new URLSearchParams({ limit: String(PER_PAGE) });
  // An empty afterSku is the first page; anything else is the API's to judge.
  if (afterSku) query.set("afterSku", afterSku);
  const [page, count, found] = await Promise.all([
    c.var.api.call<ProductPage>("GET", `${api}?${query}`),
    c.var.api.call<{ Count: number }>("GET", `${api}/count`),
    sku ? c.var.api.call<{ Product: Product }>("GET", `${api}/${enc(sku)}`) : Promise.resolve(null),
  ]);
  if (found && !found.ok) c.set("notice", { form: "lookup", field: "sku", error: found.message });
  const product = found?.ok ? found.data.Product : null;
  const products = page.ok ? page.data.Products : [];
  const next = page.ok ? page.data.NextAfterSku : null;
  const feedsTab = `${storeBase(store)}/feeds#catalog-h`;
  return c.render(
    <>
      <StoreNav store={store} current="Catalog" />
      <p id="catalog-count">
        {count.ok ? `${count.data.Count} products.` : count.message} Upload a catalog (CSV) on the <a href={feedsTab}>Feeds</a> tab.
      </p>
      <form method="get" action={`${base}#product-h`} class="card search" role="search" aria-label="Look up a product">
        <FormError form="lookup" fields={["sku"]} />
        <Field form="lookup" name="sku" label="Sku" value={sku} hint="Exactly as in the catalog." attrs={{ maxlength: 100 }} required />
        <button type="submit">Look up</button>
      </form>
      {product ? (
        <section aria-labelledby="product-h">
          <h2 id="product-h">{`Product ${product.Sku}`}</h2>
          <dl class="facts" id="product-facts">
            <dt>Sku</dt>
            <dd>{product.Sku}</dd>
            <dt>Title</dt>
            <dd>{shown(product.Title)}</dd>
            <dt>Quantity</dt>
            <dd>{product.Quantity === null ? "not tracked" : String(product.Quantity)}</dd>
            <dt>Price</dt>
            <dd>{money(product.Price, product.Currency)}</dd>
            <dt>Availability</dt>
            <dd>{shown(product.Availability)}</dd>
            <dt>Brand</dt>
            <dd>{shown(product.Brand)}</dd>
            <dt>Gtin</dt>
            <dd>{shown(product.Gtin)}</dd>
            <dt>Link</dt>
            <dd>{shown(product.Link)}</dd>
            <dt>Image link</dt>
            <dd>{shown(product.ImageLink)}</dd>
            <dt>Description</dt>
            <dd>{shown(product.Description)}</dd>
            <dt>Other columns</dt>
            <dd>
              {product.Attributes
                ? Object.entries(product.Attributes)
                    .map(([k, v]) => `${k}: ${v}`)
                    .join("; ")
                : "—"}
            </dd>
            <dt>Updated</dt>
            <dd>{when(product.DateUpdated)}</dd>
          </dl>
        </section>
      ) : null}
      <h2 id="products-h">Products</h2>
      <ReadError res={page} />
      <p class="hint" id="products-hint">
        In Sku order, {PER_PAGE} a page. Quantity is blank for a product whose stock is not tracked.
      </p>
      <Table
        caption={afterSku ? `Products after Sku ${afterSku}` : "Products"}
        id="products"
        headers={["Sku", "Title", "Price", "Quantity", "Availability"]}
        rows={products.map((p) => [
          <a href={`${base}?sku=${enc(p.Sku)}#product-h`}>{p.Sku}</a>,
          shown(p.Title),
          money(p.Price, p.Currency),
          p.Quantity === null ? "" : String(p.Quantity),
          shown(p.Availability),
        ])}
        empty={afterSku ? "none after this Sku." : "none yet."}
      />
      {afterSku || next ? (
        <nav aria-label="Product pages">
          <ul>
            {afterSku ? (
              <li>
                <a href={`${base}#products-h`}>First products</a>
              </li>
            ) : null}
            {next ? (
              <li>
                <a href={`${base}?afterSku=${enc(next)}#products-h`} rel="next">
                  Next products
                </a>
              </li>
            ) : null}
          </ul>
        </nav>
      ) : null}
    </>,
    { title: "Catalog", crumbs: storeCrumbs(store) },
  );
}

export const catalogPages = consoleRouter()
  .use("*", withStore)
  .get("/", (c) => catalogPage(c));
