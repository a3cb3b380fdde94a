import { Body, Controller, HttpCode, Post, UseGuards, UseInterceptors } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiResponse, ApiTags } from '@nestjs/swagger';
import { CallMeter, Meter, Metered, MeteredInterceptor } from '../billing/metering';
import { QuotaGuard } from '../billing/quota.guard';
import { ResearchRequestDto } from '../search/search-request.dto';
import { ANSWER_HEADERS, ResearchResponseDto } from '../search/search-response.dto';
import { withAnswerHeaders } from '../search/search.controller';
import { SearchService } from '../search/search.service';

@ApiTags('research')
@ApiBearerAuth()
@Controller('api/research')
@UseGuards(QuotaGuard)
@UseInterceptors(MeteredInterceptor)
export class ResearchController {
  constructor(private readonly search: SearchService) {}

  /** The older endpoint: the same engine, no date window, `research_guidance` key. */
  @Post()
  @HttpCode(200)
  @ApiOkResponse({ type: ResearchResponseDto, headers: ANSWER_HEADERS })
  @ApiResponse({ status: 401, description: 'Missing, invalid or revoked API key.' })
  @ApiResponse({ status: 402, description: 'The monthly free-tier limit is reached.' })
  @ApiResponse({ status: 422, description: 'Invalid body (problem+json with errors).' })
  async post(
    @Body() body: ResearchRequestDto,
    @CallMeter() meter: Meter,
  ): Promise<Metered<ResearchResponseDto>> {
    const answer = await meter.metered(() => this.search.find(body));
    return withAnswerHeaders(answer, { research_guidance: answer.value.facts });
  }
}
