import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/** Each app has its own registry: several apps may share a process (tests, cluster workers). */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();

  readonly requests = new Histogram({
    name: 'freshfacts_http_request_duration_seconds',
    help: 'HTTP request latency by route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  readonly searches = new Counter({
    name: 'freshfacts_searches_total',
    help: 'Searches run by the engine, both endpoints',
    registers: [this.registry],
  });

  readonly quotaRefusals = new Counter({
    name: 'freshfacts_quota_refusals_total',
    help: 'Calls refused with 402 because the monthly free-tier limit was reached',
    registers: [this.registry],
  });

  readonly payments = new Counter({
    name: 'freshfacts_payments_total',
    help: 'Pay-per-call outcomes: settled, or the problem type a call was refused with',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly embedderSeconds = new Histogram({
    name: 'freshfacts_embedder_duration_seconds',
    help: 'Time to embed one batch of texts',
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }
}
