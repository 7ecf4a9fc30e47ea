ALTER TABLE `sources` ADD `last_cycle_started_at` integer;--> statement-breakpoint
ALTER TABLE `sources` ADD `last_cycle_ended_at` integer;--> statement-breakpoint
ALTER TABLE `sources` ADD `last_cycle_imported` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `sources` ADD `imported_total` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `sources` ADD `last_error` text;