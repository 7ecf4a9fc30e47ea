CREATE TABLE `refund_lines` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`refund_id` integer NOT NULL,
	`order_item_id` integer NOT NULL,
	`quantity` integer NOT NULL,
	`amount` real NOT NULL,
	FOREIGN KEY (`refund_id`) REFERENCES `refunds`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`order_item_id`) REFERENCES `order_items`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `refund_lines_refund` ON `refund_lines` (`refund_id`,`id`);--> statement-breakpoint
CREATE INDEX `refund_lines_item` ON `refund_lines` (`order_item_id`);--> statement-breakpoint
CREATE TABLE `refunds` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`store_id` text NOT NULL,
	`order_id` integer NOT NULL,
	`return_id` integer,
	`origin` text NOT NULL,
	`source_refund_id` text,
	`request_key` text,
	`status` text NOT NULL,
	`reason` text NOT NULL,
	`shipping_amount` real DEFAULT 0 NOT NULL,
	`total` real NOT NULL,
	`currency` text,
	`date_created` integer NOT NULL,
	`last_write` text,
	FOREIGN KEY (`store_id`) REFERENCES `stores`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`order_id`) REFERENCES `orders`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`return_id`) REFERENCES `returns`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `refunds_order` ON `refunds` (`order_id`,`id`);--> statement-breakpoint
CREATE INDEX `refunds_return` ON `refunds` (`return_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `refunds_order_request` ON `refunds` (`order_id`,`request_key`);--> statement-breakpoint
CREATE UNIQUE INDEX `refunds_order_source_refund` ON `refunds` (`order_id`,`source_refund_id`);--> statement-breakpoint
CREATE TABLE `return_lines` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`return_id` integer NOT NULL,
	`order_item_id` integer NOT NULL,
	`source_return_line_id` text NOT NULL,
	`quantity` integer NOT NULL,
	`quantity_received` integer DEFAULT 0 NOT NULL,
	`quantity_restocked` integer DEFAULT 0 NOT NULL,
	`reason` text,
	FOREIGN KEY (`return_id`) REFERENCES `returns`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`order_item_id`) REFERENCES `order_items`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `return_lines_return_line` ON `return_lines` (`return_id`,`source_return_line_id`);--> statement-breakpoint
CREATE INDEX `return_lines_item` ON `return_lines` (`order_item_id`);--> statement-breakpoint
CREATE TABLE `returns` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`store_id` text NOT NULL,
	`order_id` integer NOT NULL,
	`source_id` text NOT NULL,
	`source_return_number` text NOT NULL,
	`status` text NOT NULL,
	`source_status` text DEFAULT '' NOT NULL,
	`reason` text,
	`source_data` text,
	`date_requested` integer NOT NULL,
	`date_updated` integer NOT NULL,
	`created_at` integer NOT NULL,
	`last_write` text,
	FOREIGN KEY (`store_id`) REFERENCES `stores`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`order_id`) REFERENCES `orders`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `returns_source_number` ON `returns` (`store_id`,`source_id`,`source_return_number`);--> statement-breakpoint
CREATE INDEX `returns_store_requested` ON `returns` (`store_id`,`date_requested`,`id`);--> statement-breakpoint
CREATE INDEX `returns_store_status_requested` ON `returns` (`store_id`,`status`,`date_requested`,`id`);--> statement-breakpoint
CREATE INDEX `returns_store_updated` ON `returns` (`store_id`,`date_updated`,`id`);--> statement-breakpoint
CREATE INDEX `returns_store_status_updated` ON `returns` (`store_id`,`status`,`date_updated`,`id`);--> statement-breakpoint
CREATE INDEX `returns_store_id` ON `returns` (`store_id`,`id`);--> statement-breakpoint
CREATE INDEX `returns_store_status_id` ON `returns` (`store_id`,`status`,`id`);--> statement-breakpoint
CREATE INDEX `returns_order` ON `returns` (`order_id`,`id`);--> statement-breakpoint
CREATE TABLE `set_aside_returns` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`store_id` text NOT NULL,
	`source_id` text NOT NULL,
	`source_return_number` text NOT NULL,
	`order_source_order_number` text,
	`reason` text NOT NULL,
	`record` text NOT NULL,
	`record_truncated` integer DEFAULT false NOT NULL,
	`first_seen_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `set_aside_returns_source_number` ON `set_aside_returns` (`source_id`,`source_return_number`);--> statement-breakpoint
ALTER TABLE `sources` ADD `returns_cursor_at` integer;--> statement-breakpoint
-- Hand-written from here on (drizzle-kit writes no triggers).
-- A hub refund's Status follows its outbox row (decisions 13): Pending while the row is to go
-- out, then Refunded, Failed or NotApplicable as the delivery ended, and Pending again when an
-- operator retries a failed row. The marketplace's reference of a delivered refund becomes its
-- sourceRefundId, so the same refund reported back by the next import is recognised (unless an
-- import already holds that id for the order: then it stays as it is, never a failed write).
CREATE TRIGGER refunds_follow_outbox AFTER UPDATE OF state, reference ON outbox
WHEN new.kind = 'refund' AND (old.state IS NOT new.state OR old.reference IS NOT new.reference) BEGIN
  UPDATE refunds SET
    status = CASE new.state WHEN 'delivered' THEN 'Refunded' WHEN 'failed' THEN 'Failed' WHEN 'notApplicable' THEN 'NotApplicable' ELSE 'Pending' END,
    source_refund_id = CASE WHEN new.state = 'delivered' AND new.reference IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM refunds AS r2 WHERE r2.order_id = refunds.order_id AND r2.source_refund_id = new.reference AND r2.id != refunds.id)
      THEN new.reference ELSE source_refund_id END
  WHERE id = json_extract(new.payload, '$.refundId') AND origin = 'hub';
  -- The order answers its refunds' Status: a client polling by DateUpdated sees the change.
  UPDATE orders SET date_updated = max(date_updated + 1, CAST(strftime('%s', 'now') AS INTEGER) * 1000)
  WHERE id = new.order_id AND old.state IS NOT new.state;
