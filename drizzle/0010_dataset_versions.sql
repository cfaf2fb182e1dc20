CREATE TABLE `dataset_versions` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`cluster` text NOT NULL,
	`file` text NOT NULL,
	`rows` integer NOT NULL,
	`created` text NOT NULL,
	`state` text NOT NULL,
	`published` text,
	`superseded` text,
	`last_read` text,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `dataset_versions_project` ON `dataset_versions` (`project_id`,`state`,`cluster`);--> statement-breakpoint
CREATE TABLE `project_write_locks` (
	`project_id` text PRIMARY KEY NOT NULL,
	`holder` text NOT NULL,
	`lease_until` text NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
