CREATE TABLE `flow_locks` (
	`project_id` text NOT NULL,
	`flow` text NOT NULL,
	`job_id` text NOT NULL,
	`since` text NOT NULL,
	PRIMARY KEY(`project_id`, `flow`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `trigger_firings` (
	`project_id` text NOT NULL,
	`trigger` text NOT NULL,
	`slot` text NOT NULL,
	`time` text NOT NULL,
	`job_id` text,
	`outcome` text NOT NULL,
	`message` text,
	PRIMARY KEY(`project_id`, `trigger`, `slot`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `trigger_firings_time` ON `trigger_firings` (`project_id`,`trigger`,`time`);--> statement-breakpoint
CREATE TABLE `trigger_state` (
	`project_id` text NOT NULL,
	`trigger` text NOT NULL,
	`state` text NOT NULL,
	`updated` text NOT NULL,
	PRIMARY KEY(`project_id`, `trigger`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
