import { ApiProperty } from '@nestjs/swagger';
import type { CorpusStatus, SourceKindStatus } from './corpus.service';

export class SourceKindStatusDto implements SourceKindStatus {
  @ApiProperty({ example: 'wikidata', description: 'The kind given to `sources add --kind`.' })
  kind!: string;

  @ApiProperty({ example: 3, description: 'Sources of this kind registered now.' })
  sources!: number;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: '2026-11-25T04:30:12.000Z',
    description:
      'The latest run of one of these sources that did not fail (an unchanged source ' +
      'counts); null when none has succeeded.',
  })
  last_success_at!: string | null;
}

export class CorpusStatusDto implements CorpusStatus {
  @ApiProperty({ example: 6226, description: 'Facts in the store, dated or not.' })
  facts!: number;

  @ApiProperty({
    type: String,
    format: 'date',
    nullable: true,
    example: '2026-11-24',
    description: 'The newest `true_by` of any fact; null when no fact is dated.',
  })
  newest_true_by!: string | null;

  @ApiProperty({ type: [SourceKindStatusDto], description: 'Every source kind, in name order.' })
  sources!: SourceKindStatusDto[];
}
