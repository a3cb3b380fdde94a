import {
  Body,
  Controller,
  Get,
  Inject,
  Param,
  Post,
  Query,
  Res,
  UseFilters,
  UseGuards,
} from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiKeysService, MAX_KEY_NAME } from '../auth/api-keys.service';
import { SessionsRepository } from '../auth/sessions.repository';
import { SignInService } from '../auth/sign-in.service';
import { Clock } from '../billing/clock';
import { StripeBillingService } from '../billing/stripe-billing.service';
import { UsageService } from '../billing/usage.service';
import { DomainError } from '../common/problem';
import { statusOf } from '../http/problem.filter';
import { AppConfig, CONFIG } from '../config/config';
import { CorpusService } from '../corpus/corpus.service';
import { DashboardFilter } from './dashboard.filter';
import {
  CurrentVisitor,
  cookieOptions,
  DashboardGuard,
  PublicPage,
  SESSION_COOKIE,
  SESSION_MAX_AGE_MS,
  Visitor,
} from './dashboard.guard';
import { usageChart } from './usage-chart';

type Form = Record<string, unknown>;
type Section = 'keys' | 'usage' | 'billing';
type PageModel = { title: string; section?: Section; [name: string]: unknown };

/** The account holder's pages: sign-up and login, keys, usage and billing. */
@ApiExcludeController()
@Controller('dashboard')
@UseGuards(DashboardGuard)
@UseFilters(DashboardFilter)
export class DashboardController {
  constructor(
    private readonly signIn: SignInService,
    private readonly sessions: SessionsRepository,
    private readonly keys: ApiKeysService,
    private readonly usage: UsageService,
    private readonly stripe: StripeBillingService,
    private readonly clock: Clock,
    private readonly corpus: CorpusService,
    @Inject(CONFIG) private readonly config: AppConfig,
  ) {}

  @Get()
  home(@Res() res: Response): void {
    res.redirect(303, '/dashboard/keys');
  }

  @PublicPage()
  @Get('signup')
  signUpPage(@CurrentVisitor() visitor: Visitor, @Res() res: Response): void {
    if (visitor.session) return res.redirect(303, '/dashboard/keys');
    render(res, 'signup', visitor, { title: 'Create your account' });
  }

  @PublicPage()
  @Post('signup')
  async signUp(
    @Body() form: Form,
    @CurrentVisitor() visitor: Visitor,
    @Res() res: Response,
  ): Promise<void> {
    const email = field(form, 'email');
    const account = await this.refusalShown(
      res,
      () => this.signIn.signUp(email, field(form, 'password')),
      (error) => render(res, 'signup', visitor, { title: 'Create your account', email, error }),
    );
    if (account) await this.openSession(res, account.id);
  }

  @PublicPage()
  @Get('login')
  logInPage(@CurrentVisitor() visitor: Visitor, @Res() res: Response): void {
    if (visitor.session) return res.redirect(303, '/dashboard/keys');
    render(res, 'login', visitor, { title: 'Log in' });
  }

  @PublicPage()
  @Post('login')
  async logIn(
    @Body() form: Form,
    @CurrentVisitor() visitor: Visitor,
    @Res() res: Response,
  ): Promise<void> {
    const email = field(form, 'email');
    const account = await this.refusalShown(
      res,
      () => this.signIn.logIn(email, field(form, 'password')),
      (error) => render(res, 'login', visitor, { title: 'Log in', email, error }),
    );
    if (account) await this.openSession(res, account.id);
  }

  @Post('logout')
  async logOut(@CurrentVisitor() visitor: Visitor, @Res() res: Response): Promise<void> {
    if (visitor.sessionToken) await this.sessions.close(visitor.sessionToken);
    res.clearCookie(SESSION_COOKIE, cookieOptions(this.config));
    res.redirect(303, '/dashboard/login');
  }

  @Get('keys')
  async keysPage(@CurrentVisitor() visitor: Visitor, @Res() res: Response): Promise<void> {
    await this.renderKeys(res, visitor, {});
  }

  @Post('keys')
  async createKey(
    @Body() form: Form,
    @CurrentVisitor() visitor: Visitor,
    @Res() res: Response,
  ): Promise<void> {
    const session = visitor.session!;
    const name = field(form, 'name').trim();
    const created = await this.refusalShown(
      res,
      () => this.keys.createFor({ id: session.accountId, email: session.email }, name),
      (error) => this.renderKeys(res, visitor, { error, name }),
    );
    if (!created) return;
    // The secret is rendered into this one response and nowhere else: not a redirect
    // URL, not a log line, not the database.
    res.status(201);
    await this.renderKeys(res, visitor, { created: { key: created.key, name } });
  }

  @Post('keys/:id/revoke')
  async revokeKey(
    @Param('id') id: string,
    @CurrentVisitor() visitor: Visitor,
    @Res() res: Response,
  ): Promise<void> {
    await this.keys.revokeById(id, visitor.session!.accountId);
    res.redirect(303, '/dashboard/keys');
  }

