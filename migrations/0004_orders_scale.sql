CREATE TABLE `order_day_counts` (
	`store_id` text NOT NULL,
	`field` text NOT NULL,
	`day` integer NOT NULL,
	`status` text NOT NULL,
	`n` integer NOT NULL,
	PRIMARY KEY(`store_id`, `field`, `day`, `status`)
);
--> statement-breakpoint
CREATE TABLE `store_usage` (
	`store_id` text PRIMARY KEY NOT NULL,
	`orders` integer DEFAULT 0 NOT NULL,
	`order_items` integer DEFAULT 0 NOT NULL,
	`products` integer DEFAULT 0 NOT NULL,
	`feeds` integer DEFAULT 0 NOT NULL,
	`sources` integer DEFAULT 0 NOT NULL,
	`consumer_keys` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`store_id`) REFERENCES `stores`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
ALTER TABLE `stores` ADD `max_orders` integer DEFAULT 2000000 NOT NULL;--> statement-breakpoint
ALTER TABLE `stores` ADD `max_order_items` integer DEFAULT 10000000 NOT NULL;--> statement-breakpoint
ALTER TABLE `stores` ADD `max_products` integer DEFAULT 2000000 NOT NULL;--> statement-breakpoint
ALTER TABLE `stores` ADD `max_feeds` integer DEFAULT 200 NOT NULL;--> statement-breakpoint
ALTER TABLE `stores` ADD `max_sources` integer DEFAULT 200 NOT NULL;--> statement-breakpoint
ALTER TABLE `stores` ADD `max_consumer_keys` integer DEFAULT 200 NOT NULL;--> statement-breakpoint
CREATE INDEX `orders_store_id` ON `orders` (`store_id`,`id`);--> statement-breakpoint
CREATE INDEX `orders_store_status_id` ON `orders` (`store_id`,`status`,`id`);--> statement-breakpoint
CREATE INDEX `orders_store_total` ON `orders` (`store_id`,`grand_total`,`id`);--> statement-breakpoint
CREATE INDEX `orders_store_status_total` ON `orders` (`store_id`,`status`,`grand_total`,`id`);--> statement-breakpoint
-- Hand-written from here on (drizzle-kit writes no triggers). Counting and limits live in
-- triggers so that every write path (InsertOrder, the import, moves, catalog, admin) keeps them
-- in the same statement as the change, without each path having to remember, and a write over a
-- limit aborts its statement, and with it its whole batch (one transaction): nothing is stored.
--
-- Usage of the stores that exist now, and a usage row for every store created later.
INSERT INTO store_usage (store_id, orders, order_items, products, feeds, sources, consumer_keys)
  SELECT s.id,
    (SELECT count(*) FROM orders o WHERE o.store_id = s.id),
    (SELECT count(*) FROM order_items i JOIN orders o ON o.id = i.order_id WHERE o.store_id = s.id),
    (SELECT count(*) FROM products p WHERE p.store_id = s.id),
    (SELECT count(*) FROM feeds f WHERE f.store_id = s.id),
    (SELECT count(*) FROM sources r WHERE r.store_id = s.id),
    (SELECT count(*) FROM consumer_keys k WHERE k.store_id = s.id AND k.revoked_at IS NULL)
  FROM stores s;
--> statement-breakpoint
CREATE TRIGGER stores_usage_row AFTER INSERT ON stores BEGIN
  INSERT INTO store_usage (store_id) VALUES (new.id);
END;
--> statement-breakpoint
-- Day buckets of the orders that exist now (day = start of the UTC day in ms, floored).
INSERT INTO order_day_counts (store_id, field, day, status, n)
  SELECT store_id, 'c', (date_created_in_order_source - (((date_created_in_order_source % 86400000) + 86400000) % 86400000)) AS d, status, count(*) FROM orders GROUP BY store_id, d, status;
--> statement-breakpoint
INSERT INTO order_day_counts (store_id, field, day, status, n)
  SELECT store_id, 'u', (date_updated - (((date_updated % 86400000) + 86400000) % 86400000)) AS d, status, count(*) FROM orders GROUP BY store_id, d, status;
