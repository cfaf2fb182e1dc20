ALTER TABLE `jobs` ADD `owner` text;--> statement-breakpoint
ALTER TABLE `jobs` ADD `lease_until` integer;--> statement-breakpoint
ALTER TABLE `jobs` ADD `cancel_requested` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `jobs` ADD `attempts` integer DEFAULT 0 NOT NULL;