  @Get('usage')
  async usagePage(@CurrentVisitor() visitor: Visitor, @Res() res: Response): Promise<void> {
    const usage = await this.usage.usageOf(visitor.session!.email);
    const now = this.clock.now();
    const chart = usageChart(usage.daily, now);
    const resets = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    render(res, 'usage', visitor, {
      title: 'Usage',
      section: 'usage',
      calls: count(usage.calls),
      limit: usage.limit === null ? undefined : count(usage.limit),
      remaining: usage.limit === null ? undefined : count(Math.max(0, usage.limit - usage.calls)),
      percent: usage.limit ? Math.min(100, Math.round((usage.calls / usage.limit) * 100)) : 0,
      exhausted: usage.limit !== null && usage.calls >= usage.limit,
      month: new Date(`${usage.month}T00:00:00Z`).toLocaleDateString('en-US', {
        month: 'long',
        year: 'numeric',
        timeZone: 'UTC',
      }),
      resets: day(resets),
      chart,
      chartMax: count(chart.max),
      total30: count(chart.bars.reduce((sum, bar) => sum + bar.calls, 0)),
      bars: chart.bars.map((bar) => ({
        ...bar,
        label: `${day(new Date(bar.day))}: ${count(bar.calls)} calls`,
      })),
    });
  }

  @Get('billing')
  billingPage(
    @CurrentVisitor() visitor: Visitor,
    @Query('checkout') checkout: string | undefined,
    @Res() res: Response,
  ): void {
    const session = visitor.session!;
    render(res, 'billing', visitor, {
      title: 'Billing',
      section: 'billing',
      paid: session.plan === 'paid',
      stripe: this.stripe.enabled,
      checkoutSucceeded: checkout === 'success',
      checkoutCancelled: checkout === 'cancelled',
      command: `freshfacts accounts set-plan ${session.email} paid`,
    });
  }

  @Post('billing/checkout')
  async checkout(@CurrentVisitor() visitor: Visitor, @Res() res: Response): Promise<void> {
    const session = visitor.session!;
    res.redirect(303, await this.stripe.checkoutUrl(session));
  }

  @Post('billing/portal')
  async portal(@CurrentVisitor() visitor: Visitor, @Res() res: Response): Promise<void> {
    res.redirect(303, await this.stripe.portalUrl(visitor.session!.accountId));
  }

  private async renderKeys(res: Response, visitor: Visitor, extra: object): Promise<void> {
    const [keys, corpus] = await Promise.all([
      this.keys.listFor(visitor.session!.accountId),
      this.corpus.status(),
    ]);
    render(res, 'keys', visitor, {
      title: 'API keys',
      section: 'keys',
      keys: keys.map((key) => ({
        id: key.id,
        name: key.name || 'Unnamed',
        prefix: key.prefix,
        created: day(key.createdAt),
        lastUsed: key.lastUsedAt ? moment(key.lastUsedAt) : 'Never',
        revoked: key.revokedAt ? day(key.revokedAt) : undefined,
      })),
      maxName: MAX_KEY_NAME,
      publicUrl: this.config.publicUrl,
      corpus: {
        facts: count(corpus.facts),
        upTo: corpus.newest_true_by && {
          iso: corpus.newest_true_by,
          shown: day(new Date(corpus.newest_true_by)),
        },
      },
      ...extra,
    });
  }

  /**
   * Runs a form's step and answers its result; a refusal (weak or wrong password,
   * throttled login, bad key name) shows the form again with the reason and its
   * status, and answers undefined.
   */
  private async refusalShown<T>(
    res: Response,
    step: () => Promise<T>,
    showAgain: (reason: string) => void | Promise<void>,
  ): Promise<T | undefined> {
    try {
      return await step();
    } catch (err) {
      if (!(err instanceof DomainError) || statusOf(err) >= 500) throw err;
      res.status(statusOf(err)).set(err.headers);
      await showAgain(err.detail);
      return undefined;
    }
  }

  /** Signs the browser in and sends it to its keys. */
  private async openSession(res: Response, accountId: string): Promise<void> {
    const token = await this.sessions.open(accountId);
    res.cookie(SESSION_COOKIE, token, cookieOptions(this.config, SESSION_MAX_AGE_MS));
    res.redirect(303, '/dashboard/keys');
  }
}

function render(res: Response, view: string, visitor: Visitor, model: PageModel): void {
  const session = visitor.session;
  res.render(view, {
    ...model,
    csrfToken: visitor.csrfToken,
    account: session && { email: session.email, paid: session.plan === 'paid' },
    nav: model.section && { [model.section]: true },
  });
}

function field(form: Form | undefined, name: string): string {
  const value = form?.[name];
  return typeof value === 'string' ? value : '';
}

const NUMBER = new Intl.NumberFormat('en-US');

function count(value: number): string {
  return NUMBER.format(value);
}

function day(at: Date): string {
  return at.toLocaleDateString('en-US', {
    month: 'short',
    day: 'numeric',
    year: 'numeric',
    timeZone: 'UTC',
  });
}

function moment(at: Date): string {
  return `${day(at)}, ${at.toISOString().slice(11, 16)} UTC`;
}
