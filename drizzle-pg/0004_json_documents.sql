ALTER TABLE "activity" ALTER COLUMN "detail" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "ai_messages" ALTER COLUMN "answer" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "datasets" ALTER COLUMN "prescription" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "jobs" ALTER COLUMN "params" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "jobs" ALTER COLUMN "result" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "jobs" ALTER COLUMN "progress" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "object_revisions" ALTER COLUMN "snapshot" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "objects" ALTER COLUMN "def" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "objects" ALTER COLUMN "acl" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "objects" ALTER COLUMN "acl" SET DEFAULT '[]'::json;--> statement-breakpoint
ALTER TABLE "objects" ALTER COLUMN "tags" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "objects" ALTER COLUMN "tags" SET DEFAULT '[]'::json;--> statement-breakpoint
ALTER TABLE "oidc_models" ALTER COLUMN "payload" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "prescriptions" ALTER COLUMN "prescription" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "project_users" ALTER COLUMN "roles" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "project_users" ALTER COLUMN "roles" SET DEFAULT '[]'::json;--> statement-breakpoint
ALTER TABLE "project_users" ALTER COLUMN "filter_by_title" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "projects" ALTER COLUMN "announcement" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "projects" ALTER COLUMN "embed_origins" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "shares" ALTER COLUMN "users" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "shares" ALTER COLUMN "users" SET DEFAULT '[]'::json;--> statement-breakpoint
ALTER TABLE "shares" ALTER COLUMN "pinned" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "trigger_state" ALTER COLUMN "state" SET DATA TYPE json;