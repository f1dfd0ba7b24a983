// Accessibility audit with axe-core (the engine behind Lighthouse's accessibility
// score) over the real built page: the full page in light and dark, every widget's
// embed, a page with URL notices, and the lab after a run. Any violation fails,
// with its rule, the element and what to fix.
//
// The contexts here bypass the page's Content-Security-Policy, only so that the
// auditor's script can be injected; the policy itself is tested in
// robustness.test.mjs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { useHarness, waitReady, pollUntil, REPO_ROOT, WIDGET_IDS } from './helpers.mjs';

const AXE = path.join(REPO_ROOT, 'node_modules', 'axe-core', 'axe.min.js');
const h = useHarness();

async function openAudited(query, { colorScheme = 'light', width = 1280 } = {}) {
  const ctx = await h.browser.newContext({ colorScheme, bypassCSP: true, viewport: { width, height: 900 } });
  const page = await ctx.newPage();
  await page.goto(h.url + query);
  await waitReady(page);
  return page;
}

/** Scroll through the page so every gated widget renders its current view. */
async function scrollThrough(page) {
  const height = await page.evaluate(() => document.body.scrollHeight);
  for (let y = 0; y < height; y += 700) {
    await page.evaluate((y) => window.scrollTo(0, y), y);
    await page.waitForTimeout(60);
  }
  await page.evaluate(() => window.scrollTo(0, 0));
}

async function violations(page) {
  await page.addScriptTag({ path: AXE });
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({
      rule: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 4).map((n) => `${n.target.join(' ')}: ${(n.failureSummary || '').replace(/\s+/g, ' ').trim()}`),
    }));
  });
}

function assertNone(found, where) {
  const text = found.map((v) => `${v.rule} (${v.impact}): ${v.help}\n      ${v.nodes.join('\n      ')}`).join('\n    ');
  assert.equal(found.length, 0, `${where}: ${found.length} axe violation(s):\n    ${text}`);
}

test('the full page has no axe violations, in light and in dark', async () => {
  for (const colorScheme of ['light', 'dark']) {
    const page = await openAudited('', { colorScheme });
    assert.equal(await page.getAttribute('html', 'data-theme'), colorScheme);
    await scrollThrough(page);
    assertNone(await violations(page), `full page, ${colorScheme}`);
    await page.context().close();
  }
});

test('every widget embed has no axe violations', async () => {
  for (const id of WIDGET_IDS) {
    const page = await openAudited(`?embed=${id}`, { width: 800 });
    assertNone(await violations(page), `?embed=${id}`);
    await page.context().close();
  }
});

test('URL notices and a 360 px layout have no axe violations', async () => {
  const page = await openAudited('?flops=abc&hw=nope&batch=-3', { width: 360 });
  assert.ok(await page.locator('#url-notices').isVisible(), 'the bad parameters produced notices');
  await scrollThrough(page);
  assertNone(await violations(page), 'notices at 360 px');
  await page.context().close();
});

test('the lab after a finished run has no axe violations', async () => {
  const page = await openAudited('?embed=lab&lab_size=small&lab_timer=wall', { width: 1000 });
  const status = () => page.locator('.lab').getAttribute('data-lab-status');
  await pollUntil(() => page.locator('#lab-run').isEnabled(), (v) => v, { timeout: 15_000 });
  await page.click('#lab-run');
  assert.equal(await pollUntil(status, (s) => s === 'done' || s === 'failed', { timeout: 60_000, interval: 200 }), 'done');
  assertNone(await violations(page), 'lab, done');
  await page.context().close();
});
