import { buildConfig } from '../config/config';
import { closeDataSource, openDataSource } from '../database/data-source';
import { SchemaRepository } from '../database/schema.repository';

/** Brings the database's schema up to date (as `serve` also does on start) and says where it is. */
export async function migrateCommand(): Promise<number> {
  const config = buildConfig(process.env);
  const dataSource = await openDataSource(config);
  try {
    const applied = await new SchemaRepository(dataSource).appliedMigrations();
    const where = config.databaseUrl ? 'the PostgreSQL server' : config.dataDir;
    console.log(`schema up to date on ${where}: ${applied.length} migrations (${applied.at(-1)})`);
  } finally {
    await closeDataSource(dataSource);
  }
  return 0;
}
