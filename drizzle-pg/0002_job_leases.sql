ALTER TABLE "jobs" ADD COLUMN "owner" text;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "lease_until" bigint;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "cancel_requested" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "attempts" integer DEFAULT 0 NOT NULL;