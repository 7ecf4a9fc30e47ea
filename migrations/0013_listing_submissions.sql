-- A listing sent in a marketplace's feed is 'submitted' until the feed's outcome is read (Walmart's
-- inventory and price feeds): the feed's reference and the values it carried (docs/stock.md).
ALTER TABLE `listings` ADD `submission` text;--> statement-breakpoint
ALTER TABLE `listings` ADD `submitted_quantity` integer;--> statement-breakpoint
ALTER TABLE `listings` ADD `submitted_price` real;