CREATE TABLE `datasets` (
	`project_id` text NOT NULL,
	`name` text NOT NULL,
	`prescription` text NOT NULL,
	`rows` integer NOT NULL,
	`source` text,
	`loaded_by` text NOT NULL,
	`loaded` text NOT NULL,
	`data_version` integer NOT NULL,
	PRIMARY KEY(`project_id`, `name`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `dav_props` (
	`project_id` text NOT NULL,
	`path` text NOT NULL,
	`ns` text NOT NULL,
	`name` text NOT NULL,
	`value` text NOT NULL,
	PRIMARY KEY(`project_id`, `path`, `ns`, `name`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `object_revisions` (
	`project_id` text NOT NULL,
	`ident` text NOT NULL,
	`revision` integer NOT NULL,
	`snapshot` text NOT NULL,
	`user` text NOT NULL,
	`time` text NOT NULL,
	PRIMARY KEY(`project_id`, `ident`, `revision`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `objects` (
	`project_id` text NOT NULL,
	`ident` text NOT NULL,
	`type` text NOT NULL,
	`name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`def` text NOT NULL,
	`acl` text DEFAULT '[]' NOT NULL,
	`tags` text DEFAULT '[]' NOT NULL,
	`revision` integer DEFAULT 1 NOT NULL,
	`created_by` text NOT NULL,
	`created` text NOT NULL,
	`updated_by` text NOT NULL,
	`updated` text NOT NULL,
	PRIMARY KEY(`project_id`, `ident`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `objects_type` ON `objects` (`project_id`,`type`);--> statement-breakpoint
CREATE TABLE `prescriptions` (
	`project_id` text NOT NULL,
	`source_path` text NOT NULL,
	`prescription` text NOT NULL,
	`edited` integer DEFAULT false NOT NULL,
	`updated` text NOT NULL,
	PRIMARY KEY(`project_id`, `source_path`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `uploads` (
	`project_id` text NOT NULL,
	`ident` text NOT NULL,
	`filename` text NOT NULL,
	`total_size` integer NOT NULL,
	`chunk_size` integer NOT NULL,
	`total_chunks` integer NOT NULL,
	`target_path` text NOT NULL,
	`status` text NOT NULL,
	`created_by` text NOT NULL,
	`created` text NOT NULL,
	`updated` text NOT NULL,
	PRIMARY KEY(`project_id`, `ident`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `projects` ADD `data_version` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `projects` ADD `model_version` integer DEFAULT 0 NOT NULL;