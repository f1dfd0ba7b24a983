// The WebGPU lab (issue 4), in headless Chromium on SwiftShader (helpers.mjs launches
// it with --enable-unsafe-webgpu --use-webgpu-adapter=swiftshader). Runs at the small
// test size (?lab_size=small) so the whole file stays well under a minute:
// - a full run completes, every variant verifies against the CPU reference, results
//   are finite and positive, fused is not slower than eager from repeat 8 on, the
//   progress bar reaches 100 %, JSON and CSV export/import round-trip exactly, and
//   the results survive a reload (and corrupt saved data is reported, not deleted);
// - without WebGPU the fallback text shows and the rest of the page works;
// - a cancelled run (timed with the wall clock, to cover that path) leaves the page
//   usable and keeps its partial results, marked partial;
// - a device lost mid-run (window.__brrrLabLoseDevice) is reported and survived.
// Like every file, the after hook asserts no console errors/warnings and no request
// off the page's origin.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createHarness, metric, metrics, pollUntil, setSlider, frame, OUT_DIR, waitReady,
} from './helpers.mjs';

const READOUTS = ['lab_copy_bw', 'lab_peak_flops', 'lab_crossover_repeat', 'lab_dispatch_s', 'lab_submit_s'];
const SHOTS = path.join(OUT_DIR, 'lab');

let h;
before(async () => {
  fs.rmSync(SHOTS, { recursive: true, force: true });
  fs.mkdirSync(SHOTS, { recursive: true });
  h = await createHarness();
});
after(async () => {
  try {
    if (h) h.assertClean();
  } finally {
    if (h) await h.close();
  }
});

async function openLab(query = '?lab_size=small', opts = {}) {
  const page = await h.open(query, opts);
  await page.locator('#lab').scrollIntoViewIfNeeded(); // the lab probes WebGPU once seen
  await page.waitForSelector('.lab[data-lab-gpu=ready], .lab[data-lab-gpu=missing]', { timeout: 15_000 });
  return page;
}

const status = (page) => metric(page, 'lab_status');
const progress = (page) => metric(page, 'lab_progress');

/** Wait until the run is no longer running (or time out). */
async function settled(page, timeout = 45_000) {
  return pollUntil(() => status(page), (s) => s !== 'running', { timeout, interval: 100 });
}

/** Click an export button and return the downloaded text. */
async function exportText(page, id) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(`#${id}`)]);
  const file = path.join(SHOTS, dl.suggestedFilename());
  await dl.saveAs(file);
  return { file, text: fs.readFileSync(file, 'utf8') };
}

async function importFile(page, file) {
  await page.setInputFiles('#lab-import', file);
  await pollUntil(() => page.locator('#lab-message').innerText(), (m) => /Import/.test(m));
  return page.locator('#lab-message').innerText();
}

const perElement = (m) => {
  const t = [...m.times_s].sort((a, b) => a - b);
  return t[Math.floor(t.length / 2)] / m.elements;
};

