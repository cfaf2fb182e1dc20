ALTER TABLE `auth_throttle` RENAME TO `limit_counters`;--> statement-breakpoint
DROP TABLE `rate_events`;--> statement-breakpoint
DROP INDEX `auth_throttle_expires`;--> statement-breakpoint
CREATE INDEX `limit_counters_expires` ON `limit_counters` (`expires_at`);