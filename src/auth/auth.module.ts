import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { ApiKeyGuard } from './api-key.guard';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeysService } from './api-keys.service';
import { LoginThrottleRepository } from './login-throttle.repository';
import { SessionsRepository } from './sessions.repository';
import { SignInService } from './sign-in.service';

@Module({
  imports: [AccountsModule],
  providers: [
    ApiKeysRepository,
    ApiKeysService,
    ApiKeyGuard,
    LoginThrottleRepository,
    SessionsRepository,
    SignInService,
  ],
  exports: [ApiKeysService, ApiKeyGuard, SessionsRepository, SignInService],
})
export class AuthModule {}
