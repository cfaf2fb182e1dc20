CREATE TABLE `oidc_models` (
	`kind` text NOT NULL,
	`id` text NOT NULL,
	`payload` text NOT NULL,
	`grant_id` text,
	`user_code` text,
	`uid` text,
	`expires_at` text,
	`consumed` text,
	PRIMARY KEY(`kind`, `id`)
);
--> statement-breakpoint
CREATE INDEX `oidc_models_grant` ON `oidc_models` (`grant_id`);--> statement-breakpoint
CREATE INDEX `oidc_models_uid` ON `oidc_models` (`uid`);--> statement-breakpoint
CREATE INDEX `oidc_models_user_code` ON `oidc_models` (`user_code`);--> statement-breakpoint
CREATE INDEX `oidc_models_expires` ON `oidc_models` (`expires_at`);