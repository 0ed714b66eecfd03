// Takes screenshots of the real UI for docs/screenshots/: starts what a page needs,
// opens it in Debian's Chromium, light and dark. Usage: node scripts/screenshot.mjs <url> <name> [selector-to-wait-for]
import { chromium } from '@playwright/test';

const [url, name, waitFor = '[data-testid=connection-state]'] = process.argv.slice(2);
if (!url || !name) {
  console.error('usage: node scripts/screenshot.mjs <url> <name> [selector]');
  process.exit(2);
}
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
for (const scheme of ['light', 'dark']) {
  const page = await browser.newPage({ viewport: { width: 900, height: 640 }, colorScheme: scheme, deviceScaleFactor: 1 });
  await page.goto(url);
  await page.waitForSelector(waitFor);
  await page.waitForTimeout(1500);
  await page.screenshot({ path: `docs/screenshots/${name}-${scheme}.png` });
  await page.close();
}
await browser.close();
console.log(`wrote docs/screenshots/${name}-light.png and -dark.png`);
