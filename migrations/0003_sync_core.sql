CREATE TABLE `set_aside_orders` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`store_id` text NOT NULL,
	`source_id` text NOT NULL,
	`order_source_order_number` text NOT NULL,
	`reason` text NOT NULL,
	`record` text NOT NULL,
	`record_truncated` integer DEFAULT false NOT NULL,
	`first_seen_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `set_aside_source_number` ON `set_aside_orders` (`source_id`,`order_source_order_number`);--> statement-breakpoint
ALTER TABLE `orders` ADD `source_data` text;--> statement-breakpoint
ALTER TABLE `outbox` ADD `reference` text;--> statement-breakpoint
ALTER TABLE `outbox` ADD `warning` text;--> statement-breakpoint
ALTER TABLE `sources` ADD `recent_cycles` text DEFAULT '[]' NOT NULL;