import { createHash } from 'node:crypto';
import type { Request } from 'express';

/**
 * Names an admin credential in the audit trail and on retractions without giving it
 * away: the first 12 hex digits of its SHA-256 (48 bits; nobody can go back from them
 * to a token of 24+ characters, and two operators' tokens will not collide).
 */
export function adminCredentialId(token: string): string {
  return `admin:${createHash('sha256').update(token).digest('hex').slice(0, 12)}`;
}

/** A request the AdminGuard admitted, with the credential it presented. */
export interface AdminRequest extends Request {
  adminCredential?: string;
}

/** Who did an admin write: the credential id, or `cli` (the offline command line). */
export function actorOf(request: AdminRequest): string {
  return request.adminCredential ?? 'unknown';
}
