// The native lab (issue 11): `brrr-lab --small --json tests/e2e/out/brrr-lab.json`,
// run by scripts/test.sh on Mesa's software Vulkan driver (lavapipe) before this
// file, wrote the page's JSON export. Here: every variant in it verified against the
// CPU reference (the fma chain included, f16 where the adapter had it), and the
// page's lab imports it and shows its figures: readouts, the fma table, the findings
// on the x·m chain, and the figures as percentages of a datasheet picked in the
// select. A missing file fails this test (it never passes silently): scripts/test.sh
// stops before it when brrr-lab fails.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createHarness, metric, metrics, pollUntil, OUT_DIR, REPO_ROOT, waitMetric } from './helpers.mjs';

const JSON_PATH = process.env.BRRR_LAB_JSON || path.join(OUT_DIR, 'brrr-lab.json');
const REPEATS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];

let h;
before(async () => {
  h = await createHarness();
});
after(async () => {
  try {
    if (h) h.assertClean();
  } finally {
    if (h) await h.close();
  }
});

function readRun() {
  assert.ok(
    fs.existsSync(JSON_PATH),
    `${path.relative(REPO_ROOT, JSON_PATH)} is missing: run ` +
      '`cargo run --bin brrr-lab -- --small --json tests/e2e/out/brrr-lab.json` first ' +
      '(scripts/test.sh does, on a software Vulkan driver)',
  );
  return JSON.parse(fs.readFileSync(JSON_PATH, 'utf8'));
}

