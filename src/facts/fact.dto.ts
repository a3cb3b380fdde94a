import { ApiProperty } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsString,
  IsUrl,
  Matches,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import { IsCalendarDay } from '../common/dates';

export const MAX_TEXT = 2000;
export const MAX_SOURCES = 100;

/** What counts as a source URL; ingest also uses it to drop the malformed ones. */
export const SOURCE_URL_RULE = {
  protocols: ['http', 'https'],
  require_protocol: true,
  require_tld: false,
};

/**
 * A fact as callers see it and as ingested lines must be shaped: exactly these four
 * fields. The same class validates ingest lines and documents responses in Swagger.
 */
export class FactDto {
  @ApiProperty({ description: 'A self-contained question that the fact answers.' })
  @IsString()
  @Matches(/\S/, { message: 'question must not be empty' })
  @MaxLength(MAX_TEXT)
  question!: string;

  @ApiProperty({ description: 'A terse answer to the question.' })
  @IsString()
  @Matches(/\S/, { message: 'answer must not be empty' })
  @MaxLength(MAX_TEXT)
  answer!: string;

  @ApiProperty({
    type: String,
    format: 'date',
    nullable: true,
    example: '2023-03-16',
    description: 'The day the fact was known true; null when the source gives no date.',
  })
  @ValidateIf((fact: FactDto) => fact.true_by !== null)
  @IsCalendarDay()
  true_by!: string | null;

  @ApiProperty({ type: [String], description: 'Upstream URLs the fact is drawn from.' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_SOURCES)
  @IsUrl(SOURCE_URL_RULE, { each: true, message: 'each source must be an http(s) URL' })
  sources!: string[];
}
