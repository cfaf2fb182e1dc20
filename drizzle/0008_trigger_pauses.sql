CREATE TABLE `trigger_pauses` (
	`project_id` text NOT NULL,
	`trigger` text NOT NULL,
	`time` text NOT NULL,
	`message` text NOT NULL,
	PRIMARY KEY(`project_id`, `trigger`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
