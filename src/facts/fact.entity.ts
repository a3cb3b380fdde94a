import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A stored fact. The `search_text` (tsvector) and `embedding` (vector) columns are
 * written and read only by the SQL of the facts repositories, so they are not mapped here.
 */
@Entity('facts')
export class Fact {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column('text')
  question!: string;

  @Column('text')
  answer!: string;

  @Column({ name: 'true_by', type: 'date', nullable: true })
  trueBy!: string | null;

  @Column('text', { array: true })
  sources!: string[];

  @Column({ name: 'dedup_key', type: 'char', length: 64 })
  dedupKey!: string;
}