--> statement-breakpoint
-- An upsert of an order (or product) the store already holds is not a new one, so it passes at
-- the limit: the import writes known orders again, a catalog upload updates known Skus.
CREATE TRIGGER orders_limit BEFORE INSERT ON orders
WHEN (SELECT orders FROM store_usage WHERE store_id = new.store_id) >= (SELECT max_orders FROM stores WHERE id = new.store_id)
BEGIN
  SELECT RAISE(ABORT, 'Store limit reached: Orders')
  WHERE NOT EXISTS (SELECT 1 FROM orders WHERE store_id = new.store_id AND order_source = new.order_source
    AND order_source_order_number = new.order_source_order_number);
END;
--> statement-breakpoint
CREATE TRIGGER orders_counted AFTER INSERT ON orders BEGIN
  UPDATE store_usage SET orders = orders + 1 WHERE store_id = new.store_id;
  INSERT INTO order_day_counts (store_id, field, day, status, n) VALUES (new.store_id, 'c', (new.date_created_in_order_source - (((new.date_created_in_order_source % 86400000) + 86400000) % 86400000)), new.status, 1)
    ON CONFLICT (store_id, field, day, status) DO UPDATE SET n = n + 1;
  INSERT INTO order_day_counts (store_id, field, day, status, n) VALUES (new.store_id, 'u', (new.date_updated - (((new.date_updated % 86400000) + 86400000) % 86400000)), new.status, 1)
    ON CONFLICT (store_id, field, day, status) DO UPDATE SET n = n + 1;
END;
--> statement-breakpoint
CREATE TRIGGER orders_recounted AFTER UPDATE OF store_id, status, date_created_in_order_source, date_updated ON orders BEGIN
  INSERT INTO order_day_counts (store_id, field, day, status, n) VALUES (old.store_id, 'c', (old.date_created_in_order_source - (((old.date_created_in_order_source % 86400000) + 86400000) % 86400000)), old.status, -1)
    ON CONFLICT (store_id, field, day, status) DO UPDATE SET n = n - 1;
  INSERT INTO order_day_counts (store_id, field, day, status, n) VALUES (old.store_id, 'u', (old.date_updated - (((old.date_updated % 86400000) + 86400000) % 86400000)), old.status, -1)
    ON CONFLICT (store_id, field, day, status) DO UPDATE SET n = n - 1;
  INSERT INTO order_day_counts (store_id, field, day, status, n) VALUES (new.store_id, 'c', (new.date_created_in_order_source - (((new.date_created_in_order_source % 86400000) + 86400000) % 86400000)), new.status, 1)
    ON CONFLICT (store_id, field, day, status) DO UPDATE SET n = n + 1;
  INSERT INTO order_day_counts (store_id, field, day, status, n) VALUES (new.store_id, 'u', (new.date_updated - (((new.date_updated % 86400000) + 86400000) % 86400000)), new.status, 1)
    ON CONFLICT (store_id, field, day, status) DO UPDATE SET n = n + 1;
END;
--> statement-breakpoint
CREATE TRIGGER orders_uncounted AFTER DELETE ON orders BEGIN
  UPDATE store_usage SET orders = orders - 1 WHERE store_id = old.store_id;
  INSERT INTO order_day_counts (store_id, field, day, status, n) VALUES (old.store_id, 'c', (old.date_created_in_order_source - (((old.date_created_in_order_source % 86400000) + 86400000) % 86400000)), old.status, -1)
    ON CONFLICT (store_id, field, day, status) DO UPDATE SET n = n - 1;
  INSERT INTO order_day_counts (store_id, field, day, status, n) VALUES (old.store_id, 'u', (old.date_updated - (((old.date_updated % 86400000) + 86400000) % 86400000)), old.status, -1)
    ON CONFLICT (store_id, field, day, status) DO UPDATE SET n = n - 1;
END;
--> statement-breakpoint
CREATE TRIGGER order_items_limit BEFORE INSERT ON order_items
WHEN (SELECT u.order_items >= s.max_order_items FROM orders o JOIN store_usage u ON u.store_id = o.store_id JOIN stores s ON s.id = o.store_id
  WHERE o.id = new.order_id)
BEGIN
  SELECT RAISE(ABORT, 'Store limit reached: OrderItems');
END;
--> statement-breakpoint
CREATE TRIGGER order_items_counted AFTER INSERT ON order_items BEGIN
  UPDATE store_usage SET order_items = order_items + 1 WHERE store_id = (SELECT store_id FROM orders WHERE id = new.order_id);
