import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { DomainError } from '../../common/problem';
import { MeteredRequest } from '../metering';
import { QuotaGuard } from '../quota.guard';
import { bindingOf, CREDENTIAL_HEADER, PaymentChallenges } from './payment-challenges';
import { PaymentProblemError } from './payment-errors';
import { PaymentService } from './payment.service';

export class PaymentRequiredError extends DomainError {
  constructor() {
    super(
      'payment-required',
      'Payment required',
      'Send Authorization: Bearer <API_KEY> (keys are created in the dashboard or with ' +
        '`freshfacts keys create`), or pay for this call.',
    );
  }
}

/**
 * For a route that also takes per-call payment: a request with an Authorization header
 * is the quota guard's to admit and meter; one without gets 402 with a payment
 * challenge instead of 401, or is admitted when its Payment-Authorization credential
 * passes the stateless checks, and metered by that payment.
 */
@Injectable()
export class PaymentGuard implements CanActivate {
  constructor(
    private readonly quota: QuotaGuard,
    private readonly challenges: PaymentChallenges,
    private readonly payments: PaymentService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<MeteredRequest>();
    if (request.headers.authorization !== undefined) return this.quota.canActivate(context);
    if (!this.challenges.enabled) throw new PaymentRequiredError();
    // The challenge and the credential are bound to this request: route and body.
    const binding = bindingOf(request.method, request.path, request.body);
    const credential = request.get(CREDENTIAL_HEADER);
    try {
      if (credential === undefined) throw this.challenges.required(binding);
      request.meter = this.payments.meterFor(this.challenges.admit(credential, binding));
    } catch (err) {
      if (err instanceof PaymentProblemError) this.payments.refused(err);
      throw err;
    }
    return true;
  }
}
