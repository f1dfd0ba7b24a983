// Issue 30: "What shapes do matrix multiplications like?" (the `shapes` widget).
// One GEMM on the shared GPU priced by the GEMM model: its readouts and keys, the
// vocabulary pair (50257 vs 50304) and the partial wave (1536 vs 1664) as the
// issue's "Done when" says, the regime by the one rule, the pad-to-64 remedy, the
// sweep chart and the SM grid drawn, bad input refused, and a screenshot.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { useHarness, showMore, metric, pollUntil, search, param, readText, typeBox, OUT_DIR } from './helpers.mjs';

const h = useHarness();
const SHOTS = path.join(OUT_DIR, 'shapes');
fs.mkdirSync(SHOTS, { recursive: true });
const W = '#shapes';
const H100 = 'hw=h100-sxm&roof=achievable';
const READOUTS = ['mm_time_s', 'mm_flops', 'mm_waves', 'mm_wave_efficiency', 'mm_tile_efficiency', 'mm_aligned', 'mm_regime'];

async function drawn(page) {
  await page.locator(W).scrollIntoViewIfNeeded();
  return pollUntil(page, () => page.evaluate(() => Number(document.querySelector('#shapes-canvas')?.getAttribute('data-frame') || 0)), (f) => f >= 1);
}

async function shape(page) {
  const out = {};
  for (const r of READOUTS) out[r] = await metric(page, r);
  return out;
}

test('defaults: 4096³ in bf16, every readout present, keys out of the URL', async (t) => {
  await h.withPage(t, H100, async (page) => {
    await showMore(page, W);
    const s = await shape(page);
    const t0 = 2 * 4096 ** 3 / s.mm_flops;
    assert.ok(Math.abs(t0 / s.mm_time_s - 1) < 1e-9, `${t0} vs ${s.mm_time_s}`);
    assert.ok(s.mm_flops > 700e12 && s.mm_flops < 800e12, `${s.mm_flops}`);
    assert.equal(s.mm_aligned, 1);
    assert.equal(s.mm_regime, 'compute');
    assert.ok(s.mm_wave_efficiency > 0 && s.mm_wave_efficiency <= 1);
    assert.ok(s.mm_tile_efficiency > 0 && s.mm_tile_efficiency <= 1);
    assert.ok(Number.isInteger(s.mm_waves) && s.mm_waves >= 1);
    assert.equal(await page.locator('#shapes-hw').inputValue(), 'h100-sxm');
    const q = await search(page);
    for (const k of ['mm_m', 'mm_n', 'mm_k', 'mm_dtype']) assert.equal(param(q, k), null, k);
    assert.ok((await drawn(page)) >= 1);
    assert.equal(await page.locator(`${W} .sm-grid .sm`).count(), 132);
    // how far the model is from the lent GPUs' matmuls, said beside it
    const measured = await readText(page.locator(`${W} .shapes-measured`));
    assert.match(measured, /^Checked against 140 matmuls timed on a lent H100 SXM and H200 .*: 132 within their targets \(15 % from 1 GFLOP, 25 % below\), none beyond 30 %; the largest error, -23 % on 8192 × 768 × 50257 \(H200\), an unaligned shape.*What is left: /);
  });
});

test('the vocabulary pair: 50257 is ≥ 3× slower than 50304, unaligned, and the page says why', async (t) => {
  await h.withPage(t, `${H100}&mm_m=8192&mm_k=768&mm_n=50257`, async (page) => {
    await showMore(page, W);
    const a = await shape(page);
    assert.equal(a.mm_aligned, 0);
    const text = await readText(page.locator(W));
    assert.match(text, /N is not a multiple of 8/);
    assert.match(text, /slow path/);
    const pad = page.locator(`${W} [data-remedy="pad64"]`);
    const speedup = Number(await pad.getAttribute('data-speedup'));
    assert.ok(speedup >= 3, `pad speedup ${speedup}`);
    await pad.click();
    const n = await pollUntil(page, () => page.locator('#mm_n-box').inputValue(), (v) => v === '50304');
    assert.equal(n, '50304');
    const b = await pollUntil(page, () => shape(page), (x) => x.mm_aligned === 1);
    assert.equal(b.mm_aligned, 1);
    assert.ok(a.mm_time_s >= 3 * b.mm_time_s, `${a.mm_time_s} vs ${b.mm_time_s}`);
    assert.equal(param(await search(page), 'mm_n'), '50304');
    await page.locator(W).screenshot({ path: path.join(SHOTS, 'vocab-padded.png') });
  });
});

