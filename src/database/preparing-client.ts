import { createHash } from 'node:crypto';
import { Client } from 'pg';

/** Named statements a connection keeps at most; later ones run unnamed. */
const MAX_NAMED = 256;

/**
 * A `pg` client that names each statement with parameters, so that its connection
 * parses and plans it once and then only binds and runs it, as the embedded store does.
 * Parsing and planning were a quarter of the server's CPU per search (the key check,
 * the quota count and the ranking statement are planned for each call otherwise).
 * PgBouncer before 1.21 cannot carry named statements in transaction mode: there
 * FRESHFACTS_DB_PREPARED_STATEMENTS=off.
 *
 * An adapter of the driver: pg's overloaded `query` is passed through untyped.
 */
export class PreparingClient extends Client {
  private readonly named = new Set<string>();

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(config: any, values?: any, callback?: any): any {
    if (typeof config !== 'string' || !Array.isArray(values) || values.length === 0 || callback) {
      // eslint-disable-next-line @typescript-eslint/no-unsafe-argument
      return super.query(config, values, callback);
    }
    const name = `ff_${createHash('sha1').update(config).digest('hex').slice(0, 20)}`;
    if (!this.named.has(name)) {
      if (this.named.size >= MAX_NAMED) return super.query(config, values);
      this.named.add(name);
    }
    return super.query({ name, text: config, values }).catch((err: { code?: string }) => {
      // A statement whose result columns changed under it (after a schema change)
      // cannot be re-planned by the server: it runs once more unnamed.
      if (err.code !== '0A000') throw err;
      this.named.delete(name);
      return super.query(config, values);
    });
  }
}
