import { buildConfig } from '../config/config';
import { closeDataSource, openDataSource } from '../database/data-source';

/** Brings the database's schema up to date (as `serve` also does on start) and says where it is. */
export async function migrateCommand(): Promise<number> {
  const config = buildConfig(process.env);
  const dataSource = await openDataSource(config);
  try {
    const applied: { name: string }[] = await dataSource.query(
      `SELECT name FROM migrations ORDER BY id`,
    );
    const where = config.databaseUrl ? 'the PostgreSQL server' : config.dataDir;
    console.log(
      `schema up to date on ${where}: ${applied.length} migrations (${applied.at(-1)?.name})`,
    );
  } finally {
    await closeDataSource(dataSource);
  }
  return 0;
}
