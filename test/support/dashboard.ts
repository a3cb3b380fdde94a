import request from 'supertest';

export const PASSWORD = 'correct horse battery staple';

/** The CSRF token of the first form on a page. */
export function csrfOf(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!match) throw new Error('no CSRF token on the page');
  return match[1];
}

/**
 * A browser without the browser: a cookie-keeping HTTP client that fills in the
 * dashboard's forms, CSRF token included, as a person would.
 */
export class DashboardClient {
  readonly agent: ReturnType<typeof request.agent>;

  constructor(readonly url: string) {
    this.agent = request.agent(url);
  }

  /**
   * Opens `page`, posts `form` to `action` with the page's CSRF token and checks
   * that the answer has `status`.
   */
  async submit(
    status: number,
    page: string,
    action: string,
    form: Record<string, string> = {},
  ): Promise<request.Response> {
    const shown = await this.agent.get(page).expect(200);
    return this.agent
      .post(action)
      .type('form')
      .send({ _csrf: csrfOf(shown.text), ...form })
      .expect(status);
  }

  async signUp(email: string, password = PASSWORD): Promise<this> {
    await this.submit(303, '/dashboard/signup', '/dashboard/signup', { email, password });
    return this;
  }

  async logIn(status: number, email: string, password = PASSWORD): Promise<request.Response> {
    return this.submit(status, '/dashboard/login', '/dashboard/login', { email, password });
  }

  /** Creates a key on the keys page and returns the secret shown once. */
  async createKey(name: string): Promise<string> {
    const page = await this.submit(201, '/dashboard/keys', '/dashboard/keys', { name });
    const match = /id="new-key"[^>]*>(ff_live_[A-Za-z0-9_-]+)</.exec(page.text);
    if (!match) throw new Error('the new key is not on the page');
    return match[1];
  }

  /** The calls-this-month figure on the usage page. */
  async callsThisMonth(): Promise<string> {
    const page = await this.agent.get('/dashboard/usage').expect(200);
    return /id="calls-this-month">([^<]+)</.exec(page.text)![1];
  }
}