END;
--> statement-breakpoint
CREATE TRIGGER refunds_follow_outbox_insert AFTER INSERT ON outbox WHEN new.kind = 'refund' AND new.state != 'pending' BEGIN
  UPDATE refunds SET status = CASE new.state WHEN 'delivered' THEN 'Refunded' WHEN 'failed' THEN 'Failed' WHEN 'notApplicable' THEN 'NotApplicable' ELSE 'Pending' END
  WHERE id = json_extract(new.payload, '$.refundId') AND origin = 'hub';
END;
--> statement-breakpoint
-- A store move (migrations/0012_store_moves.sql) logs and fences the new tables of a store's data
-- like the others: lines find their store through their return or refund.
CREATE TRIGGER move_log_returns_insert AFTER INSERT ON returns
  WHEN EXISTS (SELECT 1 FROM move_capture WHERE store_id = new.store_id)
BEGIN
  INSERT INTO move_log (store_id, tbl, k1, k2) VALUES (new.store_id, 'returns', new.id, NULL);
END;
--> statement-breakpoint
CREATE TRIGGER move_fence_returns_insert BEFORE INSERT ON returns
  WHEN EXISTS (SELECT 1 FROM store_fences WHERE store_id = new.store_id)
BEGIN
  SELECT RAISE(ABORT, 'store_moved: the store is switching to another shard');
END;
--> statement-breakpoint
CREATE TRIGGER move_log_returns_update AFTER UPDATE ON returns
  WHEN EXISTS (SELECT 1 FROM move_capture WHERE store_id = new.store_id)
BEGIN
  INSERT INTO move_log (store_id, tbl, k1, k2) VALUES (new.store_id, 'returns', new.id, NULL);
END;
--> statement-breakpoint
CREATE TRIGGER move_fence_returns_update BEFORE UPDATE ON returns
  WHEN EXISTS (SELECT 1 FROM store_fences WHERE store_id = new.store_id)
BEGIN
  SELECT RAISE(ABORT, 'store_moved: the store is switching to another shard');
END;
--> statement-breakpoint
CREATE TRIGGER move_log_returns_delete AFTER DELETE ON returns
  WHEN EXISTS (SELECT 1 FROM move_capture WHERE store_id = old.store_id)
BEGIN
  INSERT INTO move_log (store_id, tbl, k1, k2) VALUES (old.store_id, 'returns', old.id, NULL);
END;
--> statement-breakpoint
CREATE TRIGGER move_fence_returns_delete BEFORE DELETE ON returns
  WHEN EXISTS (SELECT 1 FROM store_fences WHERE store_id = old.store_id AND purging = 0)
BEGIN
  SELECT RAISE(ABORT, 'store_moved: the store is switching to another shard');
END;
--> statement-breakpoint
CREATE TRIGGER move_log_return_lines_insert AFTER INSERT ON return_lines
  WHEN EXISTS (SELECT 1 FROM move_capture WHERE store_id = (SELECT store_id FROM returns WHERE id = new.return_id))