// Issue 51 item 5: the quoted state. The regime sentence says why the kernel is
// far below its roof and names the remedy that wins (padding, not 2× FLOP/s);
// the waves readout reads as waves.
test('the unaligned vocabulary: far below its roof for alignment, padding helps most, waves read as waves', async (t) => {
  await h.withPage(t, 'hw=h100-sxm&mm_m=8192&mm_n=50257&mm_k=768#shapes', async (page) => {
    await showMore(page, W);
    const s = await shape(page);
    const text = await readText(page.locator(`${W} .shapes-why`));
    assert.match(text, /compute-bound, far below its roof for alignment: padding N to 50304 would help most \([\d.]+×, against [\d.]+× for 2× FLOP\/s\)/);
    assert.doesNotMatch(text, /2× FLOP\/s would help most/);
    const m = text.match(/padding N to 50304 would help most \(([\d.]+)×, against ([\d.]+)×/);
    assert.ok(Number(m[1]) > Number(m[2]), text);
    const pad = Number(await page.locator(`${W} [data-remedy="pad64"]`).getAttribute('data-speedup'));
    assert.ok(Math.abs(pad - Number(m[1])) < 0.01, `${pad} vs ${m[1]}`);
    const waves = await readText(page.locator(`${W} .shapes-readouts`));
    assert.match(waves, new RegExp(`${s.mm_waves} waves on 132 SMs`));
    assert.doesNotMatch(waves, /\d+ of 132 SMs/);
  });
});

test('one more partial wave: N = 1664 reads lower mm_flops, and its waves and tiles fill the GPU worse than 1536', async (t) => {
  await h.withPage(t, `${H100}&mm_m=4096&mm_k=4096&mm_n=1536`, async (page) => {
    await showMore(page, W);
    const a = await shape(page);
    await typeBox(page, 'mm_n', '1664');
    // the box sets the state on every keystroke: wait for the last one's URL
    await pollUntil(page, async () => param(await search(page), 'mm_n'), (v) => v === '1664');
    const b = await shape(page);
    assert.ok(b.mm_flops < a.mm_flops, `${b.mm_flops} vs ${a.mm_flops}`);
    // Hopper's tiles (the lent H100 ran 192×128 at 1536 and 144×128 at 1664) cut
    // 1664 into padded tiles where 1536 is whole ones: the product of the two
    // efficiencies is what drops
    const fill = (x) => x.mm_wave_efficiency * x.mm_tile_efficiency;
    assert.ok(fill(b) < fill(a), `${fill(b)} vs ${fill(a)}`);
  });
});

test('M = 1, K = N = 4096 is memory-bound; the regime follows the one rule', async (t) => {
  await h.withPage(t, `${H100}&mm_m=1`, async (page) => {
    await showMore(page, W);
    assert.equal(await metric(page, 'mm_regime'), 'memory');
    assert.match(await readText(page.locator(W)), /matrix-vector/);
  });
});

test('keys round-trip; bad values are refused with a notice and the defaults kept', async (t) => {
  await h.withPage(t, `${H100}&mm_m=77&mm_n=4097&mm_k=300&mm_dtype=fp8`, async (page) => {
    await showMore(page, W);
    assert.equal(await page.locator('#mm_m-box').inputValue(), '77');
    assert.equal(await page.locator('#mm_dtype').inputValue(), 'fp8');
    const q = await search(page);
    assert.equal(param(q, 'mm_m'), '77');
    assert.equal(param(q, 'mm_dtype'), 'fp8');
    assert.equal(await metric(page, 'mm_aligned'), 0);
  });
  await h.withPage(t, `${H100}&mm_m=0&mm_n=abc&mm_k=70000&mm_dtype=fp4`, async (page) => {
    await showMore(page, W);
    const notices = await readText(page.locator('#url-notices'));
    for (const k of ['mm_m', 'mm_n', 'mm_k', 'mm_dtype']) assert.match(notices, new RegExp(k));
    assert.equal(await page.locator('#mm_n-box').inputValue(), '4096');
  });
});

test('the embed carries its controls and its readouts', async (t) => {
  await h.withPage(t, `embed=shapes&${H100}`, async (page) => {
    await showMore(page, W);
    assert.equal(await page.locator('#shapes-hw').count(), 1);
    for (const r of READOUTS) assert.ok(await metric(page, r) !== null, r);
    await drawn(page);
    await page.screenshot({ path: path.join(SHOTS, 'embed.png'), fullPage: true });
  });
});
