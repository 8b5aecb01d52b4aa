// Debian's Chromium driven by playwright-core, for the browser tests.
import { type Browser, chromium } from 'playwright-core';

/** Where Debian installs Chromium (`apt-get install chromium`). */
export const CHROMIUM = '/usr/bin/chromium';

/** Launches headless Chromium with the flags CI needs. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}
