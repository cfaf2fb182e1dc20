CREATE TABLE `activity` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` text NOT NULL,
	`type` text NOT NULL,
	`time` text NOT NULL,
	`user` text,
	`object` text,
	`message` text NOT NULL,
	`detail` text NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `activity_project_type` ON `activity` (`project_id`,`type`,`id`);--> statement-breakpoint
CREATE TABLE `jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`type` text NOT NULL,
	`status` text NOT NULL,
	`message` text,
	`params` text NOT NULL,
	`result` text,
	`progress` text,
	`created_by` text NOT NULL,
	`created` text NOT NULL,
	`started` text,
	`finished` text,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `jobs_project_created` ON `jobs` (`project_id`,`created`);--> statement-breakpoint
CREATE INDEX `jobs_status` ON `jobs` (`status`);--> statement-breakpoint
CREATE TABLE `org_admins` (
	`org_id` text NOT NULL,
	`email` text NOT NULL,
	PRIMARY KEY(`org_id`, `email`),
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `organizations` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`plan` text NOT NULL,
	`created` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `project_users` (
	`project_id` text NOT NULL,
	`email` text NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`admin` integer DEFAULT false NOT NULL,
	`mdadmin` integer DEFAULT false NOT NULL,
	`useradmin` integer DEFAULT false NOT NULL,
	`roles` text DEFAULT '[]' NOT NULL,
	`filter` text,
	`invited_by` text,
	`created` text NOT NULL,
	`updated` text NOT NULL,
	PRIMARY KEY(`project_id`, `email`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `project_users_email` ON `project_users` (`email`);--> statement-breakpoint
CREATE TABLE `projects` (
	`id` text PRIMARY KEY NOT NULL,
	`label` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`org_id` text NOT NULL,
	`maintenance` integer DEFAULT false NOT NULL,
	`webdav_token_hash` text,
	`announcement` text,
	`created_by` text NOT NULL,
	`created` text NOT NULL,
	`updated` text NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `sessions` (
	`id_hash` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`created` text NOT NULL,
	`expires` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `users` (
	`email` text PRIMARY KEY NOT NULL,
	`name` text,
	`password_hash` text,
	`created` text NOT NULL
);
