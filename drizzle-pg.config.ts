// drizzle-kit config for the PostgreSQL migrations (`npm run db:generate:pg`); the SQLite
// ones are drizzle.config.ts's. Both schemas describe the same tables (test/db-schema-parity).
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: './src/engine/db/schema-pg.ts',
  out: './drizzle-pg',
});
