import { CanActivate, createParamDecorator, ExecutionContext, Injectable } from '@nestjs/common';
import type { Caller } from '../../accounts/caller';
import { ApiKeyGuard, CallerRequest } from '../../auth/api-key.guard';
import { ProblemError } from '../../common/problem';
import {
  AdmittedPayment,
  bindingOf,
  CREDENTIAL_HEADER,
  PaymentChallenges,
} from './payment-challenges';
import { PaymentProblemError } from './payment-errors';
import { PaymentService } from './payment.service';

export class PaymentRequiredError extends ProblemError {
  constructor() {
    super(
      402,
      'payment-required',
      'Payment required',
      'Send Authorization: Bearer <API_KEY> (keys are created in the dashboard or with ' +
        '`freshfacts keys create`), or pay for this call.',
    );
  }
}

/** A caller without an account, paying for this one call. */
export interface PayingCaller {
  payment: AdmittedPayment;
}

type PayingRequest = CallerRequest & { payment?: AdmittedPayment };

/**
 * For a route that also takes per-call payment: a request with an Authorization header
 * is the API key guard's to admit; one without gets 402 with a payment challenge
 * instead of 401, or is admitted when its Payment-Authorization credential passes the
 * stateless checks.
 */
@Injectable()
export class PaymentGuard implements CanActivate {
  constructor(
    private readonly keys: ApiKeyGuard,
    private readonly challenges: PaymentChallenges,
    private readonly payments: PaymentService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<PayingRequest>();
    if (request.headers.authorization !== undefined) return this.keys.canActivate(context);
    if (!this.challenges.enabled) throw new PaymentRequiredError();
    // The challenge and the credential are bound to this request: route and body.
    const binding = bindingOf(request.method, request.path, request.body);
    const credential = request.get(CREDENTIAL_HEADER);
    try {
      if (credential === undefined) throw this.challenges.required(binding);
      request.payment = this.challenges.admit(credential, binding);
    } catch (err) {
      if (err instanceof PaymentProblemError) this.payments.refused(err);
      throw err;
    }
    return true;
  }
}

/** The key's account, or the payment, that the PaymentGuard admitted. */
export const KeyOrPayment = createParamDecorator(
  (_: unknown, context: ExecutionContext): Caller | PayingCaller => {
    const request = context.switchToHttp().getRequest<PayingRequest>();
    if (request.payment) return { payment: request.payment };
    if (!request.caller) throw new Error('the caller is read on a route without PaymentGuard');
    return request.caller;
  },
);
