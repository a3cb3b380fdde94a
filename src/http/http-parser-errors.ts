import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { Problem, PROBLEM_CONTENT_TYPE, problemType } from '../common/problem';

interface ParserError extends Error {
  code?: string;
  reason?: string;
}

/** The response in progress on a socket: Node's own field, read as its default handler does. */
interface ServerSocket extends Duplex {
  _httpMessage?: { headersSent?: boolean };
}

/**
 * Requests Node's HTTP parser refuses (bad chunked framing, two Content-Lengths,
 * headers over 16 KiB) never reach the app; Node answers them with a bare status
 * line. This answers them as problem+json instead, where the socket can still carry
 * an answer and no other answer has begun on it.
 */
export function answerParserErrors(server: Server): void {
  server.on('clientError', (err: ParserError, socket: ServerSocket) => {
    if (err.code === 'ECONNRESET' || !socket.writable || socket._httpMessage?.headersSent) {
      socket.destroy();
      return;
    }
    const problem = problemOf(err);
    const body = JSON.stringify(problem);
    socket.end(
      `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}\r\n` +
        `Content-Type: ${PROBLEM_CONTENT_TYPE}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  });
}

function problemOf(err: ParserError): Problem {
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    return {
      type: problemType('headers-too-large'),
      title: 'Request headers too large',
      status: 431,
      detail: 'The request line and headers must fit in 16 KiB.',
    };
  }
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return {
      type: problemType('request-timeout'),
      title: 'Request timeout',
      status: 408,
      detail: 'The request did not arrive in time.',
    };
  }
  return {
    type: problemType('malformed-http'),
    title: 'Malformed HTTP request',
    status: 400,
    detail: `The request is not valid HTTP/1.1 (${err.reason ?? err.message}).`,
  };
}
