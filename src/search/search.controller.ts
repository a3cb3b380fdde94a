import { Body, Controller, HttpCode, Post, UseGuards, UseInterceptors } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOkResponse, ApiResponse, ApiTags } from '@nestjs/swagger';
import { CallMeter, Meter, Metered, MeteredInterceptor } from '../billing/metering';
import { PaymentGuard } from '../billing/payments/payment.guard';
import { SearchRequestDto } from './search-request.dto';
import {
  ANSWER_HEADERS,
  MATCH_HEADER,
  MODEL_CUTOFF_HEADER,
  SearchResponseDto,
} from './search-response.dto';
import { FactAnswer, SearchService } from './search.service';

@ApiTags('search')
@ApiBearerAuth()
@Controller('v1/search')
@UseGuards(PaymentGuard)
@UseInterceptors(MeteredInterceptor)
export class SearchController {
  constructor(private readonly search: SearchService) {}

  /** Dated, sourced facts for one question, newest first or most relevant first. */
  @Post()
  @HttpCode(200)
  @ApiHeader({
    name: 'Payment-Authorization',
    required: false,
    description:
      'Pay per call without a key: "Payment <base64url JSON>" answering a 402 challenge ' +
      '(HTTP Payment scheme). Sent without Authorization.',
  })
  @ApiOkResponse({ type: SearchResponseDto, headers: ANSWER_HEADERS })
  @ApiResponse({ status: 401, description: 'Invalid or revoked API key.' })
  @ApiResponse({
    status: 402,
    description:
      'No Authorization header: a payment challenge (WWW-Authenticate: Payment …), or a ' +
      'refused payment credential (a fresh challenge); or the free-tier monthly limit is reached.',
  })
  @ApiResponse({ status: 422, description: 'Invalid body (problem+json with errors).' })
  async post(
    @Body() body: SearchRequestDto,
    @CallMeter() meter: Meter,
  ): Promise<Metered<SearchResponseDto>> {
    const answer = await meter.metered(() => this.search.find(body));
    return withAnswerHeaders(answer, { results: answer.value.facts });
  }
}

/**
 * The response to a metered answer: `body`, with the meter's headers and what a
 * caller should know about the answer besides the facts.
 */
export function withAnswerHeaders<T>(answer: Metered<FactAnswer>, body: T): Metered<T> {
  const { modelCutoff, match } = answer.value;
  return new Metered(body, {
    ...answer.headers,
    ...(modelCutoff && { [MODEL_CUTOFF_HEADER]: modelCutoff }),
    [MATCH_HEADER]: match,
  });
}
