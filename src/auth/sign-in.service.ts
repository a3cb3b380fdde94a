import { Injectable } from '@nestjs/common';
// Prebuilt per platform (napi-rs), with no install script: the `argon2` package's own
// prebuilt binary crashed (SIGSEGV) here when its build script did not run, as in
// an image built with --ignore-scripts.
import { hash, verify } from '@node-rs/argon2';
import { Account } from '../accounts/account.entity';
import { AccountsRepository } from '../accounts/accounts.repository';
import { AccountExistsError } from '../accounts/accounts.service';
import { normaliseEmail } from '../accounts/email';
import { DomainError } from '../common/problem';
import { LoginThrottleRepository } from './login-throttle.repository';

export const MIN_PASSWORD = 12;
/** argon2 hashes whatever it is given; a cap keeps one request from costing much. */
export const MAX_PASSWORD = 1024;

export class WeakPasswordError extends DomainError {
  constructor(detail: string) {
    super('weak-password', 'Password not accepted', detail);
  }
}

export class InvalidCredentialsError extends DomainError {
  constructor() {
    super('invalid-credentials', 'Wrong email or password', 'Wrong email or password.');
  }
}

export class LoginThrottledError extends DomainError {
  constructor(readonly retryAfter: number) {
    super(
      'login-throttled',
      'Too many login attempts',
      `Too many login attempts for this address; try again in ${Math.ceil(retryAfter / 60)} minutes.`,
      {},
      { 'Retry-After': String(retryAfter) },
    );
  }
}

/** Sign-up and login of dashboard accounts: argon2id passwords and a login throttle. */
@Injectable()
export class SignInService {
  /** Verified against when the address is unknown, so that timing does not tell. */
  private decoy?: Promise<string>;

  constructor(
    private readonly accounts: AccountsRepository,
    private readonly throttle: LoginThrottleRepository,
  ) {}

  async signUp(email: string, password: string): Promise<Account> {
    const address = normaliseEmail(email);
    checkPassword(password);
    // argon2id with OWASP's parameters (19 MiB, 2 passes): the library's defaults.
    const passwordHash = await hash(password);
    const account = await this.accounts.insert({ email: address, plan: 'free', passwordHash });
    // An account an operator made (no password) is not claimable by whoever signs
    // up first with its address: there is no mail round-trip to prove ownership.
    if (!account) throw new AccountExistsError(`an account for ${address} exists; log in instead`);
    return account;
  }

  /** The account whose password this is; throttled per address. */
  async logIn(email: string, password: string): Promise<Account> {
    let address: string;
    try {
      address = normaliseEmail(email);
    } catch {
      throw new InvalidCredentialsError();
    }
    if (password.length > MAX_PASSWORD) throw new InvalidCredentialsError();
    const retryAfter = await this.throttle.take(address);
    if (retryAfter) throw new LoginThrottledError(retryAfter);
    const account = await this.accounts.findWithPassword(address);
    const stored = account?.passwordHash ?? (await this.decoyHash());
    const valid = await verify(stored, password);
    if (!account?.passwordHash || !valid) throw new InvalidCredentialsError();
    await this.throttle.clear(address);
    return account;
  }

  private decoyHash(): Promise<string> {
    this.decoy ??= hash('not anybody’s password');
    return this.decoy;
  }
}

function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD) {
    throw new WeakPasswordError(`Use at least ${MIN_PASSWORD} characters.`);
  }
  if (password.length > MAX_PASSWORD) {
    throw new WeakPasswordError(`Use at most ${MAX_PASSWORD} characters.`);
  }
}
