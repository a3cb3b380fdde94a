import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startApp, TestApp } from '../support/app';
import { ARTIFACTS, launchChromium } from '../support/browser';
import { CATANIA } from '../support/corpus';
import { PASSWORD } from '../support/dashboard';

/**
 * The whole dashboard story in a real browser (Debian's Chromium, driven by
 * playwright-core), leaving a screenshot of every page in test-artifacts/dashboard/.
 */
describe('an account holder in the browser', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let shot = 0;

  const screenshot = (name: string) =>
    page.screenshot({
      path: join(ARTIFACTS, 'dashboard', `${String(++shot).padStart(2, '0')}-${name}.png`),
      fullPage: true,
    });

  const search = (key: string) =>
    fetch(`${t.url}/v1/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'Who coached Calcio Catania?' }),
    });

  beforeAll(async () => {
    t = await startApp({ facts: CATANIA });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
    page = await context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('signs up, creates and copies a key, sees its calls, revokes it', async () => {
    await page.goto(`${t.url}/dashboard`);
    expect(page.url()).toBe(`${t.url}/dashboard/login`);
    await screenshot('login');
    await page.getByRole('link', { name: 'Create an account' }).click();

    await page.getByLabel('Email').fill('browser@example.com');
    await page.getByLabel('Password').fill('too short');
    await screenshot('signup');
    await page.getByRole('button', { name: 'Create account' }).click();
    // The browser itself holds back a password under 12 characters (minlength).
    expect(page.url()).toBe(`${t.url}/dashboard/signup`);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(`${t.url}/dashboard/keys`);
    await expectText('No keys yet');
    await screenshot('keys-empty');

    await page.getByLabel('Name').fill('production agent');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.locator('#new-key').textContent())!.trim();
    expect(key).toMatch(/^ff_live_[A-Za-z0-9_-]{43}$/);
    await page.getByRole('button', { name: 'Copy' }).click();
    await expectText('Copied');
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(key);
    await screenshot('key-created');

    for (let i = 0; i < 3; i++) expect((await search(key)).status).toBe(200);

    await page.getByRole('link', { name: 'Usage' }).click();
    expect(await page.locator('#calls-this-month').textContent()).toBe('3');
    await expectText('997 left');
    const today = new Date().toISOString().slice(0, 10);
    const bar = page.locator(`rect.bar[data-day="${today}"]`);
    expect(await bar.getAttribute('data-calls')).toBe('3');
    expect(Number(await bar.getAttribute('height'))).toBeGreaterThan(0);
    await screenshot('usage');

    await page.getByRole('link', { name: 'Billing' }).click();
    await expectText('This server is self-hosted');
    await screenshot('billing');

    await page.getByRole('link', { name: 'API keys' }).click();
    await expectText('Last used');
    expect(await page.locator('tbody tr td').nth(3).textContent()).toMatch(/UTC$/);
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Revoke' }).click();
    await expectText('Revoked');
    expect(await page.content()).not.toContain(key);
    await screenshot('key-revoked');

    const refused = await search(key);
    expect(refused.status).toBe(401);

    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(`${t.url}/dashboard/login`);
    await page.goto(`${t.url}/dashboard/keys`);
    expect(page.url()).toBe(`${t.url}/dashboard/login`);
  });

  async function expectText(text: string): Promise<void> {
    await page.getByText(text, { exact: false }).first().waitFor({ timeout: 5000 });
  }
});
