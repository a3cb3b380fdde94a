import { createHash, createHmac } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import canonicalize from 'canonicalize';
import { sameSecret } from '../../common/constant-time';
import { AppConfig, CONFIG, PaymentMethodName, PaymentSettings } from '../../config/config';
import { Clock } from '../clock';
import {
  invalidChallenge,
  malformedCredential,
  paymentExpired,
  paymentRequired,
} from './payment-errors';

export const CREDENTIAL_HEADER = 'Payment-Authorization';
const INTENT = 'charge';
const DESCRIPTION = 'One freshfacts search';

/** A challenge's parameters as the client echoes them in its credential. */
export interface ChallengeEcho {
  id: string;
  realm: string;
  method: string;
  intent: string;
  request: string;
  expires?: string;
  digest?: string;
  opaque?: string;
  header?: string;
  description?: string;
}

export interface PaymentCredential {
  challenge: ChallengeEcho;
  source?: string;
  payload: Record<string, unknown>;
}

/** What a charge challenge asks for, decoded from its `request` parameter. */
export interface ChargeRequest {
  amount: string;
  currency: string;
  recipient: string;
  methodDetails?: Record<string, unknown>;
  [field: string]: unknown;
}

/** The request a challenge was issued for: a payment for one question buys only that one. */
export interface Binding {
  route: string;
  body: string;
}

/** A credential that passed every check that needs no store and no payment provider. */
export interface AdmittedPayment {
  credential: PaymentCredential;
  method: PaymentMethodName;
  request: ChargeRequest;
  binding: Binding;
  expiresAt: Date;
}

/**
 * Challenges of the HTTP `Payment` scheme (draft-httpauth-payment): issued without
 * keeping state, because the id is an HMAC over the challenge's parameters, and
 * checked against the credential's echo of them.
 */
@Injectable()
export class PaymentChallenges {
  readonly settings?: PaymentSettings;
  private readonly realm: string;

  constructor(
    @Inject(CONFIG) config: AppConfig,
    private readonly clock: Clock,
  ) {
    this.settings = config.payments;
    this.realm = new URL(config.publicUrl).hostname;
  }

  /** One challenge per accepted method, each bound to `binding`. */
  issue(binding: Binding): string[] {
    const settings = this.require();
    const expires = new Date(this.clock.now().getTime() + settings.ttlSeconds * 1000).toISOString();
    return settings.methods.map((method) => {
      const params = {
        realm: this.realm,
        method,
        intent: INTENT,
        request: encode(this.requestFor(method)),
        expires,
        opaque: encode({ route: binding.route, body: binding.body }),
        header: CREDENTIAL_HEADER,
      };
      const id = challengeId(settings.secrets[0], params);
      return (
        `Payment id="${id}", realm="${params.realm}", method="${method}", intent="${INTENT}", ` +
        `request="${params.request}", description="${DESCRIPTION}", expires="${expires}", ` +
        `opaque="${params.opaque}", header="${CREDENTIAL_HEADER}"`
      );
    });
  }

  /**
   * Checks a `Payment-Authorization` value for this request, in the draft's order:
   * well-formed, issued by us (HMAC), for this very request, not expired. Single use
   * and the proof itself are checked when the payment is settled.
   */
  admit(header: string, binding: Binding): AdmittedPayment {
    const fresh = () => this.issue(binding);
    const credential = parseCredential(header, fresh);
    const echo = credential.challenge;
    const settings = this.require();
    const issued = settings.secrets.some((secret) =>
      sameSecret(echo.id, challengeId(secret, echo)),
    );
    if (!issued) throw invalidChallenge('This challenge was not issued by this server.', fresh());
    const method = settings.methods.find((name) => name === echo.method);
    if (!method || echo.realm !== this.realm || echo.intent !== INTENT) {
      throw invalidChallenge('This challenge is not one this server accepts now.', fresh());
    }
    const request = decode(echo.request) as ChargeRequest | undefined;
    if (!request || canonicalize(request) !== canonicalize(this.requestFor(method))) {
      throw invalidChallenge('This challenge asks a price this server no longer charges.', fresh());
    }
    const bound = decode(echo.opaque ?? '') as Partial<Binding> | undefined;
    if (bound?.route !== binding.route || bound.body !== binding.body) {
      throw invalidChallenge(
        'This challenge was issued for another request; a payment buys only the request it was offered for.',
        fresh(),
      );
    }
    const expiresAt = new Date(echo.expires ?? '');
    if (Number.isNaN(expiresAt.getTime()) || expiresAt <= this.clock.now()) {
      throw paymentExpired(echo.expires ?? 'an unknown time', fresh());
    }
    return { credential, method, request, binding, expiresAt };
  }