test('a full small run completes, verifies, and round-trips through export, import and reload', async () => {
  const page = await openLab('?lab_size=small');
  assert.equal(await status(page), 'idle');
  assert.match(await page.locator('#lab-adapter').innerText(), /swiftshader/i);
  const t0 = Date.now();
  await page.click('#lab-run');
  assert.equal(await status(page), 'running');
  assert.ok(await page.locator('#lab-cancel').isVisible(), 'Cancel shows while running');
  // the page stays responsive while the GPU works
  const lags = [];
  while ((await status(page)) === 'running' && Date.now() - t0 < 45_000) {
    const t = Date.now();
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
    lags.push(Date.now() - t);
    await new Promise((r) => setTimeout(r, 100));
  }
  const seconds = (Date.now() - t0) / 1000;
  assert.equal(await status(page), 'done', await page.locator('#lab-message').innerText());
  lags.sort((a, b) => a - b);
  assert.ok(lags[Math.floor(lags.length * 0.95)] < 250, `page froze: p95 frame wait ${lags[Math.floor(lags.length * 0.95)]} ms`);
  assert.equal(await progress(page), 1);
  assert.equal(await page.evaluate(() => document.getElementById('lab-progress').value), 1);
  await page.locator('#lab').screenshot({ path: path.join(SHOTS, 'lab-done-1280.png') });

  const m = await metrics(page, READOUTS);
  for (const k of READOUTS) assert.ok(Number.isFinite(m[k]) && m[k] > 0, `${k} = ${m[k]}`);
  console.log(`# small run: ${seconds.toFixed(1)} s; ${JSON.stringify(m)}`);

  // every variant verified, times finite and positive, fusion pays from repeat 8 on
  const a = await exportText(page, 'lab-export-json');
  const run = JSON.parse(a.text);
  assert.equal(run.outcome, 'complete');
  assert.equal(run.small, true);
  assert.equal(run.measurements.length, 1 + 2 * 2 * 11 + 11, 'copy + fused/eager × mul/cos × 11 repeats + fused fma × 11');
  for (const x of run.measurements) {
    const name = `${x.kernel} ${x.op} ×${x.repeat}`;
    assert.equal(x.check, 'passed', `${name}: ${x.detail}`);
    assert.ok(x.samples > 0, name);
    assert.ok(x.times_s.length >= 3 && x.times_s.every((t) => Number.isFinite(t) && t > 0), `${name}: ${x.times_s}`);
  }
  for (const op of ['mul', 'cos']) {
    for (const r of [8, 16, 32, 64, 128, 256, 512, 1024]) {
      const f = run.measurements.find((x) => x.kernel === 'fused' && x.op === op && x.repeat === r);
      const e = run.measurements.find((x) => x.kernel === 'eager' && x.op === op && x.repeat === r);
      assert.ok(perElement(f) <= perElement(e), `${op} ×${r}: fused ${perElement(f)} s/elem slower than eager ${perElement(e)}`);
    }
  }
  for (const o of ['dispatch_s', 'submit_s', 'roundtrip_s']) {
    assert.ok(run.overheads[o].length > 0 && run.overheads[o].every((t) => Number.isFinite(t) && t >= 0), o);
  }
  // the table shows every repeat, with a speedup ≥ 1 from repeat 8
  const speedups = await page.$$eval('.lab-table[data-op=mul][data-dt=f32] tr[data-repeat]', (rows) =>
    rows.map((r) => [Number(r.dataset.repeat), Number(r.dataset.speedup)]),
  );
  assert.equal(speedups.length, 11);
  for (const [r, s] of speedups) if (r >= 8) assert.ok(s >= 1, `speedup ${s} at ×${r}`);
  assert.ok(Number(await page.locator('#lab-roofline').getAttribute('data-frame')) >= 1, 'roofline drawn');

  // legible at 1440 and 390 px, without horizontal page scroll (tables scroll)
  for (const [w, hgt] of [[1440, 900], [390, 844]]) {
    await page.setViewportSize({ width: w, height: hgt });
    await page.locator('#lab').scrollIntoViewIfNeeded();
    await pollUntil(() => page.evaluate(() => document.documentElement.scrollWidth), (sw) => sw <= w, { timeout: 2000 });
    const sw = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(sw <= w, `horizontal scroll at ${w} px: ${sw}`);
    await page.waitForTimeout(300); // the chart redraws at the new width
    await page.locator('#lab').screenshot({ path: path.join(SHOTS, `lab-${w}.png`) });
  }
  await page.setViewportSize({ width: 1280, height: 800 });

  // JSON and CSV round trips: import → export gives the same bytes
  const csv = await exportText(page, 'lab-export-csv');
  assert.match(csv.text, /^# brrr-lab v1\n# \{/);
  assert.match(await importFile(page, csv.file), /Imported 56 measurements/);
  assert.equal((await exportText(page, 'lab-export-json')).text, a.text, 'CSV import → JSON export is exact');
  assert.equal((await exportText(page, 'lab-export-csv')).text, csv.text, 'CSV round trip');
  assert.match(await importFile(page, a.file), /Imported/);
  assert.equal((await exportText(page, 'lab-export-json')).text, a.text, 'JSON round trip');

  // "Use my GPU" loads the measured ceilings into the explorer
  await page.click('#lab-use');
  assert.match(await page.locator('#lab-applied').innerText(), /explorer now describes this GPU/);
  assert.equal(await page.locator('#dtype').inputValue(), 'fp32');
  const bw = await page.evaluate(() => new URLSearchParams(location.search).get('bw'));
  const want = Math.min(1e15, Math.max(1e9, m.lab_copy_bw)); // clamped to the explorer's limits
  assert.ok(Math.abs(Number(bw) / want - 1) < 1e-6, `bw ${bw} vs ${want}`);
  // it is the measured GPU now, named after the adapter, not the preset it replaced
  const q = await page.evaluate(() => Object.fromEntries(new URLSearchParams(location.search)));
  assert.equal(q.hw, 'measured');
  assert.ok((q.gpu || '').length > 0, `adapter name in the URL: ${JSON.stringify(q)}`);
  assert.match(await page.locator('#hw option:checked').innerText(), /^Measured: /);
  assert.match(await page.locator('.controls .source').innerText(), /Measured by brrr's lab/);
  // widgets that need tensor-core numbers say they do not know them
  await page.locator('#tensor-cores').scrollIntoViewIfNeeded();
  assert.match(await pollUntil(() => page.locator('#tensor-cores .takeaway').innerText(), (t) => /Measured/.test(t)),
    /does not know its tensor-core rates/);
  assert.equal(await page.locator('#diagnosis li[data-remedy="tensor"]').getAttribute('data-applicable'), '0');
  assert.match(await page.locator('#diagnosis li[data-remedy="tensor"]').innerText(), /lab measures fp32 only/);
  // Reset restores the defaults (and the datasheet preset)
  await page.locator('#reset').click();
  assert.equal(await pollUntil(() => page.locator('#hw').inputValue(), (v) => v !== 'measured'), 'a100-40gb');
  assert.equal(await page.evaluate(() => new URLSearchParams(location.search).get('hw')), 'a100-40gb');
  assert.equal(await page.evaluate(() => new URLSearchParams(location.search).get('gpu')), null);

  // results survive a reload
  await page.reload();
  await page.waitForSelector('html[data-ready="1"]', { state: 'attached' });
  await pollUntil(() => metric(page, 'lab_copy_bw'), (v) => v === m.lab_copy_bw);
  assert.deepEqual(await metrics(page, READOUTS), m);
  assert.equal(await status(page), 'done');
  assert.equal((await exportText(page, 'lab-export-json')).text, a.text, 'reload keeps the exact run');

  // corrupt saved data: reported, left in place, the page still works
  await page.evaluate(() => localStorage.setItem('brrr.lab.v1', '{"format":"brrr-lab",'));
  await page.reload();
  await page.waitForSelector('html[data-ready="1"]', { state: 'attached' });
  assert.match(await page.locator('#lab-message').innerText(), /could not be read/);
  assert.equal(await page.evaluate(() => localStorage.getItem('brrr.lab.v1')), '{"format":"brrr-lab",');
  assert.equal(await metric(page, 'lab_status'), 'idle');
});

test('without WebGPU the lab says so and the page keeps working', async () => {
  const page = await h.open('?lab_size=small', { label: 'no webgpu' });
  await page.context().addInitScript(() => {
    Object.defineProperty(Navigator.prototype, 'gpu', { get: () => undefined, configurable: true });
  });
  await page.reload();
  await waitReady(page);
  await page.locator('#lab').scrollIntoViewIfNeeded();
  await page.waitForSelector('.lab[data-lab-gpu=missing]', { timeout: 15_000 });
  assert.equal(await status(page), 'unsupported');
  assert.match(await page.locator('#lab-fallback').innerText(), /does not offer WebGPU/);
  assert.equal(await page.locator('#lab-run').isVisible(), false);
  // the explorer still reacts (charts redraw while on screen: scroll back to it)
  await page.locator('#roofline-canvas').scrollIntoViewIfNeeded();
  const before = await frame(page);
  await setSlider(page, 'batch', 10);
  await pollUntil(() => frame(page), (f) => f > before);
  assert.ok((await frame(page)) > before);
  await page.locator('#lab').scrollIntoViewIfNeeded();
  await page.locator('#lab').screenshot({ path: path.join(SHOTS, 'lab-no-webgpu.png') });
});

test('a cancelled run keeps its partial results and leaves the page usable (wall-clock timing)', async () => {
  const page = await openLab('?lab_size=small&lab_timer=wall');
  await page.click('#lab-run');
  await pollUntil(() => progress(page), (p) => p >= 0.3, { timeout: 30_000, interval: 50 });
  await page.click('#lab-cancel');
  assert.equal(await settled(page), 'cancelled');
  const outcome = await page.locator('.lab-notes').getAttribute('data-outcome');
  assert.equal(outcome, 'cancelled');
  assert.match(await page.locator('#lab-message').innerText(), /Cancelled/);
  const { text } = await exportText(page, 'lab-export-json');
  const run = JSON.parse(text);
  assert.equal(run.timer, 'wallclock');
  assert.ok(run.measurements.length > 2 && run.measurements.length < 45, `${run.measurements.length} measurements`);
  for (const x of run.measurements) {
    assert.equal(x.check, 'passed', x.detail);
    assert.ok(x.times_s.every((t) => Number.isFinite(t) && t > 0), `${x.kernel} ${x.op} ×${x.repeat}: ${x.times_s}`);
  }
  assert.ok((await metric(page, 'lab_copy_bw')) > 0);
  // usable: Run shows again and the explorer (scrolled back into view) reacts
  assert.ok(await page.locator('#lab-run').isVisible());
  await page.locator('#roofline-canvas').scrollIntoViewIfNeeded();
  const before = await frame(page);
  await setSlider(page, 'batch', 12);
  await pollUntil(() => frame(page), (f) => f > before);
  assert.ok((await frame(page)) > before);
});

test('a device lost mid-run is reported, partial results are kept, and a new run can start', async () => {
  const page = await openLab('?lab_size=small');
  await page.click('#lab-run');
  await pollUntil(() => progress(page), (p) => p >= 0.25, { timeout: 30_000, interval: 50 });
  const hooked = await page.evaluate(() => {
    if (typeof window.__brrrLabLoseDevice !== 'function') return false;
    window.__brrrLabLoseDevice();
    return true;
  });
  assert.ok(hooked, 'the test hook exists during a run');
  assert.equal(await settled(page), 'partial');
  assert.match(await page.locator('#lab-message').innerText(), /device was lost/);
  assert.equal(await page.locator('.lab-notes').getAttribute('data-outcome'), 'partial');
  assert.ok((await metric(page, 'lab_copy_bw')) > 0, 'measurements before the loss are kept');
  assert.equal(await page.evaluate(() => typeof window.__brrrLabLoseDevice), 'undefined', 'hook removed');
  await page.locator('#lab').screenshot({ path: path.join(SHOTS, 'lab-device-lost.png') });
  // a fresh device: run again, then cancel
  await page.click('#lab-run');
  assert.equal(await status(page), 'running');
  await pollUntil(() => progress(page), (p) => p > 0.05, { timeout: 30_000, interval: 50 });
  await page.click('#lab-cancel');
  assert.equal(await settled(page), 'cancelled');
});
