CREATE TABLE `feeds` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`format` text NOT NULL,
	`template` text NOT NULL,
	`columns` text,
	`compile_interval_minutes` integer,
	`status` text NOT NULL,
	`status_message` text DEFAULT '' NOT NULL,
	`file_name` text NOT NULL,
	`file_key` text,
	`file_size` integer,
	`total_count` integer DEFAULT 0 NOT NULL,
	`valid_count` integer DEFAULT 0 NOT NULL,
	`warning_count` integer DEFAULT 0 NOT NULL,
	`error_count` integer DEFAULT 0 NOT NULL,
	`score` integer DEFAULT 0 NOT NULL,
	`issues` text,
	`date_last_compiled` integer,
	`date_last_submitted` integer,
	`date_last_pulled` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`store_id`) REFERENCES `stores`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `feeds_store_name` ON `feeds` (`store_id`,`name_key`,`id`);--> statement-breakpoint
CREATE INDEX `feeds_store_compiled` ON `feeds` (`store_id`,`date_last_compiled`,`id`);--> statement-breakpoint
CREATE TABLE `products` (
	`store_id` text NOT NULL,
	`sku` text NOT NULL,
	`title` text,
	`description` text,
	`link` text,
	`image_link` text,
	`price` real,
	`currency` text,
	`availability` text,
	`brand` text,
	`gtin` text,
	`attributes` text,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`store_id`, `sku`),
	FOREIGN KEY (`store_id`) REFERENCES `stores`(`id`) ON UPDATE no action ON DELETE no action
);
