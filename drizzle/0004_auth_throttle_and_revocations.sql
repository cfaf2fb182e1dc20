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
CREATE TABLE `token_revocations` (
	`kind` text NOT NULL,
	`id` text NOT NULL,
	`revoked` text NOT NULL,
	`expires_at` text NOT NULL,
	PRIMARY KEY(`kind`, `id`)
);
--> statement-breakpoint
CREATE INDEX `token_revocations_expires` ON `token_revocations` (`expires_at`);