import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import type { IngestSummary } from '../facts/ingest.service';
import type { FactRecord } from '../facts/retractions.service';

export class PushQueryDto {
  @ApiPropertyOptional({
    enum: ['true', 'false'],
    description: 'true: refuse the whole push (422) if any line is bad.',
  })
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'strict must be true or false' })
  strict?: string;
}

class RejectedLineDto {
  @ApiProperty({ description: 'Line of the JSON Lines body, or position (from 1) in the array.' })
  line!: number;
  @ApiProperty({ type: [String] }) errors!: string[];
}

export class PushSummaryDto {
  @ApiProperty({ description: 'New facts stored.' }) added!: number;
  @ApiProperty({ description: 'Facts already stored (or repeated in the push): sources merged.' })
  merged!: number;
  @ApiProperty({ description: 'Facts skipped because they are retracted.' }) retracted!: number;
  @ApiProperty({ type: [RejectedLineDto], description: 'Bad lines, skipped.' })
  rejected!: RejectedLineDto[];
  @ApiProperty({ description: 'Malformed source URLs dropped from facts kept for their others.' })
  dropped_sources!: number;

  static of(summary: IngestSummary): PushSummaryDto {
    return {
      added: summary.added,
      merged: summary.merged,
      retracted: summary.retracted,
      rejected: summary.rejected,
      dropped_sources: summary.droppedSources,
    };
  }
}

export class RetractDto {
  @ApiProperty({
    description: 'Why the fact is taken back (kept with it and in the audit trail).',
    example: 'extraction error: wrong club',
    maxLength: 500,
  })
  @IsString()
  @Matches(/\S/, { message: 'reason must not be empty' })
  @MaxLength(500)
  reason!: string;
}

export class FindFactsQueryDto {
  @ApiProperty({
    description: 'Words the question contains (case-insensitive).',
    example: 'Catania',
  })
  @IsString()
  @Matches(/\S/, { message: 'q must not be empty' })
  @MaxLength(2000)
  q!: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 1000, default: 20 })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit must be an integer' })
  @Min(1)
  @Max(1000)
  limit?: number;

  @ApiPropertyOptional({ enum: ['live', 'retracted', 'all'], default: 'all' })
  @IsOptional()
  @IsIn(['live', 'retracted', 'all'], { message: 'state must be live, retracted or all' })
  state?: 'live' | 'retracted' | 'all';
}

class FactOriginDto {
  @ApiProperty({ description: 'file:///… of a facts file, a source URL, or admin:push.' })
  origin!: string;
  @ApiProperty() kind!: string;
  @ApiProperty({ nullable: true, type: String }) source_id!: string | null;
  @ApiProperty({ description: 'False when the source has been removed since.' })
  source_active!: boolean;
  @ApiProperty({ format: 'date-time' }) first_at!: string;
  @ApiProperty({ format: 'date-time' }) last_at!: string;
}

class RetractionDto {
  @ApiProperty() reason!: string;
  @ApiProperty({ format: 'date-time' }) retracted_at!: string;
  @ApiProperty({ description: 'The admin credential id (or cli), never the secret.' })
  retracted_by!: string;
}

export class AdminFactDto {
  @ApiProperty() id!: string;
  @ApiProperty() question!: string;
  @ApiProperty() answer!: string;
  @ApiProperty({ format: 'date', nullable: true, type: String }) true_by!: string | null;
  @ApiProperty({ type: [String] }) sources!: string[];
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
  @ApiProperty({ type: [FactOriginDto] }) origins!: FactOriginDto[];
  @ApiProperty({ type: RetractionDto, nullable: true, description: 'Null while the fact is live.' })
  retraction!: RetractionDto | null;

  static of(fact: FactRecord): AdminFactDto {
    return {
      id: fact.id,
      question: fact.question,
      answer: fact.answer,
      true_by: fact.true_by,
      sources: fact.sources,
      created_at: fact.created_at.toISOString(),
      updated_at: fact.updated_at.toISOString(),
      origins: (fact.origins ?? []).map((origin) => ({
        ...origin,
        first_at: origin.first_at.toISOString(),
        last_at: origin.last_at.toISOString(),
      })),
      retraction: fact.retraction && {
        reason: fact.retraction.reason,
        retracted_at: fact.retraction.retracted_at.toISOString(),
        retracted_by: fact.retraction.retracted_by,
      },
    };
  }
}
