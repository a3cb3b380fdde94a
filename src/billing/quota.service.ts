import { Inject, Injectable } from '@nestjs/common';
import type { Caller } from '../accounts/caller';
import { PLANS } from '../accounts/plans';
import { DomainError } from '../common/problem';
import { AppConfig, CONFIG } from '../config/config';
import { MetricsService } from '../metrics/metrics.service';
import { Clock, monthOf, secondsToNextMonth } from './clock';
import { AnswerHeaders, Meter, Metered } from './metering';
import { UsageRepository } from './usage.repository';

export class QuotaExceededError extends DomainError {
  constructor(limit: number, month: string, billingUrl: string, headers: Record<string, string>) {
    super(
      'quota-exceeded',
      'Monthly call limit reached',
      `The free plan includes ${limit.toLocaleString('en-US')} calls per calendar month (UTC) and ` +
        `those of ${month.slice(0, 7)} are used; the count starts again on the 1st. ` +
        `Upgrade the plan at ${billingUrl} to continue now.`,
      { limit, billing_url: billingUrl },
      headers,
    );
  }
}

const POLICY = '"monthly"';

/**
 * Meters calls against the caller's plan. A capped call is counted before it runs, in
 * one atomic step against the limit, and given back if it does not end in an answer,
 * so only answered calls count and concurrent calls can never pass the limit. An
 * uncapped call has no limit to decide before it runs: it is counted while it runs,
 * and answered only once both are done, so it still counts exactly when it is
 * answered (and not when its count or the call fails).
 */
@Injectable()
export class QuotaService {
  constructor(
    private readonly usage: UsageRepository,
    private readonly clock: Clock,
    @Inject(CONFIG) private readonly config: AppConfig,
    private readonly metrics: MetricsService,
  ) {}

  /** The meter of `caller`'s calls: the monthly quota of its plan. */
  meterFor(caller: Caller): Meter {
    return new QuotaMeter(this, caller);
  }

  /**
   * Runs `call` as `caller`'s quota allows; a capped plan's RateLimit headers are
   * passed to `counted` once the call is counted, and answered with the value.
   */
  async metered<T>(
    caller: Caller,
    call: () => Promise<T>,
    counted: (headers: AnswerHeaders) => void = () => undefined,
  ): Promise<Metered<T>> {
    const now = this.clock.now();
    const [month, day] = [monthOf(now), now.toISOString().slice(0, 10)];
    const limit = PLANS[caller.plan].monthlyCalls;
    if (limit === null) {
      return new Metered(await this.meteredUncapped(caller.accountId, month, day, call), {});
    }
    const count = await this.usage.charge(caller.accountId, month, day, limit);
    const headers = rateLimitHeaders(limit, count ?? limit, secondsToNextMonth(now));
    if (count === null) {
      this.metrics.quotaRefusals.inc();
      throw new QuotaExceededError(limit, month, this.billingUrl(), headers);
    }
    counted(headers);
    return new Metered(await this.refundingFailure(caller.accountId, month, day, call), headers);
  }

  /**
   * The count's commit (a WAL flush on a server) and the call overlap instead of
   * following each other: at one client that was a flush's time (1–5 ms on this
   * machine's disk) of every paid search.
   */
  private async meteredUncapped<T>(
    accountId: string,
    month: string,
    day: string,
    call: () => Promise<T>,
  ): Promise<T> {
    const counted = this.usage.charge(accountId, month, day, null);
    const [count, answer] = await Promise.allSettled([
      counted,
      this.refundingFailure(accountId, month, day, call, counted),
    ]);
    if (count.status === 'rejected') throw count.reason;
    if (answer.status === 'rejected') throw answer.reason;
    return answer.value;
  }

  /** Runs the call; one that fails gives its count back (once `counted`, if still under way). */
  private async refundingFailure<T>(
    accountId: string,
    month: string,
    day: string,
    call: () => Promise<T>,
    counted: Promise<unknown> = Promise.resolve(),
  ): Promise<T> {
    try {
      return await call();
    } catch (err) {
      // A count that failed counted nothing, so there is nothing to give back.
      const wasCounted = await counted.then(
        () => true,
        () => false,
      );
      if (wasCounted) await this.usage.refund(accountId, month, day);
      throw err;
    }
  }

  private billingUrl(): string {
    return `${this.config.publicUrl}/dashboard/billing`;
  }
}

/** One request's quota meter: it remembers the headers of its count. */
class QuotaMeter implements Meter {
  headers: AnswerHeaders = {};

  constructor(
    private readonly quota: QuotaService,
    private readonly caller: Caller,
  ) {}

  metered<T>(call: () => Promise<T>): Promise<Metered<T>> {
    return this.quota.metered(this.caller, call, (headers) => (this.headers = headers));
  }
}

/** IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers): quota, remaining, reset. */
function rateLimitHeaders(limit: number, used: number, reset: number): Record<string, string> {
  return {
    'RateLimit-Policy': `${POLICY};q=${limit};w=${reset}`,
    RateLimit: `${POLICY};r=${Math.max(0, limit - used)};t=${reset}`,
  };
}
