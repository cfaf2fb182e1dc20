ALTER TABLE "project_users" ADD COLUMN "sql_password_hash" text;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "sql_passwords" boolean DEFAULT false NOT NULL;