  get enabled(): boolean {
    return Boolean(this.settings);
  }

  /** 402 for a request with neither a key nor a credential. */
  required(binding: Binding) {
    return paymentRequired(this.issue(binding));
  }

  private requestFor(method: PaymentMethodName): ChargeRequest {
    const settings = this.require();
    return {
      amount: settings.amount,
      currency: settings.currency,
      recipient: settings.recipient,
      ...(method === 'stripe' && {
        methodDetails: { networkId: settings.stripeNetworkId, paymentMethodTypes: ['card'] },
      }),
    };
  }

  private require(): PaymentSettings {
    if (!this.settings) throw new Error('payments are not configured');
    return this.settings;
  }
}

/**
 * The request a call is: its route and the SHA-256 of its body in canonical JSON.
 * JCS has no form for a number beyond double range (JSON.parse reads `1e309` as
 * Infinity), so such a number is bound as the string "Infinity" (or "-Infinity").
 */
export function bindingOf(method: string, path: string, body: unknown): Binding {
  const finite: unknown = JSON.parse(JSON.stringify(body ?? null, nameNonFinite) ?? 'null');
  const canonical = canonicalize(finite) ?? 'null';
  return {
    route: `${method} ${path}`,
    body: `sha-256=${createHash('sha256').update(canonical).digest('base64url')}`,
  };
}

function nameNonFinite(_key: string, value: unknown): unknown {
  return typeof value === 'number' && !Number.isFinite(value) ? String(value) : value;
}

/**
 * The draft's recommended id: HMAC-SHA256 over realm, method, intent, request,
 * expires, digest and opaque joined by "|" (absent ones empty), then header when
 * present; base64url without padding.
 */
export function challengeId(
  secret: string,
  params: Omit<ChallengeEcho, 'id' | 'description'>,
): string {
  const slots = [
    params.realm,
    params.method,
    params.intent,
    params.request,
    params.expires ?? '',
    params.digest ?? '',
    params.opaque ?? '',
  ];
  if (params.header !== undefined) slots.push(params.header);
  return createHmac('sha256', secret).update(slots.join('|')).digest('base64url');
}

/** JCS (RFC 8785), then base64url without padding. */
export function encode(value: unknown): string {
  return Buffer.from(canonicalize(value) ?? 'null').toString('base64url');
}

function decode(value: string): unknown {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? parsed
      : undefined;
  } catch {
    return undefined;
  }
}

const ECHO_FIELDS = ['id', 'realm', 'method', 'intent', 'request'] as const;
const OPTIONAL_FIELDS = ['expires', 'digest', 'opaque', 'header', 'description'] as const;

function parseCredential(header: string, fresh: () => string[]): PaymentCredential {
  const match = /^Payment\s+([A-Za-z0-9_-]+={0,2})\s*$/i.exec(header);
  if (!match) throw malformedCredential('the value is not "Payment <base64url>"', fresh());
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(match[1], 'base64url').toString('utf8'));
  } catch {
    throw malformedCredential('the base64url does not decode to JSON', fresh());
  }
  const credential = json as Partial<PaymentCredential> | null;
  const challenge = credential?.challenge as Record<string, unknown> | undefined;
  if (typeof challenge !== 'object' || challenge === null) {
    throw malformedCredential('"challenge" is missing', fresh());
  }
  for (const field of ECHO_FIELDS) {
    if (typeof challenge[field] !== 'string' || !challenge[field]) {
      throw malformedCredential(`"challenge.${field}" must be a non-empty string`, fresh());
    }
  }
  for (const field of OPTIONAL_FIELDS) {
    if (challenge[field] !== undefined && typeof challenge[field] !== 'string') {
      throw malformedCredential(`"challenge.${field}" must be a string`, fresh());
    }
  }
  const payload = credential?.payload;
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    throw malformedCredential('"payload" must be an object', fresh());
  }
  if (credential?.source !== undefined && typeof credential.source !== 'string') {
    throw malformedCredential('"source" must be a string', fresh());
  }
  return credential as PaymentCredential;
}
