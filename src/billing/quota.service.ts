import { Inject, Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { ProblemError } from '../common/problem';
import { AppConfig, CONFIG } from '../config/config';
import { MetricsService } from '../metrics/metrics.service';
import { Clock, monthOf, secondsToNextMonth } from './clock';
import { PLANS, PlanName } from './plans';
import { UsageRepository } from './usage.repository';

/** Who is calling, as the API key guard found them. */
export interface Caller {
  accountId: string;
  plan: PlanName;
}

export class QuotaExceededError extends ProblemError {
  constructor(limit: number, month: string, billingUrl: string, headers: Record<string, string>) {
    super(
      402,
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
 * Meters calls against the caller's plan. A call is counted before it runs, in one
 * atomic step against the limit, and given back if it does not end in an answer,
 * so only answered calls count and concurrent calls can never pass the limit.
 */
@Injectable()
export class QuotaService {
  constructor(
    private readonly usage: UsageRepository,
    private readonly clock: Clock,
    @Inject(CONFIG) private readonly config: AppConfig,
    private readonly metrics: MetricsService,
  ) {}

  async metered<T>(caller: Caller, res: Response, call: () => Promise<T>): Promise<T> {
    const now = this.clock.now();
    const [month, day] = [monthOf(now), now.toISOString().slice(0, 10)];
    const limit = PLANS[caller.plan].monthlyCalls;
    const count = await this.usage.charge(caller.accountId, month, day, limit);
    if (limit !== null) {
      const headers = rateLimitHeaders(limit, count ?? limit, secondsToNextMonth(now));
      if (count === null) {
        this.metrics.quotaRefusals.inc();
        throw new QuotaExceededError(limit, month, this.billingUrl(), headers);
      }
      res.set(headers);
    }
    try {
      return await call();
    } catch (err) {
      await this.usage.refund(caller.accountId, month, day);
      throw err;
    }
  }

  private billingUrl(): string {
    return `${this.config.publicUrl}/dashboard/billing`;
  }
}

/** IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers): quota, remaining, reset. */
function rateLimitHeaders(limit: number, used: number, reset: number): Record<string, string> {
  return {
    'RateLimit-Policy': `${POLICY};q=${limit};w=${reset}`,
    RateLimit: `${POLICY};r=${Math.max(0, limit - used)};t=${reset}`,
  };
}
