ALTER TABLE `project_users` ADD `sql_password_hash` text;--> statement-breakpoint
ALTER TABLE `projects` ADD `sql_passwords` integer DEFAULT false NOT NULL;