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

/**
 * Whether the machine's PostgreSQL has the pgvector package (a fresh machine has not;
 * the stories that need it then say so and pass).
 */
export async function hasPgvector(): Promise<boolean> {
  const probe = new DataSource({ type: 'postgres', url: POSTGRES_URL });
  await probe.initialize();
  try {
    const rows = await probe.query<unknown[]>(
      `SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`,
    );
    return rows.length > 0;
  } finally {
    await probe.destroy();
  }
}

/** A new empty database on the machine's PostgreSQL, reached as `role` (default: the admin). */
export async function freshDatabase(
  name: string,
  owner?: string,
): Promise<{
  name: string;
  url: (role?: string) => string;
  admin: DataSource;
  drop: () => Promise<void>;
}> {
  const db = `ff_${name}_${randomBytes(4).toString('hex')}`;
  const setup = await new DataSource({ type: 'postgres', url: POSTGRES_URL }).initialize();
  await setup.query(`CREATE DATABASE ${db}${owner ? ` OWNER ${owner}` : ''}`);
  const url = (role?: string) => {
    const u = new URL(POSTGRES_URL);
    u.pathname = `/${db}`;
    if (role) u.username = role;
    return u.toString();
  };
  const admin = await new DataSource({ type: 'postgres', url: url() }).initialize();
  return {
    name: db,
    url,
    admin,
    drop: async () => {
      await admin.destroy();
      await setup.query(`DROP DATABASE ${db} WITH (FORCE)`);
      await setup.destroy();
    },
  };
}
