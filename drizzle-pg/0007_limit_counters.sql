ALTER TABLE "rate_events" DISABLE ROW LEVEL SECURITY;--> statement-breakpoint
DROP TABLE "rate_events" CASCADE;--> statement-breakpoint
ALTER TABLE "auth_throttle" RENAME TO "limit_counters";--> statement-breakpoint
DROP INDEX "auth_throttle_expires";--> statement-breakpoint
CREATE INDEX "limit_counters_expires" ON "limit_counters" USING btree ("expires_at");