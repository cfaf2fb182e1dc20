CREATE TABLE `delivery_history` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`object` text NOT NULL,
	`recipient` text NOT NULL,
	`outcome` text NOT NULL,
	`value` text,
	`message` text,
	`job_id` text,
	`time` text NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `delivery_history_time` ON `delivery_history` (`project_id`,`object`,`time`);--> statement-breakpoint
CREATE TABLE `delivery_state` (
	`project_id` text NOT NULL,
	`object` text NOT NULL,
	`recipient` text NOT NULL,
	`firing` integer DEFAULT false NOT NULL,
	`last_value` text,
	`updated` text NOT NULL,
	PRIMARY KEY(`project_id`, `object`, `recipient`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