END;
--> statement-breakpoint
CREATE TRIGGER order_items_uncounted AFTER DELETE ON order_items BEGIN
  UPDATE store_usage SET order_items = order_items - 1 WHERE store_id = (SELECT store_id FROM orders WHERE id = old.order_id);
END;
--> statement-breakpoint
CREATE TRIGGER products_limit BEFORE INSERT ON products
WHEN (SELECT products FROM store_usage WHERE store_id = new.store_id) >= (SELECT max_products FROM stores WHERE id = new.store_id)
BEGIN
  SELECT RAISE(ABORT, 'Store limit reached: Products')
  WHERE NOT EXISTS (SELECT 1 FROM products WHERE store_id = new.store_id AND sku = new.sku);
END;
--> statement-breakpoint
CREATE TRIGGER products_counted AFTER INSERT ON products BEGIN
  UPDATE store_usage SET products = products + 1 WHERE store_id = new.store_id;
END;
--> statement-breakpoint
CREATE TRIGGER products_uncounted AFTER DELETE ON products BEGIN
  UPDATE store_usage SET products = products - 1 WHERE store_id = old.store_id;
END;
--> statement-breakpoint
CREATE TRIGGER feeds_limit BEFORE INSERT ON feeds
WHEN (SELECT feeds FROM store_usage WHERE store_id = new.store_id) >= (SELECT max_feeds FROM stores WHERE id = new.store_id)
BEGIN
  SELECT RAISE(ABORT, 'Store limit reached: Feeds');
END;
--> statement-breakpoint
CREATE TRIGGER feeds_counted AFTER INSERT ON feeds BEGIN
  UPDATE store_usage SET feeds = feeds + 1 WHERE store_id = new.store_id;
END;
--> statement-breakpoint
CREATE TRIGGER feeds_uncounted AFTER DELETE ON feeds BEGIN
  UPDATE store_usage SET feeds = feeds - 1 WHERE store_id = old.store_id;
END;
--> statement-breakpoint
CREATE TRIGGER sources_limit BEFORE INSERT ON sources
WHEN (SELECT sources FROM store_usage WHERE store_id = new.store_id) >= (SELECT max_sources FROM stores WHERE id = new.store_id)
BEGIN
  SELECT RAISE(ABORT, 'Store limit reached: Sources');
END;
--> statement-breakpoint
CREATE TRIGGER sources_counted AFTER INSERT ON sources BEGIN
  UPDATE store_usage SET sources = sources + 1 WHERE store_id = new.store_id;
END;
--> statement-breakpoint
CREATE TRIGGER sources_uncounted AFTER DELETE ON sources BEGIN
  UPDATE store_usage SET sources = sources - 1 WHERE store_id = old.store_id;
END;
--> statement-breakpoint
-- Consumer keys count while they are active: a revoked key no longer uses the limit.
CREATE TRIGGER consumer_keys_limit BEFORE INSERT ON consumer_keys
WHEN (SELECT consumer_keys FROM store_usage WHERE store_id = new.store_id) >= (SELECT max_consumer_keys FROM stores WHERE id = new.store_id)
BEGIN
  SELECT RAISE(ABORT, 'Store limit reached: ConsumerKeys');
END;
--> statement-breakpoint
CREATE TRIGGER consumer_keys_counted AFTER INSERT ON consumer_keys WHEN new.revoked_at IS NULL BEGIN
  UPDATE store_usage SET consumer_keys = consumer_keys + 1 WHERE store_id = new.store_id;
END;
--> statement-breakpoint
CREATE TRIGGER consumer_keys_uncounted AFTER DELETE ON consumer_keys WHEN old.revoked_at IS NULL BEGIN
  UPDATE store_usage SET consumer_keys = consumer_keys - 1 WHERE store_id = old.store_id;
END;
--> statement-breakpoint
CREATE TRIGGER consumer_keys_recounted AFTER UPDATE OF revoked_at ON consumer_keys
WHEN (old.revoked_at IS NULL) <> (new.revoked_at IS NULL)
BEGIN
  UPDATE store_usage SET consumer_keys = consumer_keys + (CASE WHEN new.revoked_at IS NULL THEN 1 ELSE -1 END) WHERE store_id = new.store_id;
END;
