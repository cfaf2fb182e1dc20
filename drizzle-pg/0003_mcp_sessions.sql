CREATE TABLE "mcp_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"last_seen" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX "mcp_sessions_last_seen" ON "mcp_sessions" USING btree ("last_seen");