import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** One admin write, as the audit trail keeps it. */
export interface AdminEvent {
  id: string;
  at: Date;
  /** What was done, e.g. `fact.retract`, `key.create`. */
  action: string;
  /** What it was done to: an email, a key or fact id, a source URL. */
  target: string;
  /** The admin credential's id (never the secret), or `cli` for the offline command line. */
  actor: string;
  detail: Record<string, unknown>;
}

export type NewAdminEvent = Omit<AdminEvent, 'id' | 'at'>;

/** The only code that speaks SQL to `admin_events`. */
@Injectable()
export class AuditRepository {
  constructor(private readonly db: DataSource) {}

  async record(event: NewAdminEvent): Promise<void> {
    await this.db.query(
      `INSERT INTO admin_events (action, target, actor, detail) VALUES ($1, $2, $3, $4::jsonb)`,
      [event.action, event.target, event.actor, JSON.stringify(event.detail)],
    );
  }

  /** Newest first: at most `limit` events older than the event `before` (or the newest). */
  page(limit: number, before?: string): Promise<AdminEvent[]> {
    return this.db.query<AdminEvent[]>(
      `SELECT id::text, at, action, target, actor, detail FROM admin_events
       WHERE $1::bigint IS NULL OR id < $1::bigint ORDER BY id DESC LIMIT $2`,
      [before ?? null, limit],
    );
  }
}
