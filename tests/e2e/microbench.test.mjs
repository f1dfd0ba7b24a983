// The repeat microbenchmark (issue 10): its own dtype and tensor-size controls
// (mb_dtype, mb_elems) defaulting to the essay's setting (fp32, 2^28 elements on an
// A100: crossover ≈ 50), launch overhead in every point with an overhead-bound
// region where it leads, sentences that follow the state, and an embed that carries
// its own controls and refers to nothing that is not on it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import {
  useHarness,
  metric,
  canvasHash,
  setSlider,
  pollUntil,
  search,
  param,
  inputValue,
  OUT_DIR,
  readText,
  waitMetric,
  drawnPast,
} from './helpers.mjs';

const h = useHarness();
const SHOTS = path.join(OUT_DIR, 'microbench');
fs.mkdirSync(SHOTS, { recursive: true });

const W = '#microbench';
const text = (page, sel = W) => readText(page.locator(sel));
const regions = (page) => page.locator(`${W} .mb-regions li[data-region]`).evaluateAll((els) => els.map((e) => e.dataset.region));
const options = (page) => page.locator('#mb_dtype option').evaluateAll((els) => els.map((e) => e.value));
const slider = (page) => page.evaluate(() => Number(document.getElementById('mb_elems-slider').value));

async function drawn(page) {
  const sel = '#microbench-canvas';
  await page.locator(W).scrollIntoViewIfNeeded();
  await drawnPast(page, sel);
  return canvasHash(page, sel);
}

test("default: the essay's setting, fp32 and 2^28 elements on an A100, crossover ≈ 50", async (t) => {
  await h.withPage(t, '', async (page) => {
    assert.equal(await inputValue(page, 'mb_dtype'), 'fp32');
    assert.equal(await slider(page), 28);
    assert.deepEqual(await options(page), ['fp32', 'tf32', 'bf16'], 'the A100 has no fp8');
    const cross = await metric(page, 'crossover_repeat');
    assert.ok(Math.abs(cross - 50.16) < 0.05, `crossover ${cross}`);
    assert.equal(await metric(page, 'mb_regime_at_1'), 'memory');
    const share = await metric(page, 'mb_overhead_share_at_1');
    assert.ok(share > 0 && share < 0.01, `overhead share at repeat 1: ${share}`);
    const per = await metric(page, 'fp32_ops_per_element');
    assert.ok(Math.abs(per - 100.3) < 0.1, `fp32 ops per element ${per}`);
    assert.equal(await metric(page, 'mb_ops_per_element'), per);
    assert.deepEqual(await regions(page), ['memory', 'compute']);
    assert.equal(await page.locator(`${W} .mb-regions`).getAttribute('data-overhead-points'), '0');
    const all = await text(page);
    assert.match(all, /2²⁸ = 268 million elements \(1\.07 GB in fp32\)/);
    assert.match(all, /compute-bound at repeat ≈ 50\.2: memory-bound through repeat 32, compute-bound from repeat 64\./);
    assert.match(all, /389 billion numbers/);
    assert.match(all, /about 100 operations/);
    assert.match(all, /crossover sits at half the budget: repeat ≈ 50\.2/);
    assert.match(all, /no point is overhead-bound/);
    assert.doesNotMatch(all, /op count/i);
    // defaults stay out of the URL
    const q = await search(page);
    assert.equal(param(q, 'mb_dtype'), null);
    assert.equal(param(q, 'mb_elems'), null);
    await drawn(page);
  });
});

