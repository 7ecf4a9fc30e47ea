CREATE TABLE `consumer_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`name` text NOT NULL,
	`key_hash` text NOT NULL,
	`scopes` text NOT NULL,
	`lifespan` text NOT NULL,
	`bucket_size` integer,
	`leak_rate_per_second` real,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`store_id`) REFERENCES `stores`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `consumer_keys_key_hash` ON `consumer_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `consumer_keys_store` ON `consumer_keys` (`store_id`);--> statement-breakpoint
CREATE TABLE `order_items` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`order_id` integer NOT NULL,
	`source_line_id` text,
	`sku` text NOT NULL,
	`name` text NOT NULL,
	`quantity` integer NOT NULL,
	`unit_price` real NOT NULL,
	`sale_tax_cost` real DEFAULT 0 NOT NULL,
	`discount` text DEFAULT '0' NOT NULL,
	FOREIGN KEY (`order_id`) REFERENCES `orders`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `order_items_order` ON `order_items` (`order_id`,`id`);--> statement-breakpoint
CREATE TABLE `orders` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`store_id` text NOT NULL,
	`source_id` text,
	`order_source` text NOT NULL,
	`order_source_order_number` text NOT NULL,
	`order_source_customer_order_number` text,
	`order_destination_order_number` text,
	`status` text NOT NULL,
	`source_order_status` text DEFAULT '' NOT NULL,
	`buyer_email_address` text NOT NULL,
	`buyer_phone_number` text NOT NULL,
	`buyer_user_id` text,
	`first_name` text NOT NULL,
	`last_name` text NOT NULL,
	`ship_to_company_name` text,
	`street1` text NOT NULL,
	`street2` text DEFAULT '' NOT NULL,
	`city` text NOT NULL,
	`state_or_province` text NOT NULL,
	`postal_code` text NOT NULL,
	`country` text NOT NULL,
	`shipping_method` text NOT NULL,
	`shipping_service_name` text DEFAULT '' NOT NULL,
	`shipping_service_value` text DEFAULT '' NOT NULL,
	`destination_shipping_carrier` text DEFAULT '' NOT NULL,
	`payment_type` text,
	`payment_transaction_id` text,
	`is_marketplace_prime` integer DEFAULT false NOT NULL,
	`grand_total` real NOT NULL,
	`sub_total` real NOT NULL,
	`shipping_total` real DEFAULT 0 NOT NULL,
	`shipping_tax_total` real DEFAULT 0 NOT NULL,
	`gift_wrap_total` real DEFAULT 0 NOT NULL,
	`gift_wrap_tax_total` real DEFAULT 0 NOT NULL,
	`shipment_tracking_number` text,
	`sync_user_error_message` text,
	`cancel_reason` text,
	`date_created_in_order_source` integer NOT NULL,
	`date_created_in_destination` integer,
	`date_shipped` integer,
	`date_updated` integer NOT NULL,
	FOREIGN KEY (`store_id`) REFERENCES `stores`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `orders_store_source_number` ON `orders` (`store_id`,`order_source`,`order_source_order_number`);--> statement-breakpoint
CREATE INDEX `orders_store_created` ON `orders` (`store_id`,`date_created_in_order_source`,`id`);--> statement-breakpoint
CREATE INDEX `orders_store_status_created` ON `orders` (`store_id`,`status`,`date_created_in_order_source`,`id`);--> statement-breakpoint
CREATE INDEX `orders_store_updated` ON `orders` (`store_id`,`date_updated`,`id`);--> statement-breakpoint
CREATE INDEX `orders_store_status_updated` ON `orders` (`store_id`,`status`,`date_updated`,`id`);--> statement-breakpoint
CREATE TABLE `outbox` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`store_id` text NOT NULL,
	`source_id` text NOT NULL,
	`order_id` integer NOT NULL,
	`kind` text NOT NULL,
	`payload` text NOT NULL,
	`state` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`last_error` text,
	`created_at` integer NOT NULL,
	`delivered_at` integer,
	FOREIGN KEY (`order_id`) REFERENCES `orders`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `outbox_source_due` ON `outbox` (`source_id`,`state`,`next_attempt_at`,`id`);--> statement-breakpoint
CREATE INDEX `outbox_order` ON `outbox` (`order_id`,`id`);--> statement-breakpoint
CREATE TABLE `settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`updated_at` integer DEFAULT (unixepoch() * 1000) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `sources` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`type` text NOT NULL,
	`name` text NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`settings_ciphertext` text NOT NULL,
	`cursor_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`store_id`) REFERENCES `stores`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sources_store_name` ON `sources` (`store_id`,`name`);--> statement-breakpoint
CREATE TABLE `stores` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`mask_buyer_pii` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`deleted_at` integer
);
