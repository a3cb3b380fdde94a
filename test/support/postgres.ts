import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';

/** The machine's PostgreSQL 15 (no pgvector), where `.ci/run` starts it. */
export const POSTGRES_URL =
  process.env.FRESHFACTS_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * A throw-away schema on the machine's PostgreSQL with the tables of `ddl`, reached
 * through a pool of `poolSize` connections; `drop` removes it all.
 */
export async function postgresSchema(
  name: string,
  ddl: string[],
  poolSize = 16,
): Promise<{ db: DataSource; drop: () => Promise<void> }> {
  const schema = `ff_${name}_${randomBytes(4).toString('hex')}`;
  const setup = await new DataSource({ type: 'postgres', url: POSTGRES_URL }).initialize();
  await setup.query(`CREATE SCHEMA ${schema}`);
  const db = await new DataSource({
    type: 'postgres',
    url: POSTGRES_URL,
    poolSize,
    extra: { options: `-c search_path=${schema}` },
  }).initialize();
  for (const statement of ddl) await db.query(statement);
  return {
    db,
    drop: async () => {
      await db.destroy();
      await setup.query(`DROP SCHEMA ${schema} CASCADE`);
      await setup.destroy();
    },
  };
}
