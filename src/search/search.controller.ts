import { Body, Controller, HttpCode, Post, Res, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOkResponse, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import type { Caller } from '../accounts/caller';
import { KeyOrPayment, PayingCaller, PaymentGuard } from '../billing/payments/payment.guard';
import { PaymentService } from '../billing/payments/payment.service';
import { QuotaService } from '../billing/quota.service';
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
export class SearchController {
  constructor(
    private readonly search: SearchService,
    private readonly quota: QuotaService,
    private readonly payments: PaymentService,
  ) {}

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
    @KeyOrPayment() caller: Caller | PayingCaller,
    @Res({ passthrough: true }) res: Response,
  ): Promise<SearchResponseDto> {
    const find = () => this.search.find(body);
    const answer =
      'payment' in caller
        ? await this.payments.settled(caller.payment, res, find)
        : await this.quota.metered(caller, res, find);
    setAnswerHeaders(res, answer);
    return { results: answer.facts };
  }
}

/** What a caller should know about the answer besides the facts, as response headers. */
export function setAnswerHeaders(res: Response, answer: FactAnswer): void {
  if (answer.modelCutoff) res.setHeader(MODEL_CUTOFF_HEADER, answer.modelCutoff);
  res.setHeader(MATCH_HEADER, answer.match);
}
