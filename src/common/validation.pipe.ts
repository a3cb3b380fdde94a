import { ValidationError, ValidationPipe } from '@nestjs/common';
import type { ArgumentMetadata } from '@nestjs/common';
import { FieldError, RequestValidationError } from './problem';
import { MalformedJson } from './json-body';

/**
 * The DTOs' class-validator rules, answered with 422 and a problem body listing
 * every field error. Unknown fields are dropped; values are never coerced.
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
      if (value instanceof MalformedJson) {
        throw new RequestValidationError([
          { loc: ['body'], msg: `not valid JSON (${value.reason})` },
        ]);
      }
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw new RequestValidationError([{ loc: ['body'], msg: 'must be a JSON object' }]);
      }
    }
    return super.transform(value, metadata);
  }
}

function flatten(errors: ValidationError[], loc: (string | number)[]): FieldError[] {
  return errors.flatMap((error) => [
    ...Object.values(error.constraints ?? {}).map((msg) => ({
      loc: [...loc, error.property],
      msg,
    })),
    ...flatten(error.children ?? [], [...loc, error.property]),
  ]);
}
