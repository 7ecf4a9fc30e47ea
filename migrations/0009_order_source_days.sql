CREATE TABLE `order_source_day_counts` (
	`store_id` text NOT NULL,
	`day` integer NOT NULL,
	`order_source` text NOT NULL,
	`n` integer NOT NULL,
	PRIMARY KEY(`store_id`, `day`, `order_source`)
);
--> statement-breakpoint
-- Hand-written from here on (drizzle-kit writes no triggers): kept like order_day_counts (0004),
-- in the same statement as every change to an order, whoever writes it. Day = start of the UTC
-- day of date_created_in_order_source in ms, floored.
INSERT INTO order_source_day_counts (store_id, day, order_source, n)
  SELECT store_id, (date_created_in_order_source - (((date_created_in_order_source % 86400000) + 86400000) % 86400000)) AS d, order_source, count(*)
  FROM orders GROUP BY store_id, d, order_source;
--> statement-breakpoint
CREATE TRIGGER orders_source_counted AFTER INSERT ON orders BEGIN
  INSERT INTO order_source_day_counts (store_id, day, order_source, n) VALUES (new.store_id, (new.date_created_in_order_source - (((new.date_created_in_order_source % 86400000) + 86400000) % 86400000)), new.order_source, 1)
    ON CONFLICT (store_id, day, order_source) DO UPDATE SET n = n + 1;
END;
--> statement-breakpoint
CREATE TRIGGER orders_source_recounted AFTER UPDATE OF store_id, order_source, date_created_in_order_source ON orders BEGIN
  INSERT INTO order_source_day_counts (store_id, day, order_source, n) VALUES (old.store_id, (old.date_created_in_order_source - (((old.date_created_in_order_source % 86400000) + 86400000) % 86400000)), old.order_source, -1)
    ON CONFLICT (store_id, day, order_source) DO UPDATE SET n = n - 1;
  INSERT INTO order_source_day_counts (store_id, day, order_source, n) VALUES (new.store_id, (new.date_created_in_order_source - (((new.date_created_in_order_source % 86400000) + 86400000) % 86400000)), new.order_source, 1)
    ON CONFLICT (store_id, day, order_source) DO UPDATE SET n = n + 1;
END;
--> statement-breakpoint
CREATE TRIGGER orders_source_uncounted AFTER DELETE ON orders BEGIN
  INSERT INTO order_source_day_counts (store_id, day, order_source, n) VALUES (old.store_id, (old.date_created_in_order_source - (((old.date_created_in_order_source % 86400000) + 86400000) % 86400000)), old.order_source, -1)
    ON CONFLICT (store_id, day, order_source) DO UPDATE SET n = n - 1;
END;
