CREATE INDEX `delivery_history_job` ON `delivery_history` (`job_id`);--> statement-breakpoint
CREATE INDEX `delivery_history_outcome` ON `delivery_history` (`outcome`);