CREATE TABLE `password_links` (
	`id_hash` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`purpose` text NOT NULL,
	`created` text NOT NULL,
	`expires` text NOT NULL,
	`ended` text,
	`ended_at` text,
	FOREIGN KEY (`email`) REFERENCES `users`(`email`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `password_links_email` ON `password_links` (`email`);--> statement-breakpoint
CREATE TABLE `rate_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`scope` text NOT NULL,
	`key` text NOT NULL,
	`at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `rate_events_key` ON `rate_events` (`scope`,`key`,`at`);--> statement-breakpoint
CREATE INDEX `rate_events_at` ON `rate_events` (`at`);