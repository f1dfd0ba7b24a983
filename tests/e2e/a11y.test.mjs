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
import { useHarness, waitReady, pollUntil, REPO_ROOT, WIDGET_IDS, settle, bounded } from './helpers.mjs';

const AXE = path.join(REPO_ROOT, 'node_modules', 'axe-core', 'axe.min.js');
const h = useHarness();
// Each test here takes 5-40 s on a 2-core machine; a test still running after five
// minutes is stuck, and fails by its own name rather than the file's 10-minute cap.
const STUCK = { timeout: 300_000 };

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
    await settle(page); // the widgets now on screen have been told so and drawn
  }
  await page.evaluate(() => window.scrollTo(0, 0));
}

async function violations(page) {
  await page.addScriptTag({ path: AXE });
  const run = page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({
      rule: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 4).map((n) => `${n.target.join(' ')}: ${(n.failureSummary || '').replace(/\s+/g, ' ').trim()}`),
    }));
  });
  return bounded(run, 120_000, `axe's audit of ${page.url()}`);
}

function assertNone(found, where) {
  const text = found.map((v) => `${v.rule} (${v.impact}): ${v.help}\n      ${v.nodes.join('\n      ')}`).join('\n    ');
  assert.equal(found.length, 0, `${where}: ${found.length} axe violation(s):\n    ${text}`);
}

test('the full page has no axe violations, in light and in dark', STUCK, async () => {
  for (const colorScheme of ['light', 'dark']) {
    const page = await openAudited('', { colorScheme });
    assert.equal(await page.getAttribute('html', 'data-theme'), colorScheme);
    await scrollThrough(page);
    assertNone(await violations(page), `full page, ${colorScheme}`);
    await h.closeContext(page.context());
  }
});

test('every widget embed has no axe violations', STUCK, async () => {
  for (const id of WIDGET_IDS) {
    const page = await openAudited(`?embed=${id}`, { width: 800 });
    assertNone(await violations(page), `?embed=${id}`);
    await h.closeContext(page.context());
  }
});

test('URL notices and a 360 px layout have no axe violations', STUCK, async () => {
  const page = await openAudited('?flops=abc&hw=nope&batch=-3', { width: 360 });
  assert.ok(await page.locator('#url-notices').isVisible(), 'the bad parameters produced notices');
  await scrollThrough(page);
  assertNone(await violations(page), 'notices at 360 px');
  await h.closeContext(page.context());
});

test('the lab after a finished run has no axe violations', STUCK, async () => {
  const page = await openAudited('?embed=lab&lab_size=small&lab_timer=wall', { width: 1000 });
  const status = () => page.locator('.lab').getAttribute('data-lab-status');
  await page.waitForSelector('#lab-run:enabled', { timeout: 15_000 });
  await page.click('#lab-run');
  await page.waitForSelector('.lab[data-lab-status=done], .lab[data-lab-status=failed]', { state: 'attached', timeout: 60_000 });
  assert.equal(await status(), 'done');
  assertNone(await violations(page), 'lab, done');
  await h.closeContext(page.context());
});

test('sliders: a screen reader hears the value in its unit, and keys step it by a sensible factor', STUCK, async () => {
  const page = await h.open('?hw=a100-40gb&dtype=bf16');
  await scrollThrough(page);
  // every slider on the page announces its value as shown, never the raw log position
  const sliders = await page.$$eval('input[type=range]', (rs) => rs.map((r) => ({
    id: r.id,
    text: r.getAttribute('aria-valuetext'),
    raw: r.value,
    box: document.getElementById(r.id.replace(/-slider$/, '-box'))?.value ?? null,
  })));
  assert.ok(sliders.length >= 17, `${sliders.length} sliders`);
  for (const s of sliders) {
    assert.ok(s.text && s.text.trim().length > 0, `${s.id}: aria-valuetext=${s.text}`);
    assert.notEqual(s.text, s.raw, `${s.id}: announces its slider position ${s.raw}`);
    if (s.box !== null) assert.ok(s.text.startsWith(s.box), `${s.id}: "${s.text}" is not the box's "${s.box}"`);
  }
  const spoken = (id) => page.locator(`#${id}-slider`).getAttribute('aria-valuetext');
  const box = (id) => page.locator(`#${id}-box`).inputValue();
  const until = (id, want) => pollUntil(page, () => spoken(id), (t) => t === want);
  assert.equal(await spoken('flops'), '312 TFLOP/s');
  assert.equal(await spoken('llm_context'), '4096 tokens');
  assert.equal(await spoken('llm_batch'), '1 sequence');
  // a count doubles and halves; Page Up/Down take three doublings
  await page.locator('#batch-slider').focus();
  await page.keyboard.press('ArrowRight');
  assert.equal(await until('batch', '512'), '512');
  await page.keyboard.press('PageUp');
  assert.equal(await until('batch', '4096'), '4096');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowDown');
  assert.equal(await until('batch', '1024'), '1024');
  assert.equal(await box('batch'), '1024', 'the number box follows');
  await pollUntil(page, () => page.evaluate(() => location.search), (q) => q.includes('batch=1024'));
  assert.match(await page.evaluate(() => location.search), /batch=1024/);
  // a continuous value walks 1-2-5; Page Down is a decade
  await page.locator('#flops-slider').focus();
  await page.keyboard.press('ArrowUp');
  assert.equal(await until('flops', '500 TFLOP/s'), '500 TFLOP/s');
  await page.keyboard.press('PageDown');
  assert.equal(await until('flops', '50 TFLOP/s'), '50 TFLOP/s');
  // a widget's slider: the llm context doubles, in tokens
  await page.locator('#llm_context-slider').scrollIntoViewIfNeeded();
  await page.locator('#llm_context-slider').focus();
  await page.keyboard.press('ArrowRight');
  assert.equal(await until('llm_context', '8192 tokens'), '8192 tokens');
  await page.locator('#llm_batch-slider').focus();
  await page.keyboard.press('ArrowUp');
  assert.equal(await until('llm_batch', '2 sequences'), '2 sequences');
  await pollUntil(page, () => page.evaluate(() => location.search), (q) => q.includes('llm_batch=2'));
  assert.match(await page.evaluate(() => location.search), /llm_context=8192&.*llm_batch=2|llm_batch=2&.*llm_context=8192/);
  await h.closePage(page);
});
