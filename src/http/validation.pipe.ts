import { ValidationError, ValidationPipe } from '@nestjs/common';
import type { ArgumentMetadata } from '@nestjs/common';
import { FieldError, RequestValidationError } from '../common/problem';
import { RefusedBody } from './json-body';

type Loc = (string | number)[];

const LOCATIONS: Partial<Record<ArgumentMetadata['type'], string>> = {
  body: 'body',
  param: 'path',
  query: 'query',
};

/**
 * The DTOs' class-validator rules, answered with 422 and a problem body listing
 * every field error. Unknown fields are dropped; values are never coerced; `null` is
 * taken as absent; no body field, path or query parameter may hold U+0000.
 */
export class BodyValidationPipe extends ValidationPipe {
  constructor() {
    super({
      transform: true,
      whitelist: true,
      forbidUnknownValues: false,
      validationError: { target: false, value: false },
      transformOptions: { enableImplicitConversion: false },
      exceptionFactory: (errors) => new RequestValidationError(flatten(errors, ['body'])),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body') {
      if (value instanceof RefusedBody) {
        throw new RequestValidationError([{ loc: ['body'], msg: value.reason }]);
      }
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw new RequestValidationError([{ loc: ['body'], msg: 'must be a JSON object' }]);
      }
    }
    const result: unknown = await super.transform(value, metadata);
    const validated = this.toValidate(metadata);
    refuseNul(result, metadata, validated);
    if (metadata.type === 'body' && validated) dropNulls(result as Record<string, unknown>);
    return result;
  }
}

/**
 * No PostgreSQL text can hold U+0000, so a request string carrying one is refused
 * here, once for every route, rather than failing in whichever statement it reaches.
 * Checked after validation, so fields the DTO drops do not count. A body that no DTO
 * describes (the dashboard's forms) is left to its service, which shows the form again.
 */
function refuseNul(value: unknown, metadata: ArgumentMetadata, validated: boolean): void {
  const location = LOCATIONS[metadata.type];
  if (!location || (metadata.type === 'body' && !validated)) return;
  const root: Loc = metadata.data ? [location, metadata.data] : [location];
  const loc = nulAt(value, root);
  if (loc) {
    throw new RequestValidationError([{ loc, msg: 'must not contain the NUL character (U+0000)' }]);
  }
}

/** `null` counts as absent (optional fields accept it), so services see only undefined. */
function dropNulls(dto: Record<string, unknown>): void {
  for (const [key, item] of Object.entries(dto)) if (item === null) delete dto[key];
}

function nulAt(value: unknown, loc: Loc): Loc | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? loc : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, item] of Object.entries(value)) {
    if (key.includes('\u0000')) return [...loc, key];
    const found = nulAt(item, [...loc, Array.isArray(value) ? Number(key) : key]);
    if (found) return found;
  }
  return undefined;
}

function flatten(errors: ValidationError[], loc: Loc): FieldError[] {
  return errors.flatMap((error) => [
    ...Object.values(error.constraints ?? {}).map((msg) => ({
      loc: [...loc, error.property],
      msg,
    })),
    ...flatten(error.children ?? [], [...loc, error.property]),
  ]);
}
