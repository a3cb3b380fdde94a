import { Client } from 'pg';
import { DatabaseSetupError } from './errors';

/** Runs one statement and answers its rows: a `pg` client's or a DataSource's query. */
export type Query = (sql: string, params?: unknown[]) => Promise<Record<string, unknown>[]>;

/** The oldest pgvector that has each feature the schema and the ranking statement use. */
export const PGVECTOR_FEATURES: { version: string; features: string }[] = [
  { version: '0.8.0', features: 'iterative index scans, hnsw.max_scan_tuples' },
  { version: '0.7.0', features: 'binary_quantize' },
];
export const PGVECTOR_NEEDED = PGVECTOR_FEATURES[0].version;

/** pg_advisory_xact_lock key of the role's settings ("ffsets" in ASCII). */
const SETTINGS_LOCK = 0x666673657473;

const PGVECTOR_HELP =
  'The database has no pgvector extension. Install it on the server (Debian/Ubuntu: ' +
  'apt install postgresql-<version>-pgvector; or run the pgvector/pgvector image, as ' +
  'docker-compose.yml does), then start freshfacts again; it runs CREATE EXTENSION itself.';

/**
 * Makes sure the database has pgvector, new enough, creating the extension when the
 * server has the package; otherwise refuses with what an operator must do.
 */
export async function requirePgvector(query: Query): Promise<void> {
  const [row] = await query(
    `SELECT default_version, installed_version, current_database() AS db, current_user AS role
     FROM pg_available_extensions WHERE name = 'vector'`,
  );
  if (!row) throw new DatabaseSetupError(PGVECTOR_HELP);
  const { default_version: available, db, role } = row as Record<string, string>;
  let installed = row.installed_version as string | null;
  if (!installed) {
    if (older(available, PGVECTOR_NEEDED)) throw new DatabaseSetupError(tooOld(available, null));
    await createExtension(query, db, role);
    installed = available;
  }
  if (older(installed, PGVECTOR_NEEDED)) throw new DatabaseSetupError(tooOld(available, installed));
}

async function createExtension(query: Query, db: string, role: string): Promise<void> {
  try {
    await query(`CREATE EXTENSION IF NOT EXISTS vector`);
  } catch (err) {
    if ((err as { code?: unknown }).code !== '42501') throw err;
    throw new DatabaseSetupError(
      `The role "${role}" may not create the pgvector extension in the database "${db}" ` +
        `(only a superuser may). A superuser must run this once, in that database:\n` +
        `  CREATE EXTENSION vector;\n` +
        `e.g. psql -U postgres -d ${db} -c 'CREATE EXTENSION vector'; then start freshfacts again.`,
    );
  }
}

function tooOld(available: string, installed: string | null): string {
  const uses = PGVECTOR_FEATURES.map((f) => `${f.features} (${f.version})`).join(', ');
  const what = installed
    ? `The database's pgvector extension is version ${installed}` +
      (available !== installed ? ` (the server has ${available})` : '')
    : `The server's pgvector is version ${available}`;
  const remedy = older(available, PGVECTOR_NEEDED)
    ? `Upgrade the server's pgvector package to ${PGVECTOR_NEEDED} or newer, then run ` +
      `ALTER EXTENSION vector UPDATE in the database.`
    : `Run ALTER EXTENSION vector UPDATE in the database (as its owner or a superuser).`;
  return `${what}; freshfacts needs ${PGVECTOR_NEEDED} or newer for ${uses}. ${remedy}`;
}

/** Whether version `a` is older than `b`, both dotted numbers such as 0.7.4. */
export function older(a: string, b: string): boolean {
  const [x, y] = [a, b].map((v) =>
    v
      .split(/[^0-9]+/)
      .filter(Boolean)
      .map(Number),
  );
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) < (y[i] ?? 0);
  }
  return false;
}

/**
 * Records `settings` as this role's defaults in this database, so that every session
 * the server starts for it has them: the service's own connections, those PgBouncer
 * opens in transaction mode (which refuses them as a startup parameter, and where a
 * SET would hold on whichever server connection ran it), those of streaming replicas
 * (the defaults are in the replicated catalog), and psql sessions that reproduce a
 * query. This session gets them too. Connections opened earlier keep what they had.
 */
export async function applyRoleSettings(
  query: Query,
  settings: Record<string, string>,
): Promise<void> {
  // pgvector's settings are defined once its library is loaded; before that, only a
  // superuser may record them.
  await query(`SELECT vector_dims('[1]'::vector)`);
  await query('BEGIN');
  try {
    // Replicas starting together would otherwise update the same catalog row at once.
    await query(`SELECT pg_advisory_xact_lock($1)`, [SETTINGS_LOCK]);
    const [{ current }] = await query(
      `SELECT coalesce((SELECT s.setconfig FROM pg_db_role_setting s
                        JOIN pg_database d ON d.oid = s.setdatabase
                        WHERE d.datname = current_database()
                          AND s.setrole = (SELECT oid FROM pg_roles WHERE rolname = current_user)),
                       '{}') AS current`,
    );
    const recorded = new Set(current as string[]);
    for (const [name, value] of Object.entries(settings)) {
      if (!recorded.has(`${name}=${value}`)) {
        const [{ sql }] = await query(
          `SELECT format('ALTER ROLE %I IN DATABASE %I SET %s = %L',
                         current_user, current_database(), $1::text, $2::text) AS sql`,
          [name, value],
        );
        await query(sql as string);
      }
      await query(`SELECT set_config($1, $2, false)`, [name, value]);
    }
    await query('COMMIT');
  } catch (err) {
    await query('ROLLBACK');
    throw err;
  }
}

/**
 * Before the pool opens: pgvector checked (and created), the session settings
 * recorded, on a connection of its own.
 */
export async function prepareServer(
  url: string,
  settings: Record<string, string>,
  connectTimeoutMs: number,
): Promise<void> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: connectTimeoutMs });
  await client.connect();
  try {
    const query: Query = async (sql, params) =>
      (await client.query<Record<string, unknown>>(sql, params)).rows;
    await requirePgvector(query);
    await applyRoleSettings(query, settings);
  } finally {
    await client.end();
  }
}