BEGIN
  INSERT INTO move_log (store_id, tbl, k1, k2) VALUES ((SELECT store_id FROM returns WHERE id = new.return_id), 'return_lines', new.id, NULL);
END;
--> statement-breakpoint
CREATE TRIGGER move_fence_return_lines_insert BEFORE INSERT ON return_lines
  WHEN EXISTS (SELECT 1 FROM store_fences WHERE store_id = (SELECT store_id FROM returns WHERE id = new.return_id))
BEGIN
  SELECT RAISE(ABORT, 'store_moved: the store is switching to another shard');
END;
--> statement-breakpoint
CREATE TRIGGER move_log_return_lines_update AFTER UPDATE ON return_lines
  WHEN EXISTS (SELECT 1 FROM move_capture WHERE store_id = (SELECT store_id FROM returns WHERE id = new.return_id))
BEGIN
  INSERT INTO move_log (store_id, tbl, k1, k2) VALUES ((SELECT store_id FROM returns WHERE id = new.return_id), 'return_lines', new.id, NULL);
END;
--> statement-breakpoint
CREATE TRIGGER move_fence_return_lines_update BEFORE UPDATE ON return_lines
  WHEN EXISTS (SELECT 1 FROM store_fences WHERE store_id = (SELECT store_id FROM returns WHERE id = new.return_id))
BEGIN
  SELECT RAISE(ABORT, 'store_moved: the store is switching to another shard');
END;
--> statement-breakpoint
CREATE TRIGGER move_log_return_lines_delete AFTER DELETE ON return_lines
  WHEN EXISTS (SELECT 1 FROM move_capture WHERE store_id = (SELECT store_id FROM returns WHERE id = old.return_id))
BEGIN
  INSERT INTO move_log (store_id, tbl, k1, k2) VALUES ((SELECT store_id FROM returns WHERE id = old.return_id), 'return_lines', old.id, NULL);
END;
--> statement-breakpoint
CREATE TRIGGER move_fence_return_lines_delete BEFORE DELETE ON return_lines
  WHEN EXISTS (SELECT 1 FROM store_fences WHERE store_id = (SELECT store_id FROM returns WHERE id = old.return_id) AND purging = 0)
BEGIN
  SELECT RAISE(ABORT, 'store_moved: the store is switching to another shard');
END;
--> statement-breakpoint
CREATE TRIGGER move_log_refunds_insert AFTER INSERT ON refunds
  WHEN EXISTS (SELECT 1 FROM move_capture WHERE store_id = new.store_id)
BEGIN
  INSERT INTO move_log (store_id, tbl, k1, k2) VALUES (new.store_id, 'refunds', new.id, NULL);
END;
--> statement-breakpoint
CREATE TRIGGER move_fence_refunds_insert BEFORE INSERT ON refunds
  WHEN EXISTS (SELECT 1 FROM store_fences WHERE store_id = new.store_id)
BEGIN
  SELECT RAISE(ABORT, 'store_moved: the store is switching to another shard');
END;
--> statement-breakpoint
CREATE TRIGGER move_log_refunds_update AFTER UPDATE ON refunds
  WHEN EXISTS (SELECT 1 FROM move_capture WHERE store_id = new.store_id)
BEGIN
  INSERT INTO move_log (store_id, tbl, k1, k2) VALUES (new.store_id, 'refunds', new.id, NULL);
END;
--> statement-breakpoint
CREATE TRIGGER move_fence_refunds_update BEFORE UPDATE ON refunds
  WHEN EXISTS (SELECT 1 FROM store_fences WHERE store_id = new.store_id)
BEGIN
  SELECT RAISE(ABORT, 'store_moved: the store is switching to another shard');
END;
--> statement-breakpoint
CREATE TRIGGER move_log_refunds_delete AFTER DELETE ON refunds
  WHEN EXISTS (SELECT 1 FROM move_capture WHERE store_id = old.store_id)
BEGIN
  INSERT INTO move_log (store_id, tbl, k1, k2) VALUES (old.store_id, 'refunds', old.id, NULL);
END;
--> statement-breakpoint
CREATE TRIGGER move_fence_refunds_delete BEFORE DELETE ON refunds
  WHEN EXISTS (SELECT 1 FROM store_fences WHERE store_id = old.store_id AND purging = 0)
BEGIN
  SELECT RAISE(ABORT, 'store_moved: the store is switching to another shard');
END;
--> statement-breakpoint
CREATE TRIGGER move_log_refund_lines_insert AFTER INSERT ON refund_lines
  WHEN EXISTS (SELECT 1 FROM move_capture WHERE store_id = (SELECT store_id FROM refunds WHERE id = new.refund_id))
