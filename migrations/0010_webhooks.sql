CREATE TABLE `webhook_deliveries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` text NOT NULL,
	`store_id` text NOT NULL,
	`webhook_id` text NOT NULL,
	`subject` text NOT NULL,
	`type` text NOT NULL,
	`payload` text,
	`state` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`last_status_code` integer,
	`last_error` text,
	`created_at` integer NOT NULL,
	`finished_at` integer,
	FOREIGN KEY (`webhook_id`) REFERENCES `webhooks`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_deliveries_event` ON `webhook_deliveries` (`event_id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due` ON `webhook_deliveries` (`webhook_id`,`state`,`next_attempt_at`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_subject` ON `webhook_deliveries` (`webhook_id`,`subject`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_list` ON `webhook_deliveries` (`webhook_id`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_unfilled` ON `webhook_deliveries` (`store_id`) WHERE payload is null;--> statement-breakpoint
CREATE TABLE `webhooks` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`url` text NOT NULL,
	`events` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`disabled_reason` text,
	`secret_ciphertext` text NOT NULL,
	`previous_secret_ciphertext` text,
	`previous_secret_expires_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`store_id`) REFERENCES `stores`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `webhooks_store_enabled` ON `webhooks` (`store_id`,`enabled`);