import { ArgumentsHost, NotFoundException } from '@nestjs/common';
import { ProblemFilter } from '../../src/common/problem.filter';
import { RequestValidationError } from '../../src/common/problem';

/** Captures what the filter writes, standing in for an Express response. */
function capture() {
  const sent: { status?: number; type?: string; headers: Record<string, string>; body?: string } = {
    headers: {},
  };
  const response = {
    status(code: number) {
      sent.status = code;
      return response;
    },
    set(headers: Record<string, string>) {
      Object.assign(sent.headers, headers);
      return response;
    },
    type(type: string) {
      sent.type = type;
      return response;
    },
    send(body: string) {
      sent.body = body;
      return response;
    },
  };
  const host = {
    switchToHttp: () => ({ getResponse: () => response }),
  } as unknown as ArgumentsHost;
  return { sent, host };
}

describe('the problem+json filter', () => {
  const filter = new ProblemFilter();

  it('renders our errors with their status, type and extensions', () => {
    const { sent, host } = capture();
    filter.catch(
      new RequestValidationError([{ loc: ['body', 'k'], msg: 'k must be an integer' }]),
      host,
    );
    expect(sent.status).toBe(422);
    expect(sent.type).toBe('application/problem+json');
    expect(JSON.parse(sent.body!)).toEqual({
      type: '/problems/invalid-request',
      title: 'Invalid request body',
      status: 422,
      detail: 'k: k must be an integer',
      errors: [{ loc: ['body', 'k'], msg: 'k must be an integer' }],
    });
  });

  it('renders framework HTTP errors as problems too', () => {
    const { sent, host } = capture();
    filter.catch(new NotFoundException('Cannot GET /x'), host);
    expect(JSON.parse(sent.body!)).toMatchObject({
      status: 404,
      title: 'NotFound',
      detail: 'Cannot GET /x',
    });
  });

  it('answers 500 for anything unexpected without leaking its message', () => {
    const { sent, host } = capture();
    jest.spyOn(console, 'error').mockImplementation(() => undefined);
    filter.catch(new Error('password=hunter2 in a stack trace'), host);
    expect(sent.status).toBe(500);
    expect(sent.body).not.toContain('hunter2');
    expect(JSON.parse(sent.body!)).toMatchObject({ type: '/problems/internal-error', status: 500 });
  });
});
