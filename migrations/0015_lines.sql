CREATE TABLE `line_changes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`order_id` integer NOT NULL,
	`seq` integer NOT NULL,
	`store_id` text NOT NULL,
	`kind` text NOT NULL,
	`origin` text NOT NULL,
	`lines` text NOT NULL,
	`tracking_number` text,
	`carrier` text,
	`shipping_method` text,
	`date_shipped` integer,
	`marketplace_ref` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`order_id`) REFERENCES `orders`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `line_changes_order_seq` ON `line_changes` (`order_id`,`seq`);--> statement-breakpoint
ALTER TABLE `order_items` ADD `quantity_shipped` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `order_items` ADD `quantity_cancelled` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `orders` ADD `fulfillment_status` text DEFAULT 'Unshipped' NOT NULL;--> statement-breakpoint
CREATE INDEX `orders_store_fulfillment_created` ON `orders` (`store_id`,`fulfillment_status`,`date_created_in_order_source`,`id`);--> statement-breakpoint
CREATE INDEX `orders_store_fulfillment_updated` ON `orders` (`store_id`,`fulfillment_status`,`date_updated`,`id`);
--> statement-breakpoint
-- Hand-written from here on (drizzle-kit writes no triggers and moves no data), decisions 12.
--
-- A line never ships or cancels more than it holds: whatever writes order_items (a move, an
-- import, a race between two clients shipping the last unit), a row whose shipped plus cancelled
-- units exceed its quantity, or either below zero, is refused and its whole batch with it.
CREATE TRIGGER order_items_units_update BEFORE UPDATE OF quantity_shipped, quantity_cancelled, quantity ON order_items
  WHEN new.quantity_shipped < 0 OR new.quantity_cancelled < 0 OR new.quantity_shipped + new.quantity_cancelled > new.quantity
BEGIN
  SELECT RAISE(ABORT, 'line_over_quantity: a line cannot ship or cancel more units than it holds');
END;
--> statement-breakpoint
CREATE TRIGGER order_items_units_insert BEFORE INSERT ON order_items
  WHEN new.quantity_shipped < 0 OR new.quantity_cancelled < 0 OR new.quantity_shipped + new.quantity_cancelled > new.quantity
BEGIN
  SELECT RAISE(ABORT, 'line_over_quantity: a line cannot ship or cancel more units than it holds');
END;
--> statement-breakpoint
-- What line_changes rows hold counts in the store's stored bytes (as 0007 counts orders, lines and
-- outbox rows), but is never refused: a package or a cancellation must go through at the limit.--> statement-breakpoint
CREATE TRIGGER line_changes_bytes_counted AFTER INSERT ON line_changes BEGIN
  UPDATE store_usage SET stored_bytes = stored_bytes + (coalesce(length(CAST(new.store_id AS BLOB)), 0) + coalesce(length(CAST(new.kind AS BLOB)), 0) + coalesce(length(CAST(new.origin AS BLOB)), 0) + coalesce(length(CAST(new.lines AS BLOB)), 0) + coalesce(length(CAST(new.tracking_number AS BLOB)), 0) + coalesce(length(CAST(new.carrier AS BLOB)), 0) + coalesce(length(CAST(new.shipping_method AS BLOB)), 0) + coalesce(length(CAST(new.marketplace_ref AS BLOB)), 0) + 48) WHERE store_id = new.store_id;
END;
--> statement-breakpoint
CREATE TRIGGER line_changes_bytes_updated AFTER UPDATE ON line_changes BEGIN
  UPDATE store_usage SET stored_bytes = stored_bytes + (coalesce(length(CAST(new.store_id AS BLOB)), 0) + coalesce(length(CAST(new.kind AS BLOB)), 0) + coalesce(length(CAST(new.origin AS BLOB)), 0) + coalesce(length(CAST(new.lines AS BLOB)), 0) + coalesce(length(CAST(new.tracking_number AS BLOB)), 0) + coalesce(length(CAST(new.carrier AS BLOB)), 0) + coalesce(length(CAST(new.shipping_method AS BLOB)), 0) + coalesce(length(CAST(new.marketplace_ref AS BLOB)), 0) + 48) - (coalesce(length(CAST(old.store_id AS BLOB)), 0) + coalesce(length(CAST(old.kind AS BLOB)), 0) + coalesce(length(CAST(old.origin AS BLOB)), 0) + coalesce(length(CAST(old.lines AS BLOB)), 0) + coalesce(length(CAST(old.tracking_number AS BLOB)), 0) + coalesce(length(CAST(old.carrier AS BLOB)), 0) + coalesce(length(CAST(old.shipping_method AS BLOB)), 0) + coalesce(length(CAST(old.marketplace_ref AS BLOB)), 0) + 48) WHERE store_id = new.store_id;
END;
--> statement-breakpoint
CREATE TRIGGER line_changes_bytes_uncounted AFTER DELETE ON line_changes BEGIN
  UPDATE store_usage SET stored_bytes = stored_bytes - (coalesce(length(CAST(old.store_id AS BLOB)), 0) + coalesce(length(CAST(old.kind AS BLOB)), 0) + coalesce(length(CAST(old.origin AS BLOB)), 0) + coalesce(length(CAST(old.lines AS BLOB)), 0) + coalesce(length(CAST(old.tracking_number AS BLOB)), 0) + coalesce(length(CAST(old.carrier AS BLOB)), 0) + coalesce(length(CAST(old.shipping_method AS BLOB)), 0) + coalesce(length(CAST(old.marketplace_ref AS BLOB)), 0) + 48) WHERE store_id = old.store_id;
END;
--> statement-breakpoint
-- A store move (0012): every change of a captured store's line_changes is logged, every write of a
-- fenced store's is refused.--> statement-breakpoint
CREATE TRIGGER move_log_line_changes_insert AFTER INSERT ON line_changes
  WHEN EXISTS (SELECT 1 FROM move_capture WHERE store_id = new.store_id)
BEGIN
  INSERT INTO move_log (store_id, tbl, k1, k2) VALUES (new.store_id, 'line_changes', new.id, NULL);
END;
--> statement-breakpoint
CREATE TRIGGER move_fence_line_changes_insert BEFORE INSERT ON line_changes
  WHEN EXISTS (SELECT 1 FROM store_fences WHERE store_id = new.store_id)
BEGIN
  SELECT RAISE(ABORT, 'store_moved: the store is switching to another shard');
END;--> statement-breakpoint
CREATE TRIGGER move_log_line_changes_update AFTER UPDATE ON line_changes
  WHEN EXISTS (SELECT 1 FROM move_capture WHERE store_id = new.store_id)
BEGIN
  INSERT INTO move_log (store_id, tbl, k1, k2) VALUES (new.store_id, 'line_changes', new.id, NULL);
END;
--> statement-breakpoint
CREATE TRIGGER move_fence_line_changes_update BEFORE UPDATE ON line_changes
  WHEN EXISTS (SELECT 1 FROM store_fences WHERE store_id = new.store_id)
BEGIN
  SELECT RAISE(ABORT, 'store_moved: the store is switching to another shard');
END;--> statement-breakpoint
CREATE TRIGGER move_log_line_changes_delete AFTER DELETE ON line_changes
  WHEN EXISTS (SELECT 1 FROM move_capture WHERE store_id = old.store_id)
BEGIN
  INSERT INTO move_log (store_id, tbl, k1, k2) VALUES (old.store_id, 'line_changes', old.id, NULL);
END;
--> statement-breakpoint
CREATE TRIGGER move_fence_line_changes_delete BEFORE DELETE ON line_changes
  WHEN EXISTS (SELECT 1 FROM store_fences WHERE store_id = old.store_id AND purging = 0)
BEGIN
  SELECT RAISE(ABORT, 'store_moved: the store is switching to another shard');
END;--> statement-breakpoint
-- Existing orders read as section 12 says, and nothing is sent again: a Shipped order's lines are
-- shipped in full, as one package with the order's tracking, carrier, method and date (and the
-- marketplace's reference of its delivered shipment); a Canceled order's lines are cancelled in
-- full, as one cancellation. Undelivered shipments name their package, so a correction replaces
-- them as before. date_updated does not move: nothing changed for a client.
--
-- First, line_changes ids start in the shard's current id epoch (src/db/shards.ts): where orders'
-- ids are, so a store moved here or away keeps ids no other shard hands out.
INSERT INTO sqlite_sequence (name, seq) SELECT 'line_changes', seq FROM sqlite_sequence WHERE name = 'orders'
  AND NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'line_changes');
--> statement-breakpoint
UPDATE order_items SET quantity_shipped = quantity WHERE order_id IN (SELECT id FROM orders WHERE status = 'Shipped');
--> statement-breakpoint
UPDATE order_items SET quantity_cancelled = quantity WHERE order_id IN (SELECT id FROM orders WHERE status = 'Canceled');
--> statement-breakpoint
INSERT INTO line_changes (order_id, seq, store_id, kind, origin, lines, tracking_number, carrier, shipping_method, date_shipped, marketplace_ref, created_at, updated_at)
SELECT o.id, 1, o.store_id, 'ship', 'seller',
  (SELECT json_group_array(json_array(i.id, i.quantity)) FROM (SELECT id, quantity FROM order_items WHERE order_id = o.id ORDER BY id) AS i),
  o.shipment_tracking_number, nullif(o.destination_shipping_carrier, ''), nullif(o.shipping_method, ''), o.date_shipped,
  (SELECT reference FROM outbox WHERE order_id = o.id AND kind = 'ship' AND state = 'delivered' ORDER BY id DESC LIMIT 1),
  coalesce(o.date_shipped, o.date_updated), o.date_updated
FROM orders AS o WHERE o.status = 'Shipped';
--> statement-breakpoint
INSERT INTO line_changes (order_id, seq, store_id, kind, origin, lines, created_at, updated_at)
SELECT o.id, 1, o.store_id, 'cancel', 'seller',
  (SELECT json_group_array(json_array(i.id, i.quantity)) FROM (SELECT id, quantity FROM order_items WHERE order_id = o.id ORDER BY id) AS i),
  o.date_updated, o.date_updated
FROM orders AS o WHERE o.status = 'Canceled';
--> statement-breakpoint
UPDATE orders SET fulfillment_status = status WHERE status IN ('Shipped', 'Canceled');
--> statement-breakpoint
UPDATE outbox SET payload = json_set(payload, '$.shipmentId', (SELECT c.id FROM line_changes AS c WHERE c.order_id = outbox.order_id AND c.seq = 1 AND c.kind = 'ship'))
WHERE kind = 'ship' AND EXISTS (SELECT 1 FROM line_changes AS c WHERE c.order_id = outbox.order_id AND c.seq = 1 AND c.kind = 'ship');