BEGIN
  INSERT INTO move_log (store_id, tbl, k1, k2) VALUES ((SELECT store_id FROM refunds WHERE id = new.refund_id), 'refund_lines', new.id, NULL);
END;
--> statement-breakpoint
CREATE TRIGGER move_fence_refund_lines_insert BEFORE INSERT ON refund_lines
  WHEN EXISTS (SELECT 1 FROM store_fences WHERE store_id = (SELECT store_id FROM refunds WHERE id = new.refund_id))
BEGIN
  SELECT RAISE(ABORT, 'store_moved: the store is switching to another shard');
END;
--> statement-breakpoint
CREATE TRIGGER move_log_refund_lines_update AFTER UPDATE ON refund_lines
  WHEN EXISTS (SELECT 1 FROM move_capture WHERE store_id = (SELECT store_id FROM refunds WHERE id = new.refund_id))
BEGIN
  INSERT INTO move_log (store_id, tbl, k1, k2) VALUES ((SELECT store_id FROM refunds WHERE id = new.refund_id), 'refund_lines', new.id, NULL);
END;
--> statement-breakpoint
CREATE TRIGGER move_fence_refund_lines_update BEFORE UPDATE ON refund_lines
  WHEN EXISTS (SELECT 1 FROM store_fences WHERE store_id = (SELECT store_id FROM refunds WHERE id = new.refund_id))
BEGIN
  SELECT RAISE(ABORT, 'store_moved: the store is switching to another shard');
END;
--> statement-breakpoint
CREATE TRIGGER move_log_refund_lines_delete AFTER DELETE ON refund_lines
  WHEN EXISTS (SELECT 1 FROM move_capture WHERE store_id = (SELECT store_id FROM refunds WHERE id = old.refund_id))
BEGIN
  INSERT INTO move_log (store_id, tbl, k1, k2) VALUES ((SELECT store_id FROM refunds WHERE id = old.refund_id), 'refund_lines', old.id, NULL);
END;
--> statement-breakpoint
CREATE TRIGGER move_fence_refund_lines_delete BEFORE DELETE ON refund_lines
  WHEN EXISTS (SELECT 1 FROM store_fences WHERE store_id = (SELECT store_id FROM refunds WHERE id = old.refund_id) AND purging = 0)
BEGIN
  SELECT RAISE(ABORT, 'store_moved: the store is switching to another shard');
END;
--> statement-breakpoint
CREATE TRIGGER move_log_set_aside_returns_insert AFTER INSERT ON set_aside_returns
  WHEN EXISTS (SELECT 1 FROM move_capture WHERE store_id = new.store_id)
BEGIN
  INSERT INTO move_log (store_id, tbl, k1, k2) VALUES (new.store_id, 'set_aside_returns', new.id, NULL);
END;
--> statement-breakpoint
CREATE TRIGGER move_fence_set_aside_returns_insert BEFORE INSERT ON set_aside_returns
  WHEN EXISTS (SELECT 1 FROM store_fences WHERE store_id = new.store_id)
BEGIN
  SELECT RAISE(ABORT, 'store_moved: the store is switching to another shard');
END;
--> statement-breakpoint
CREATE TRIGGER move_log_set_aside_returns_update AFTER UPDATE ON set_aside_returns
  WHEN EXISTS (SELECT 1 FROM move_capture WHERE store_id = new.store_id)
BEGIN
  INSERT INTO move_log (store_id, tbl, k1, k2) VALUES (new.store_id, 'set_aside_returns', new.id, NULL);
END;
--> statement-breakpoint
CREATE TRIGGER move_fence_set_aside_returns_update BEFORE UPDATE ON set_aside_returns
  WHEN EXISTS (SELECT 1 FROM store_fences WHERE store_id = new.store_id)
BEGIN
  SELECT RAISE(ABORT, 'store_moved: the store is switching to another shard');
END;
--> statement-breakpoint
CREATE TRIGGER move_log_set_aside_returns_delete AFTER DELETE ON set_aside_returns
  WHEN EXISTS (SELECT 1 FROM move_capture WHERE store_id = old.store_id)
BEGIN
  INSERT INTO move_log (store_id, tbl, k1, k2) VALUES (old.store_id, 'set_aside_returns', old.id, NULL);
END;
--> statement-breakpoint
CREATE TRIGGER move_fence_set_aside_returns_delete BEFORE DELETE ON set_aside_returns
  WHEN EXISTS (SELECT 1 FROM store_fences WHERE store_id = old.store_id AND purging = 0)
BEGIN
  SELECT RAISE(ABORT, 'store_moved: the store is switching to another shard');
END;
