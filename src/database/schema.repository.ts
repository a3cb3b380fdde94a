import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** What the database says about itself: that it answers, and which migrations it has. */
@Injectable()
export class SchemaRepository {
  constructor(@Inject(DataSource) private readonly db: DataSource) {}

  /** Resolves once the database answers a trivial statement. */
  async ping(): Promise<void> {
    await this.db.query('SELECT 1');
  }

  /** Whether some migration of this version has not run yet. */
  hasPendingMigrations(): Promise<boolean> {
    return this.db.showMigrations();
  }

  /** The names of the migrations that have run, oldest first. */
  async appliedMigrations(): Promise<string[]> {
    const applied: { name: string }[] = await this.db.query(
      `SELECT name FROM migrations ORDER BY id`,
    );
    return applied.map((migration) => migration.name);
  }
}
