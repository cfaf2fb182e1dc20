// MCP sessions as every process of a cluster sees them: the session's id and its user. The
// process that opened a session keeps its transport (notification stream, progress); any other
// process serves the session's requests statelessly after checking it here, so a load balancer
// needs no session affinity.
import { and, asc, eq, inArray, lt } from 'drizzle-orm';
import { type Db, first, tx, tablesOf } from '../db/index.js';
import { nowIso } from '../ids.js';

/** A session unused this long is over (its transport closed, its row deleted). */
export const MCP_SESSION_IDLE_MS = 30 * 60_000;

/** How often a session's last use is written (a request per second must not be a write). */
const TOUCH_EVERY_MS = 60_000;

export class McpSessions {
  private touched = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly idleMs: number,
  ) {}

  /**
   * Records a new session of `email`; when they hold `max` already (through any process), their
   * least recently used ones end to make room. Returns the ids ended.
   */
  async open(id: string, email: string, max = Infinity): Promise<string[]> {
    const { mcpSessions } = tablesOf(this.db);
    const ended = await tx(
      this.db,
      async () => {
        const mine = await this.db
          .select({ id: mcpSessions.id })
          .from(mcpSessions)
          .where(eq(mcpSessions.email, email))
          .orderBy(asc(mcpSessions.lastSeen), asc(mcpSessions.id));
        const over = mine.slice(0, Math.max(0, mine.length - max + 1)).map((r) => r.id);
        if (over.length) await this.db.delete(mcpSessions).where(inArray(mcpSessions.id, over));
        await this.db.insert(mcpSessions).values({ id, email, lastSeen: nowIso() });
        return over;
      },
      // Two processes opening sessions of one user at once count each other's.
      { lock: [`ursa:mcp-sessions:${email}`] },
    );
    for (const e of ended) this.touched.delete(e);
    this.touched.set(id, Date.now());
    return ended;
  }

  /** When the session was last used through any process (ms), or undefined when it is gone. */
  async lastSeen(id: string): Promise<number | undefined> {
    const { mcpSessions } = tablesOf(this.db);
    const row = await this.db
      .select({ lastSeen: mcpSessions.lastSeen })
      .from(mcpSessions)
      .where(eq(mcpSessions.id, id))
      .then(first);
    return row ? Date.parse(row.lastSeen) : undefined;
  }

  /** The user of a live session, or undefined (unknown, ended or idle too long). */
  async userOf(id: string): Promise<string | undefined> {
    const { mcpSessions } = tablesOf(this.db);
    const row = await this.db.select().from(mcpSessions).where(eq(mcpSessions.id, id)).then(first);
    if (!row) return undefined;
    if (Date.parse(row.lastSeen) < Date.now() - this.idleMs) {
      await this.close(id);
      return undefined;
    }
    return row.email;
  }

  /**
   * Notes a request of the session (written at most once a minute per process); false when
   * the write found it ended (by another process): the caller drops its transport.
   */
  async touch(id: string): Promise<boolean> {
    const { mcpSessions } = tablesOf(this.db);
    const now = Date.now();
    if (now - (this.touched.get(id) ?? 0) < TOUCH_EVERY_MS) return true;
    this.touched.set(id, now);
    const rows = await this.db
      .update(mcpSessions)
      .set({ lastSeen: nowIso() })
      .where(eq(mcpSessions.id, id))
      .returning({ id: mcpSessions.id });
    return rows.length > 0;
  }

  async close(id: string): Promise<void> {
    const { mcpSessions } = tablesOf(this.db);
    this.touched.delete(id);
    await this.db.delete(mcpSessions).where(eq(mcpSessions.id, id));
  }

  /** Forgets sessions idle longer than the limit (whichever process opened them). */
  async sweep(): Promise<void> {
    const { mcpSessions } = tablesOf(this.db);
    const before = new Date(Date.now() - this.idleMs).toISOString();
    await this.db.delete(mcpSessions).where(and(lt(mcpSessions.lastSeen, before)));
    for (const [id, t] of this.touched) if (t < Date.now() - this.idleMs) this.touched.delete(id);
  }
}
