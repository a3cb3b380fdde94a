import { Inject, MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';
import { AuthModule } from '../auth/auth.module';
import { BillingModule } from '../billing/billing.module';
import { AppConfig, CONFIG } from '../config/config';
import { CorpusModule } from '../corpus/corpus.module';
import { DashboardController } from './dashboard.controller';
import { DashboardGuard } from './dashboard.guard';

/** Stripe's pages, where the upgrade and manage-subscription forms redirect to. */
const STRIPE_PAGES = ['https://checkout.stripe.com', 'https://billing.stripe.com'];

@Module({
  imports: [AuthModule, BillingModule, CorpusModule],
  controllers: [DashboardController],
  providers: [DashboardGuard],
})
export class DashboardModule implements NestModule {
  constructor(@Inject(CONFIG) private readonly config: AppConfig) {}

  configure(consumer: MiddlewareConsumer): void {
    const secure = this.config.secureCookies;
    consumer
      .apply(
        helmet({
          contentSecurityPolicy: {
            directives: {
              'form-action': ["'self'", ...(this.config.stripe ? STRIPE_PAGES : [])],
              'upgrade-insecure-requests': secure ? [] : null,
            },
          },
          strictTransportSecurity: secure,
        }),
        // Pages show keys and usage: no shared cache, no back-button copy after logout.
        (_req: Request, res: Response, next: NextFunction) => {
          res.set('Cache-Control', 'no-store');
          next();
        },
      )
      .forRoutes(DashboardController);
  }
}
