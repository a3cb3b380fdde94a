import { Controller, Headers, HttpCode, Post, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request } from 'express';
import { StripeBillingService } from './stripe-billing.service';

/** Where Stripe delivers subscription events (its body arrives raw: see src/app.ts). */
@ApiExcludeController()
@Controller('webhooks/stripe')
export class StripeWebhookController {
  constructor(private readonly billing: StripeBillingService) {}

  @Post()
  @HttpCode(200)
  async receive(
    @Req() request: Request,
    @Headers('stripe-signature') signature: string | undefined,
  ): Promise<{ received: true; applied: boolean }> {
    const { applied } = await this.billing.handleWebhook(request.body, signature);
    return { received: true, applied };
  }
}
