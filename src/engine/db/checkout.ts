// A connection taken out of a pg Pool for a while (a transaction, a held lock, a migration, a
// warehouse load): pg-pool removes its own 'error' listener while a client is checked out, so
// a connection the server ends then (pg_terminate_backend, a restart, a failover) would emit
// 'error' with nobody listening and end the process. Every checkout goes through here: it
// listens for the whole checkout, says so through `lost`, and destroys a connection that
// failed instead of handing it to the next caller. Metadata and warehouse pools both use it.
import type pg from 'pg';

export interface Checkout {
  readonly client: pg.PoolClient;
  /** Aborts, its reason the connection's error, when the connection is lost while held. */
  readonly lost: AbortSignal;
  /**
   * Gives the connection back (once; later calls do nothing). One that was lost, or that the
   * caller calls `broken` (a failed or cancelled statement, an open transaction), is destroyed.
   */
  release(broken?: Error | boolean): void;
}

/** Takes a connection of `pool`; `onLost` hears the first error it has while held. */
export async function checkout(pool: pg.Pool, onLost?: (err: Error) => void): Promise<Checkout> {
  const client = await pool.connect();
  const ctrl = new AbortController();
  // A terminated session errs twice (the server's 57P01, then the socket's end): both land here.
  const onError = (err: Error) => {
    if (ctrl.signal.aborted) return;
    ctrl.abort(err);
    onLost?.(err);
  };
  client.on('error', onError);
  let done = false;
  return {
    client,
    lost: ctrl.signal,
    release(broken) {
      if (done) return;
      done = true;
      // pg-pool puts its own listener back as it takes the client: nothing is left unheard.
      client.off('error', onError);
      client.release(ctrl.signal.aborted ? (ctrl.signal.reason as Error) : (broken ?? false));
    },
  };
}