test('the dtype control changes the readouts, the sentences and the URL', async (t) => {
  await h.withPage(t, '', async (page) => {
    const h0 = await drawn(page);
    await page.selectOption('#mb_dtype', 'bf16');
    const cross = await waitMetric(page, 'crossover_repeat', '<', 40);
    assert.ok(Math.abs(cross - 25.08) < 0.05, `bf16 crossover ${cross}`);
    assert.equal(param(await search(page), 'mb_dtype'), 'bf16');
    const mb = await metric(page, 'mb_ops_per_element');
    assert.ok(Math.abs(mb - 50.16) < 0.05, `bf16 budget ${mb}`);
    // the fp32 readout keeps its meaning (the essay's setting)
    assert.ok(Math.abs((await metric(page, 'fp32_ops_per_element')) - 100.3) < 0.1);
    const all = await text(page);
    assert.match(all, /bf16 \/ fp16 \(2 bytes per element\) memory delivers 2× as many numbers/);
    assert.match(all, /repeat ≈ 25\.1/);
    assert.match(all, /memory-bound through repeat 16, compute-bound from repeat 32/);
    assert.match(all, /2²⁸ = 268 million elements \(537 MB in bf16\)/);
    assert.doesNotMatch(all, /≈ 50\.2/, 'a sentence still speaks of the fp32 crossover');
    const h1 = await pollUntil(page, () => canvasHash(page, '#microbench-canvas'), (x) => x !== h0);
    assert.notEqual(h1, h0, 'the chart did not redraw');
    // the explorer's dtype is a different control and did not move
    assert.equal(await inputValue(page, 'dtype'), 'bf16');
    assert.equal(param(await search(page), 'dtype'), 'bf16');
    await page.selectOption('#dtype', 'fp32');
    await pollUntil(page, () => search(page), (q) => param(q, 'dtype') === 'fp32');
    assert.ok(Math.abs((await metric(page, 'crossover_repeat')) - 25.08) < 0.05, 'the explorer dtype moved the microbenchmark');
  });
});

test('the size control: small tensors are overhead-bound, shaded and said so', async (t) => {
  await h.withPage(t, '', async (page) => {
    const h0 = await drawn(page);
    await setSlider(page, 'mb_elems', 10);
    const share = await waitMetric(page, 'mb_overhead_share_at_1', '>', 0.5);
    assert.ok(share > 0.99, `2^10 elements: overhead share ${share}`);
    assert.equal(param(await search(page), 'mb_elems'), '1024');
    assert.equal(await metric(page, 'mb_regime_at_1'), 'overhead');
    assert.deepEqual(await regions(page), ['overhead']);
    assert.equal(await page.locator(`${W} .mb-regions`).getAttribute('data-overhead-points'), '11');
    assert.match(await text(page), /the whole sweep is overhead-bound/);
    // the kernel's own crossover does not depend on the size
    assert.ok(Math.abs((await metric(page, 'crossover_repeat')) - 50.16) < 0.05);
    const h1 = await pollUntil(page, () => canvasHash(page, '#microbench-canvas'), (x) => x !== h0);
    assert.notEqual(h1, h0);
    await page.screenshot({ path: path.join(SHOTS, 'overhead-2^10.png'), fullPage: false });

    // the case: bf16 and 1 Mi elements, 57 % launch at repeat 1
    await page.selectOption('#mb_dtype', 'bf16');
    await setSlider(page, 'mb_elems', 20);
    const s20 = await waitMetric(page, 'mb_overhead_share_at_1', '<', 0.9);
    assert.ok(s20 > 0.55 && s20 < 0.6, `bf16, 2^20: overhead share ${s20}`);
    assert.deepEqual(await regions(page), ['overhead', 'compute']);
    const n = Number(await page.locator(`${W} .mb-regions`).getAttribute('data-overhead-points'));
    assert.equal(n, 6);
    assert.match(await text(page), /up to repeat ≈ 41\.1, halving its launch \(3\.57 µs\) would shorten the step more than doubling the roof that limits the kernel, so the 6 points there are overhead-bound/);
    const q = await search(page);
    assert.equal(param(q, 'mb_elems'), '1048576');
    assert.equal(param(q, 'mb_dtype'), 'bf16');

    // the keyboard moves the size by powers of two
    await page.locator('#mb_elems-slider').focus();
    await page.keyboard.press('ArrowRight');
    await pollUntil(page, () => search(page), (x) => param(x, 'mb_elems') === '2097152');
    assert.equal(param(await search(page), 'mb_elems'), '2097152');
    assert.match(await page.locator('#mb_elems-slider').getAttribute('aria-valuetext'), /2²¹ = 2\.1 million elements/);
  });
});

