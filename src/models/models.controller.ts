import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiProperty, ApiTags } from '@nestjs/swagger';
import { ModelCutoffs } from './model-cutoffs';

class ModelCutoffDto {
  @ApiProperty({ example: 'openai/gpt-4o' }) id!: string;
  @ApiProperty({ format: 'date', example: '2023-10-01' }) cutoff!: string;
  @ApiProperty({ enum: ['day', 'month', 'year'] }) cutoff_precision!: string;
  @ApiProperty({ description: 'Public page that states the cutoff.' }) source!: string;
  @ApiProperty({ required: false, example: '2024-01' }) reliable_knowledge_cutoff?: string;
}

class ModelListDto {
  @ApiProperty({ type: [ModelCutoffDto] }) models!: ModelCutoffDto[];
}

@ApiTags('models')
@Controller('v1/models')
export class ModelsController {
  constructor(private readonly cutoffs: ModelCutoffs) {}

  /** The model ids `model_id` understands, with their training cutoffs. */
  @Get()
  @ApiOkResponse({ type: ModelListDto })
  list(): ModelListDto {
    return { models: this.cutoffs.list() };
  }
}
