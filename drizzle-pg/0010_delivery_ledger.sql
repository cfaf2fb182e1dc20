CREATE INDEX "delivery_history_job" ON "delivery_history" USING btree ("job_id");--> statement-breakpoint
CREATE INDEX "delivery_history_outcome" ON "delivery_history" USING btree ("outcome");