import { Body, Controller, HttpCode, Post, Res, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import type { Caller } from '../accounts/caller';
import { ApiKeyGuard, CallerAccount } from '../auth/api-key.guard';
import { QuotaService } from '../billing/quota.service';
import { ResearchRequestDto } from '../search/search-request.dto';
import { ANSWER_HEADERS, ResearchResponseDto } from '../search/search-response.dto';
import { setAnswerHeaders } from '../search/search.controller';
import { SearchService } from '../search/search.service';

@ApiTags('research')
@ApiBearerAuth()
@Controller('api/research')
@UseGuards(ApiKeyGuard)
export class ResearchController {
  constructor(
    private readonly search: SearchService,
    private readonly quota: QuotaService,
  ) {}

  /** The older endpoint: the same engine, no date window, `research_guidance` key. */
  @Post()
  @HttpCode(200)
  @ApiOkResponse({ type: ResearchResponseDto, headers: ANSWER_HEADERS })
  @ApiResponse({ status: 401, description: 'Missing, invalid or revoked API key.' })
  @ApiResponse({ status: 402, description: 'The monthly free-tier limit is reached.' })
  @ApiResponse({ status: 422, description: 'Invalid body (problem+json with errors).' })
  async post(
    @Body() body: ResearchRequestDto,
    @CallerAccount() caller: Caller,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ResearchResponseDto> {
    const answer = await this.quota.metered(caller, res, () => this.search.find(body));
    setAnswerHeaders(res, answer);
    return { research_guidance: answer.facts };
  }
}
