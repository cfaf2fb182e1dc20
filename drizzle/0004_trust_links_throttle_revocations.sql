CREATE TABLE `auth_throttle` (
	`bucket` text PRIMARY KEY NOT NULL,
	`count` integer NOT NULL,
	`since` text NOT NULL,
	`last` text NOT NULL,
	`blocked_until` text,
	`expires_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `auth_throttle_expires` ON `auth_throttle` (`expires_at`);--> statement-breakpoint
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
CREATE INDEX `rate_events_at` ON `rate_events` (`at`);--> statement-breakpoint
CREATE TABLE `token_revocations` (
	`kind` text NOT NULL,
	`id` text NOT NULL,
	`revoked` text NOT NULL,
	`expires_at` text NOT NULL,
	PRIMARY KEY(`kind`, `id`)
);
--> statement-breakpoint
CREATE INDEX `token_revocations_expires` ON `token_revocations` (`expires_at`);