test('brrr-lab wrote a complete run in which every variant verified', () => {
  const run = readRun();
  assert.equal(run.format, 'brrr-lab');
  assert.equal(run.outcome, 'complete', run.reason);
  assert.equal(run.small, true);
  assert.ok(run.notes.some((n) => /Measured natively by brrr-lab/.test(n)), JSON.stringify(run.notes));
  const dts = run.adapter.f16 ? ['f32', 'f16'] : ['f32'];
  // per dtype: copy, x·m and cos fused and eager, fma fused; then the cache
  // sweep's 11 working sets (f32), 64 KiB … 64 MiB
  assert.equal(run.measurements.length, dts.length * (1 + 2 * 2 * 11 + 11) + 11);
  const reads = run.measurements.filter((x) => x.kernel === 'read');
  assert.deepEqual(reads.map((x) => x.elements * 4), [...Array(11)].map((_, k) => 65536 * 2 ** k));
  // the reading of the cliff, in the JSON: sane, and saying the device is the CPU
  assert.ok(run.cache && run.cache.bw > 0, JSON.stringify(run.cache));
  if (run.cache.bytes !== null) {
    assert.ok(run.cache.bytes >= 65536 && run.cache.bytes <= 64 * 2 ** 20, JSON.stringify(run.cache));
    assert.ok(run.cache.mem_bw > 0 && run.cache.bw >= run.cache.mem_bw, JSON.stringify(run.cache));
  }
  if (run.adapter.fallback) assert.match(run.cache.words, /the CPU's caches/, run.cache.words);
  console.log(`# brrr-lab cache sweep: ${run.cache.words}`);
  for (const x of run.measurements) {
    const name = `${x.kernel} ${x.op} ×${x.repeat} (${x.dtype})`;
    assert.equal(x.check, 'passed', `${name}: ${x.detail}`);
    assert.ok(x.samples > 0, name);
    assert.ok(x.times_s.length >= 3 && x.times_s.every((t) => Number.isFinite(t) && t > 0), `${name}: ${x.times_s}`);
  }
  for (const dt of dts) {
    for (const r of REPEATS) {
      assert.ok(run.measurements.some((x) => x.kernel === 'fused' && x.op === 'fma' && x.dtype === dt && x.repeat === r), `fma ×${r} ${dt}`);
    }
  }
  console.log(`# brrr-lab on ${run.adapter.device} (${run.adapter.description}): ${run.measurements.length} variants, f16 ${run.adapter.f16}`);
});

test("the page's lab imports brrr-lab's file and shows its figures beside a datasheet", async () => {
  const run = readRun();
  const page = await h.open('', { label: 'native import' });
  await page.locator('#lab').scrollIntoViewIfNeeded();
  await page.locator('#lab-import').setInputFiles(JSON_PATH);
  await page.locator('#lab-message', { hasText: /Import/ }).waitFor();
  const msg = await page.locator('#lab-message').innerText();
  assert.equal(msg, `Imported ${run.measurements.length} measurements.`);
  assert.equal(await page.locator('.lab-notes').getAttribute('data-outcome'), 'complete');
  assert.match(await page.locator('.lab-notes').innerText(), /Measured natively by brrr-lab/);
  // every headline figure shown, finite and positive
  const names = ['lab_copy_bw', 'lab_peak_flops', 'lab_mul_rate', 'lab_crossover_repeat', 'lab_dispatch_s', 'lab_submit_s'];
  const m = await metrics(page, names);
  for (const k of names) assert.ok(Number.isFinite(m[k]) && m[k] > 0, `${k} = ${m[k]}`);
  // the ceiling is the fma chain's, FMA = 2 FLOP: twice its best ops/s in the file
  const median = (ts) => [...ts].sort((a, b) => a - b)[Math.floor(ts.length / 2)];
  const fmaBest = Math.max(...run.measurements
    .filter((x) => x.kernel === 'fused' && x.op === 'fma' && x.dtype === 'f32')
    .map((x) => (x.elements * x.repeat) / median(x.times_s)));
  assert.ok(Math.abs(m.lab_peak_flops / (2 * fmaBest) - 1) < 1e-9, `${m.lab_peak_flops} vs 2 × ${fmaBest}`);
  // the fma table: every repeat, none failed
  const rows = page.locator('.lab-table[data-op=fma][data-dt=f32] tr[data-repeat]');
  assert.equal(await rows.count(), 11);
  assert.equal(await page.locator('.lab-table td.failed').count(), 0);
  // what the two compute chains say, in words
  assert.match(await page.locator('#lab-findings').innerText(), /x · m chain/);
  // lavapipe is no preset: none guessed, the user picks one and gets percentages
  assert.equal(await page.locator('#lab-preset').inputValue(), '');
  assert.match(await page.locator('#lab-preset-note').innerText(), /does not recognise this adapter/);
  assert.match(await page.locator('#lab-preset-note').innerText(), /an FMA .* counts as 2 FLOP/);
  await page.selectOption('#lab-preset', 'h100-sxm');
  const pct = await pollUntil(page, () => metric(page, 'lab_copy_bw_pct').catch(() => NaN), (v) => Number.isFinite(v));
  assert.ok(Math.abs(pct / (m.lab_copy_bw / 3.35e12) - 1) < 1e-9, `copy ${pct}`);
  const flopsPct = await metric(page, 'lab_peak_flops_pct');
  assert.ok(Math.abs(flopsPct / (m.lab_peak_flops / 67e12) - 1) < 1e-9, `flops ${flopsPct}`);
  const mulPct = await metric(page, 'lab_mul_rate_pct');
  assert.ok(Math.abs(mulPct / (m.lab_mul_rate / 33.5e12) - 1) < 1e-9, `x·m ${mulPct}`);
  assert.match(await page.locator('.lab-vs-datasheet').innerText(), /of the 67 TFLOP\/s fp32 peak of the NVIDIA H100 SXM/);
  assert.match(await page.locator('#lab-preset-note').innerText(), /Chosen by you/);
  await page.locator('#lab').screenshot({ path: path.join(OUT_DIR, 'native-lab-import.png') });
  await page.locator('.lab-results').screenshot({ path: path.join(OUT_DIR, 'native-lab-metrics.png') });
  await page.locator('.lab-datasheet').screenshot({ path: path.join(OUT_DIR, 'native-lab-datasheet.png') });
});

test("a browser run, then brrr-lab's file: the page puts the two side by side", async () => {
  const run = readRun();
  const page = await h.open('?lab_size=small', { label: 'browser vs native' });
  await page.locator('#lab').scrollIntoViewIfNeeded();
  await page.waitForSelector('.lab[data-lab-gpu=ready]', { timeout: 15_000 });
  await page.click('#lab-run');
  const done = await waitMetric(page, 'lab_status', '!==', 'running', 90_000);
  assert.equal(done, 'done', await page.locator('#lab-message').innerText());
  const browser = await metrics(page, ['lab_copy_bw', 'lab_peak_flops']);
  await page.locator('#lab-import').setInputFiles(JSON_PATH);
  await page.locator('#lab-message', { hasText: /Import/ }).waitFor();
  const versus = page.locator('#lab-versus');
  assert.match(await versus.innerText(), /The results now shown \(Mesa .*\) against those shown before the import \(google swiftshader/);
  const native = await metrics(page, ['lab_copy_bw', 'lab_peak_flops']);
  const ratios = await metrics(page, ['lab_versus_copy_bw', 'lab_versus_peak_flops']);
  // the ratios are the imported figures over the browser's, as shown beside them
  assert.ok(Math.abs(ratios.lab_versus_copy_bw / (native.lab_copy_bw / browser.lab_copy_bw) - 1) < 1e-9, JSON.stringify({ ratios, native, browser }));
  assert.ok(Math.abs(ratios.lab_versus_peak_flops / (native.lab_peak_flops / browser.lab_peak_flops) - 1) < 1e-9);
  assert.equal(native.lab_copy_bw > 0 && run.outcome, 'complete');
  await versus.screenshot({ path: path.join(OUT_DIR, 'native-lab-versus.png') });
});
