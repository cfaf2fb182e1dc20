CREATE TABLE "dataset_versions" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"cluster" text NOT NULL,
	"file" text NOT NULL,
	"rows" bigint NOT NULL,
	"created" text NOT NULL,
	"state" text NOT NULL,
	"published" text,
	"superseded" text,
	"last_read" text
);
--> statement-breakpoint
CREATE TABLE "project_write_locks" (
	"project_id" text PRIMARY KEY NOT NULL,
	"holder" text NOT NULL,
	"lease_until" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "dataset_versions" ADD CONSTRAINT "dataset_versions_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_write_locks" ADD CONSTRAINT "project_write_locks_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "dataset_versions_project" ON "dataset_versions" USING btree ("project_id","state","cluster");