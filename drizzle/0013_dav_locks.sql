CREATE TABLE `dav_locks` (
	`token` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`root` text NOT NULL,
	`href` text NOT NULL,
	`depth` text NOT NULL,
	`scope` text NOT NULL,
	`owner` text NOT NULL,
	`principal` text NOT NULL,
	`timeout_seconds` integer NOT NULL,
	`expires` integer NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `dav_locks_project` ON `dav_locks` (`project_id`);