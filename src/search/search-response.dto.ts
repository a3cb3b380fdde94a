import { ApiProperty } from '@nestjs/swagger';
import { FactDto } from '../facts/fact.dto';

export class SearchResponseDto {
  @ApiProperty({
    type: [FactDto],
    description: 'At most k facts; never empty while any fact is in the date window.',
  })
  results!: FactDto[];
}

export class ResearchResponseDto {
  @ApiProperty({ type: [FactDto] })
  research_guidance!: FactDto[];
}

export const MODEL_CUTOFF_HEADER = 'Freshfacts-Model-Cutoff';
/** `close` or `nearest`: whether the facts match the question or are only the nearest. */
export const MATCH_HEADER = 'Freshfacts-Match';

/** The response headers both endpoints document in Swagger. */
export const ANSWER_HEADERS = {
  [MATCH_HEADER]: {
    description:
      '`close` when the facts match the question closely; `nearest` when none did and the ' +
      'nearest facts were returned instead (the list is never empty while any fact satisfies ' +
      'the date bounds), so a caller can tell an answer from a guess.',
    schema: { type: 'string', enum: ['close', 'nearest'] },
  },
  [MODEL_CUTOFF_HEADER]: {
    description:
      'With model_id: the training cutoff that set the date floor, or `unknown` (no floor).',
    schema: { type: 'string' },
  },
};