test('a link with mb_dtype and mb_elems reopens that state; bad values give a notice and the default', async (t) => {
  await h.withPage(t, '?mb_dtype=tf32&mb_elems=65536', async (page) => {
    assert.equal(await inputValue(page, 'mb_dtype'), 'tf32');
    assert.equal(await slider(page), 16);
    assert.ok(Math.abs((await metric(page, 'crossover_repeat')) - 50.16) < 0.05, 'tf32 stores fp32');
    assert.equal(await metric(page, 'mb_regime_at_1'), 'overhead');
    assert.equal(await page.locator('#url-notices li').count(), 0);
  });
  await h.withPage(t, '?mb_dtype=fp64&mb_elems=12', async (page) => {
    for (const p of ['mb_dtype', 'mb_elems']) {
      assert.equal(await page.locator(`#url-notices li[data-param="${p}"]`).count(), 1, `a notice for ${p}`);
    }
    assert.equal(await inputValue(page, 'mb_dtype'), 'fp32');
    assert.equal(await slider(page), 28);
    assert.ok(Math.abs((await metric(page, 'crossover_repeat')) - 50.16) < 0.05);
  });
});

test('a dtype the preset lacks falls back to fp32 visibly and comes back on a preset that has it', async (t) => {
  await h.withPage(t, '?mb_dtype=fp8', async (page) => {
    const note = page.locator(`${W} .mb-fallback`);
    assert.ok(await note.isVisible(), 'no fallback notice');
    assert.match(await readText(note), /A100 40GB SXM has no fp8 mode, so this widget shows fp32/);
    assert.equal(await inputValue(page, 'mb_dtype'), 'fp32');
    assert.ok(Math.abs((await metric(page, 'crossover_repeat')) - 50.16) < 0.05);
    // H100 SXM has fp8: 1 byte per element, r* = 2·1·33.5e12 / 3.35e12 = 20
    await page.selectOption('#hw', 'h100-sxm');
    const c = await waitMetric(page, 'crossover_repeat', '<', 40);
    assert.ok(Math.abs(c - 20) < 0.05, `H100 fp8 crossover ${c}`);
    assert.equal(await note.count(), 0, 'the notice stayed');
    assert.equal(await inputValue(page, 'mb_dtype'), 'fp8');
    assert.ok((await options(page)).includes('fp8'));
    assert.equal(param(await search(page), 'mb_dtype'), 'fp8');
    // the M2 Max offers fp32 only
    await page.selectOption('#hw', 'm2-max');
    await pollUntil(page, () => options(page), (o) => o.length === 1);
    assert.deepEqual(await options(page), ['fp32']);
    assert.ok(await page.locator(`${W} .mb-fallback`).isVisible());
  });
});

test('embed: the widget carries its own controls and names no other widget', async (t) => {
  await h.withPage(t, '?embed=microbench', async (page) => {
    assert.equal(await page.locator('section.widget').count(), 1);
    assert.ok(await page.locator('#mb_dtype').isVisible(), 'no dtype control in the embed');
    assert.ok(await page.locator('#mb_elems-slider').isVisible(), 'no size control in the embed');
    const all = await text(page);
    assert.doesNotMatch(all, /explorer|op count|slider above|widget above/i);
    assert.ok(Math.abs((await metric(page, 'crossover_repeat')) - 50.16) < 0.05);
    await page.selectOption('#mb_dtype', 'bf16');
    await waitMetric(page, 'crossover_repeat', '<', 40);
    assert.equal(param(await search(page), 'mb_dtype'), 'bf16');
    await page.screenshot({ path: path.join(SHOTS, 'embed-720.png'), fullPage: true });
  }, { viewport: { width: 720, height: 900 } });
  // the suggested iframe height fits the widget at 720 px in its tallest states
  // (the fallback notice; a small bf16 tensor, with the longest sentences)
  for (const q of ['mb_dtype=fp8&mb_elems=1048576', 'mb_dtype=bf16&mb_elems=1048576&hw=h100-pcie']) {
    await h.withPage(t, `?embed=microbench&${q}`, async (page) => {
      const want = Number(await page.locator('section.widget').getAttribute('data-embed-height'));
      await drawn(page);
      const got = await page.evaluate(() => document.documentElement.scrollHeight);
      assert.ok(got <= want, `${q}: the embed needs ${got}px, the snippet says ${want}`);
    }, { viewport: { width: 720, height: 600 } });
  }
});

test('the full page: no widget text about the explorer that an embed would miss', async (t) => {
  await h.withPage(t, '?mb_elems=1024', async (page) => {
    await drawn(page);
    assert.doesNotMatch(await text(page), /explorer|op count/i);
    await page.locator(W).screenshot({ path: path.join(SHOTS, 'page-2^10.png') });
  });
});
