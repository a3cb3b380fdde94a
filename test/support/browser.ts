import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, chromium } from 'playwright-core';

/** Debian's Chromium, installed by the test command's set-up (scripts/test-setup). */
export const CHROMIUM = process.env.FRESHFACTS_CHROMIUM ?? '/usr/bin/chromium';
/** Screenshots the browser stories leave behind for people to look at. */
export const ARTIFACTS = join(__dirname, '..', '..', 'test-artifacts');

/**
 * Headless Chromium as the machine allows it: as root it needs --no-sandbox, and
 * with the background-networking flags off it would try to reach Google's hosts,
 * which this closed network refuses. Playwright gives it a fresh, empty profile.
 */
export async function launchChromium(): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
