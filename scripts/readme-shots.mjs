// Regenerate the README's screenshots from the built dist/ (after a release build):
//   node scripts/readme-shots.mjs [ID …]   (only those widgets' embeds)
// docs/img/explorer.png: the page at 1280×800; docs/img/embeds/<id>.png: each
// widget's embed (?embed=<id>) at 520 px wide, its whole height, light theme, reduced
// motion (so the factory shows its still frame).
import fs from 'node:fs';
import path from 'node:path';
import { createHarness, waitReady, REPO_ROOT, WIDGET_IDS } from '../tests/e2e/helpers.mjs';

const IMG = path.join(REPO_ROOT, 'docs', 'img');
fs.mkdirSync(path.join(IMG, 'embeds'), { recursive: true });

const h = await createHarness();
try {
  const shoot = async (query, file, { width, height, element, tall }) => {
    const ctx = await h.browser.newContext({ colorScheme: 'light', reducedMotion: 'reduce', viewport: { width, height } });
    try {
      const page = await ctx.newPage();
      await page.goto(h.url + query);
      await waitReady(page);
      await page.waitForTimeout(400); // charts draw on the next frames
      // the trace widget's example is parsed by its worker once it is on screen
      if (query.includes('embed=trace')) await page.waitForSelector('[data-trace-state=example]', { timeout: 60_000 });
      // the serve and shapes widgets mount from their own module
      if (/embed=(serve|shapes)\b/.test(query)) await page.waitForSelector('.more-app > *', { timeout: 60_000 });
      // charts draw only near the screen: show the whole page at once, then wait
      // until every canvas has drawn
      if (element || tall) {
        const full = await page.evaluate(() => Math.ceil(document.documentElement.getBoundingClientRect().height));
        await page.setViewportSize({ width, height: Math.min(full, 8000) });
        // (a canvas in a closed fold is never drawn)
        await page.waitForFunction(() => [...document.querySelectorAll('canvas[data-frame]')].filter((c) => !c.closest('details:not([open])')).every((c) => Number(c.dataset.frame) >= 1), null, { timeout: 60_000 });
        await page.waitForTimeout(200);
      }
      if (element) await page.locator(element).screenshot({ path: file });
      else await page.screenshot({ path: file });
      console.log(path.relative(REPO_ROOT, file));
    } finally {
      await ctx.close();
    }
  };
  // `node scripts/readme-shots.mjs ID …`: only those widgets' embeds
  const only = process.argv.slice(2);
  if (!only.length) {
    await shoot('', path.join(IMG, 'explorer.png'), { width: 1280, height: 800 });
    await shoot('?embed=trace', path.join(IMG, 'trace.png'), { width: 720, height: 1000, tall: true });
  }
  for (const id of only.length ? only : WIDGET_IDS) {
    await shoot(`?embed=${id}`, path.join(IMG, 'embeds', `${id}.png`), { width: 520, height: 800, element: 'main' });
  }
} finally {
  await h.close();
}
