import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Whether a secret a caller sent equals the expected one, in time that depends on
 * neither: both are hashed first, so the compared buffers always have one length.
 */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** What is stored of a secret (API keys, session tokens): its SHA-256, in hex. */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
