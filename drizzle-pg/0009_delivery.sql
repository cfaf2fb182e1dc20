CREATE TABLE "delivery_history" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"object" text NOT NULL,
	"recipient" text NOT NULL,
	"outcome" text NOT NULL,
	"value" json,
	"message" text,
	"job_id" text,
	"time" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "delivery_state" (
	"project_id" text NOT NULL,
	"object" text NOT NULL,
	"recipient" text NOT NULL,
	"firing" boolean DEFAULT false NOT NULL,
	"last_value" json,
	"updated" text NOT NULL,
	CONSTRAINT "delivery_state_project_id_object_recipient_pk" PRIMARY KEY("project_id","object","recipient")
);
--> statement-breakpoint
ALTER TABLE "delivery_history" ADD CONSTRAINT "delivery_history_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "delivery_state" ADD CONSTRAINT "delivery_state_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "delivery_history_time" ON "delivery_history" USING btree ("project_id","object","time");