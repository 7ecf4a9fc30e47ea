CREATE TABLE `shard_epochs` (
	`epoch` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`shard` text NOT NULL,
	`issued_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `stores` ADD `shard` text DEFAULT 'DB' NOT NULL;