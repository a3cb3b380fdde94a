/** RFC 9457 problem details: the body of every error response of the service. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  [extension: string]: unknown;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** Problem types are documented in the README under "Errors". */
export function problemType(slug: string): string {
  return `/problems/${slug}`;
}

/** Response headers of an error; a list sends the header once per value. */
export type ProblemHeaders = Record<string, string | string[]>;

/**
 * An error a service raises on purpose, in the terms of its problem body (type, title,
 * detail, extension members) and the headers that go with it, but without an HTTP
 * status: the problem filter's one table maps each problem type to its status.
 */
export class DomainError extends Error {
  constructor(
    readonly slug: string,
    readonly title: string,
    readonly detail: string,
    readonly extensions: Record<string, unknown> = {},
    readonly headers: ProblemHeaders = {},
  ) {
    super(detail);
  }

  /** The problem type's URI. */
  get type(): string {
    return problemType(this.slug);
  }

  /** The problem body of this error, answered with `status`. */
  toProblemWith(status: number): Problem {
    const { type, title, detail, extensions } = this;
    return { type, title, status, detail, ...extensions };
  }
}

/**
 * An error of the HTTP edge that carries its status itself (a body too large, a request
 * that fails validation): the domain error of a layer that knows HTTP.
 */
export class ProblemError extends DomainError {
  constructor(
    readonly status: number,
    slug: string,
    title: string,
    detail: string,
    extensions: Record<string, unknown> = {},
    headers: ProblemHeaders = {},
  ) {
    super(slug, title, detail, extensions, headers);
  }

  toProblem(): Problem {
    return this.toProblemWith(this.status);
  }
}

export interface FieldError {
  loc: (string | number)[];
  msg: string;
}

export class RequestValidationError extends ProblemError {
  constructor(readonly errors: FieldError[]) {
    super(
      422,
      'invalid-request',
      'Invalid request body',
      errors.map((error) => `${error.loc.slice(1).join('.') || 'body'}: ${error.msg}`).join('; '),
      { errors },
    );
  }
}

export class PayloadTooLargeError extends ProblemError {
  constructor(limit: string) {
    super(413, 'payload-too-large', 'Request body too large', `The body must be at most ${limit}.`);
  }
}

export class UnsupportedEncodingError extends ProblemError {
  constructor(detail: string) {
    super(415, 'unsupported-encoding', 'Unsupported body encoding', detail);
  }
}

export class UnreadableBodyError extends ProblemError {
  constructor(detail: string) {
    super(400, 'unreadable-body', 'Unreadable request body', detail);
  }
}
