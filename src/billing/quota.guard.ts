import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { ApiKeyGuard, CallerRequest } from '../auth/api-key.guard';
import { MeteredRequest } from './metering';
import { QuotaService } from './quota.service';

/** Admits a request by its API key and meters it against the monthly quota of the key's plan. */
@Injectable()
export class QuotaGuard implements CanActivate {
  constructor(
    private readonly keys: ApiKeyGuard,
    private readonly quota: QuotaService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    await this.keys.canActivate(context);
    const request = context.switchToHttp().getRequest<CallerRequest & MeteredRequest>();
    request.meter = this.quota.meterFor(request.caller!);
    return true;
  }
}
