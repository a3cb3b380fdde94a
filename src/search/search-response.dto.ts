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
