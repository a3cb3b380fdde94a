import { Module } from '@nestjs/common';
import { BillingModule } from '../billing/billing.module';
import { ApiKeyGuard } from './api-key.guard';
import { ApiKeysService } from './api-keys.service';
import { LoginThrottleRepository } from './login-throttle.repository';
import { SessionsRepository } from './sessions.repository';
import { SignInService } from './sign-in.service';

@Module({
  imports: [BillingModule],
  providers: [
    ApiKeysService,
    ApiKeyGuard,
    LoginThrottleRepository,
    SessionsRepository,
    SignInService,
  ],
  exports: [ApiKeysService, ApiKeyGuard, SessionsRepository, SignInService],
})
export class AuthModule {}
