CREATE TABLE `listings` (
	`source_id` text NOT NULL,
	`store_id` text NOT NULL,
	`sku` text NOT NULL,
	`accepted_quantity` integer,
	`accepted_price` real,
	`accepted_at` integer,
	`pending_quantity` integer,
	`pending_price` real,
	`currency` text,
	`planned_seq` integer NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`last_error` text,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`source_id`, `sku`)
);
--> statement-breakpoint
CREATE INDEX `listings_source_due` ON `listings` (`source_id`,`status`,`next_attempt_at`,`sku`);--> statement-breakpoint
CREATE INDEX `listings_source_planned` ON `listings` (`source_id`,`planned_seq`);--> statement-breakpoint
CREATE TABLE `stock_clock` (
	`store_id` text PRIMARY KEY NOT NULL,
	`seq` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `products` ADD `quantity` integer;--> statement-breakpoint
ALTER TABLE `products` ADD `stock_seq` integer;--> statement-breakpoint
CREATE INDEX `products_store_stock_seq` ON `products` (`store_id`,`stock_seq`);--> statement-breakpoint
-- Hand-written from here on (drizzle-kit writes no triggers). A tracked product whose quantity,
-- price or currency changes takes the next value of its store's stock clock, whatever wrote it
-- (catalog import, PUT Inventory, an order lowering it, a cancellation giving it back): each
-- source's listings plan the products changed after the last one they planned. A clock of its
-- own, not max(stock_seq) + 1: deleting the newest product must never hand out a number again.
CREATE TRIGGER products_stock_inserted AFTER INSERT ON products WHEN new.quantity IS NOT NULL BEGIN
  INSERT INTO stock_clock (store_id, seq) VALUES (new.store_id, 1)
    ON CONFLICT (store_id) DO UPDATE SET seq = seq + 1;
  UPDATE products SET stock_seq = (SELECT seq FROM stock_clock WHERE store_id = new.store_id)
    WHERE store_id = new.store_id AND sku = new.sku;
END;
--> statement-breakpoint
CREATE TRIGGER products_stock_changed AFTER UPDATE OF quantity, price, currency ON products
WHEN new.quantity IS NOT NULL AND (old.quantity IS NOT new.quantity OR old.price IS NOT new.price OR old.currency IS NOT new.currency) BEGIN
  INSERT INTO stock_clock (store_id, seq) VALUES (new.store_id, 1)
    ON CONFLICT (store_id) DO UPDATE SET seq = seq + 1;
  UPDATE products SET stock_seq = (SELECT seq FROM stock_clock WHERE store_id = new.store_id)
    WHERE store_id = new.store_id AND sku = new.sku;
END;
