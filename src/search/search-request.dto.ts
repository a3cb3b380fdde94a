import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsBoolean,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidationArguments,
  ValidateBy,
} from 'class-validator';
import type { ResearchRequest, SearchRequest } from '../client/freshfacts-client';
import { IsInstant, parseInstant } from '../common/dates';

export const MAX_QUERY = 2000;

/** The body of POST /api/research; the client's type of it must agree. */
export class ResearchRequestDto implements ResearchRequest {
  @ApiProperty({
    description: 'One focused question about one topic.',
    example: 'Who was the head coach of the team Helsingin Jalkapalloklubi?',
    maxLength: MAX_QUERY,
  })
  @IsString()
  @Matches(/\S/, { message: 'query must not be empty' })
  @MaxLength(MAX_QUERY)
  query!: string;

  @ApiPropertyOptional({
    description:
      'Your model as <vendor>/<model_name> (see GET /v1/models), or as its vendor, a routing ' +
      'service or a gateway names it (claude-sonnet-4-5-20250929, anthropic/claude-sonnet-4-5:thinking, ' +
      'us.anthropic.claude-sonnet-4-5-20250929-v1:0, vertex_ai/gemini-2.5-pro). Only facts dated after its ' +
      'training cutoff are returned; an unknown id applies no floor.',
    example: 'openai/gpt-4o',
  })
  @IsOptional()
  @IsString()
  @Matches(/\S/, { message: 'model_id must not be empty' })
  @MaxLength(200)
  model_id?: string;

  @ApiPropertyOptional({
    description: 'Number of facts, clamped to 10..100.',
    default: 20,
    type: 'integer',
  })
  @IsOptional()
  @IsCount()
  k?: number;

  @ApiPropertyOptional({
    description: 'true: newest true_by first. false: most relevant first.',
    default: true,
  })
  @IsOptional()
  @IsBoolean({ message: 'timeline must be true or false' })
  timeline?: boolean;
}

/** The body of POST /v1/search: the research parameters and a date window. */
export class SearchRequestDto extends ResearchRequestDto implements SearchRequest {
  @ApiPropertyOptional({
    description: 'Only facts with true_by on or after this day (UTC). Replaces the model floor.',
    example: '2023-01-01',
  })
  @IsOptional()
  @IsInstant()
  true_by_min?: string;

  @ApiPropertyOptional({
    description: 'Only facts with true_by on or before this day (UTC). Must be after true_by_min.',
    example: '2023-06-30T23:59:59Z',
  })
  @IsOptional()
  @IsInstant()
  @IsAfterField('true_by_min')
  true_by_max?: string;
}

/**
 * An integer. A literal beyond the range of a double parses as ±Infinity: an integer
 * still, only too large for any clamp, so it is taken (k is never refused for its size).
 */
function IsCount() {
  return ValidateBy({
    name: 'isCount',
    validator: {
      validate: (value: unknown) =>
        Number.isInteger(value) || value === Infinity || value === -Infinity,
      defaultMessage: (args?: ValidationArguments) =>
        `${args?.property ?? 'value'} must be an integer`,
    },
  });
}

function IsAfterField(other: string) {
  return ValidateBy({
    name: 'isAfterField',
    constraints: [other],
    validator: {
      validate(value: unknown, args: ValidationArguments) {
        const low = parseInstant((args.object as Record<string, unknown>)[other]);
        const high = parseInstant(value);
        return !low || !high || high.getTime() > low.getTime();
      },
      defaultMessage: (args?: ValidationArguments) =>
        `${args?.property ?? 'value'} must be later than ${other}`,
    },
  });
}
