import { DomainError } from '../common/problem';

export class InvalidEmailError extends DomainError {
  constructor(detail: string) {
    super('invalid-email', 'Invalid email address', detail);
  }
}

// Control characters (U+0000 among them, which PostgreSQL text cannot hold) are in no
// address and no name a person types.
const CONTROL = /\p{Cc}/u;

export function hasControlCharacter(text: string): boolean {
  return CONTROL.test(text);
}

/** The address in the form accounts are stored under: trimmed and lower-case. */
export function normaliseEmail(email: string): string {
  const address = email.trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(address) || hasControlCharacter(address))
    throw new InvalidEmailError(`not an email address: ${email}`);
  return address;
}
