import { Controller, Get, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiKeyGuard } from '../auth/api-key.guard';
import { CorpusStatusDto } from './corpus-status.dto';
import { CorpusService } from './corpus.service';

@ApiTags('corpus')
@ApiBearerAuth()
@Controller('v1/corpus')
@UseGuards(ApiKeyGuard)
export class CorpusController {
  constructor(private readonly corpus: CorpusService) {}

  /**
   * How fresh the store is: facts, the newest `true_by`, each source kind's last
   * successful run. Needs a key but is not counted against the monthly quota.
   */
  @Get()
  @ApiOkResponse({ type: CorpusStatusDto })
  @ApiResponse({ status: 401, description: 'Missing, invalid or revoked API key.' })
  status(): Promise<CorpusStatusDto> {
    return this.corpus.status();
  }
}
