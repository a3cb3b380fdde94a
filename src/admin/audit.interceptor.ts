import {
  CallHandler,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  SetMetadata,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { mergeMap, Observable } from 'rxjs';
import { actorOf, AdminRequest } from './admin-credential';
import { AuditRepository } from './audit.repository';

/** What an audited write did, read from its request and its answer. */
export type AuditEntry = { target: string; detail?: Record<string, unknown> };

interface AuditSpec {
  action: string;
  describe: (request: AdminRequest, result: never) => AuditEntry;
}

const AUDIT = 'freshfacts:audit';

/**
 * Marks an admin route as a write to record in the audit trail once it succeeded.
 * `describe` names the target (and any detail) from the request and the answer.
 */
export function Audited<T>(
  action: string,
  describe: (request: AdminRequest, result: T) => AuditEntry,
): MethodDecorator {
  return SetMetadata(AUDIT, { action, describe });
}

/**
 * Records every successful admin write with the admin credential that made it. A write
 * that failed changed nothing and is not recorded; the answer waits for the record, so
 * a write the operator saw succeed is in the trail.
 */
@Injectable()
export class AuditInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly audit: AuditRepository,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const spec = this.reflector.get<AuditSpec | undefined>(AUDIT, context.getHandler());
    if (!spec) return next.handle();
    const request = context.switchToHttp().getRequest<AdminRequest>();
    return next.handle().pipe(
      mergeMap(async (result: unknown) => {
        const { target, detail } = spec.describe(request, result as never);
        await this.audit.record({
          action: spec.action,
          target,
          actor: actorOf(request),
          detail: detail ?? {},
        });
        return result;
      }),
    );
  }
}
