CREATE TABLE "dav_locks" (
	"token" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"root" text NOT NULL,
	"href" text NOT NULL,
	"depth" text NOT NULL,
	"scope" text NOT NULL,
	"owner" text NOT NULL,
	"principal" text NOT NULL,
	"timeout_seconds" integer NOT NULL,
	"expires" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "dav_locks" ADD CONSTRAINT "dav_locks_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "dav_locks_project" ON "dav_locks" USING btree ("project_id");