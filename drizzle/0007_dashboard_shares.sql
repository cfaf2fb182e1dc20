CREATE TABLE `shares` (
	`project_id` text NOT NULL,
	`dashboard` text NOT NULL,
	`type` text NOT NULL,
	`users` text DEFAULT '[]' NOT NULL,
	`email_notif` integer DEFAULT false NOT NULL,
	`token` text,
	`created_by` text NOT NULL,
	`created` text NOT NULL,
	`updated_by` text NOT NULL,
	`updated` text NOT NULL,
	PRIMARY KEY(`project_id`, `dashboard`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`project_id`,`dashboard`) REFERENCES `objects`(`project_id`,`ident`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `shares_token` ON `shares` (`token`);--> statement-breakpoint
ALTER TABLE `projects` ADD `dashboard_embedding` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `projects` ADD `embed_origins` text;