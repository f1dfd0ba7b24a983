// The WebGPU lab (issue 4), in headless Chromium on SwiftShader (helpers.mjs launches
// it with --enable-unsafe-webgpu --use-webgpu-adapter=swiftshader). Runs at the small
// test size (?lab_size=small) so the whole file stays well under a minute:
// - a full run completes, every variant verifies against the CPU reference, results
//   are finite and positive, fused is not slower than eager from repeat 8 on, the
//   progress bar reaches 100 %, JSON and CSV export/import round-trip exactly, and
//   the results survive a reload (and corrupt saved data is reported, not deleted);
// - without WebGPU the fallback text shows and the rest of the page works;
// - fused and eager at repeat 1 are the same kernel: no speedup is claimed there;
//   every time and headline figure shows its spread, the crossover is said in
//   words, and a noisy variant (an imported run) is marked in the table, the notes
//   and both exports;
// - a cancelled run (timed with the wall clock, to cover that path) leaves the page
//   usable and keeps its partial results, marked partial, and its progress line
//   says "cancelled";
// - a device lost mid-run (window.__brrrLabLoseDevice) is reported and survived.
// Like every file, the after hook asserts no console errors/warnings and no request
// off the page's origin.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  createHarness,
  metric,
  metrics,
  pollUntil,
  setSlider,
  frame,
  OUT_DIR,
  waitReady,
  param,
  search,
  readText,
  waitMetric,
  drawnPast,
  settle,
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
  return waitMetric(page, 'lab_status', '!==', 'running', timeout);
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
  await pollUntil(page, () => page.locator('#lab-message').innerText(), (m) => /Import/.test(m));
  return page.locator('#lab-message').innerText();
}

const perElement = (m) => {
  const t = [...m.times_s].sort((a, b) => a - b);
  return t[Math.floor(t.length / 2)] / m.elements;
};

/**
 * The cache sweep of a finished small run: 11 working sets 64 KiB … 64 MiB, each
 * verified; the chart drawn with a point per working set; the readouts sane (the
 * cliff within the swept range, the cache's bandwidth ≥ memory's) and agreeing
 * with the export's reading; the words naming the (software) device measured.
 */
async function checkCliff(page, run) {
  const reads = run.measurements.filter((x) => x.kernel === 'read');
  assert.deepEqual(reads.map((x) => x.elements * 4), [...Array(11)].map((_, k) => 65536 * 2 ** k));
  for (const x of reads) assert.equal(x.check, 'passed', `read ${x.elements * 4} B: ${x.detail}`);
  const section = page.locator('#lab-cliff-section');
  await section.scrollIntoViewIfNeeded();
  assert.ok(await section.isVisible(), 'the cache cliff shows after a run');
  const geo = JSON.parse(await pollUntil(page,
    () => page.evaluate(() => document.querySelector('#lab-cliff-section .marks')?.getAttribute('data-geometry') ?? null),
    (v) => v !== null && JSON.parse(v).areas.length > 0));
  assert.equal(geo.areas.length, 1);
  assert.equal(await page.locator('#lab-cliff-section .mark[data-mark="working-set"]').count(), 11, 'a point per working set');
  assert.equal(geo.lines.filter((l) => l.name === 'fast-plateau').length, 1, JSON.stringify(geo.lines));
  const c = await metrics(page, ['lab_cache_bw', 'lab_cache_bytes', 'lab_mem_bw']);
  console.log(`# cache sweep: ${JSON.stringify(c)}; ${run.cache && run.cache.words}`);
  assert.ok(Number.isFinite(c.lab_cache_bw) && c.lab_cache_bw > 0, `lab_cache_bw ${c.lab_cache_bw}`);
  assert.ok(run.cache && Math.abs(run.cache.bw / c.lab_cache_bw - 1) < 1e-12, 'the export carries the same reading');
  const words = await page.locator('#lab-cliff-words').innerText();
  assert.match(words, /^About [\d.]+ [kMGT]?B\/s /, words);
  assert.match(words, /is a software adapter running on the CPU, so these are the CPU's caches/, words);
  assert.match(words, /swiftshader/i, 'the words name the device measured');
  if (c.lab_cache_bytes === '') {
    // no cliff within 64 KiB … 64 MiB: said so, and no memory level claimed
    assert.match(words, /no cache cliff within the sizes measured/, words);
    assert.equal(c.lab_mem_bw, '');
  } else {
    assert.ok(c.lab_cache_bytes >= 65536 && c.lab_cache_bytes <= 64 * 2 ** 20, `lab_cache_bytes ${c.lab_cache_bytes}`);
    assert.ok(c.lab_mem_bw > 0 && c.lab_cache_bw >= c.lab_mem_bw, JSON.stringify(c));
    assert.equal(geo.lines.filter((l) => l.name === 'cliff').length, 1, 'the cliff is marked');
    assert.ok(Math.abs(geo.lines.find((l) => l.name === 'cliff').from[0] / c.lab_cache_bytes - 1) < 1e-9);
  }
  await section.screenshot({ path: path.join(SHOTS, 'lab-cliff.png') });
}

test("the lab's own module is fetched only once the widget is on screen", async () => {
  const label = 'lab on demand';
  const page = await h.open('?lab_size=small', { label });
  const mine = () => h.requests.filter((r) => r.label === label && /brrr-lab-ui/.test(r.url)).map((r) => r.url);
  assert.deepEqual(mine(), [], 'nothing of the lab is fetched before it is on screen');
  assert.equal(await page.locator('#lab [data-lab-load]').getAttribute('data-lab-load'), 'loading');
  await page.locator('#lab').scrollIntoViewIfNeeded();
  await page.waitForSelector('.lab[data-lab-gpu=ready], .lab[data-lab-gpu=missing]', { timeout: 15_000 });
  assert.ok(mine().some((u) => u.endsWith('brrr-lab-ui_bg.wasm')), "the lab's own wasm, once shown");
  assert.equal(await page.locator('#lab [data-lab-load]').count(), 0, 'the stand-in is gone');
  await h.closePage(page);
});

test('a full small run completes, verifies, and round-trips through export, import and reload', async () => {
  const page = await openLab('?lab_size=small');
  assert.equal(await status(page), 'idle');
  assert.match(await page.locator('#lab-adapter').innerText(), /swiftshader/i);
  const t0 = Date.now();
  await page.click('#lab-run');
  assert.equal(await status(page), 'running');
  assert.ok(await page.locator('#lab-cancel').isVisible(), 'Cancel shows while running');
  // wait for the page's own signal (the status leaves `running`); the cap only
  // stops a hung run, far beyond any real one (how responsive the page stays
  // meanwhile is a timing: lab-bench.mjs reports it)
  await waitMetric(page, 'lab_status', '!==', 'running', 600_000);
  const seconds = (Date.now() - t0) / 1000;
  assert.equal(await status(page), 'done', await page.locator('#lab-message').innerText());
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
  assert.equal(run.measurements.length, 1 + 2 * 2 * 11 + 11 + 11, 'copy + fused/eager × mul/cos × 11 repeats + fused fma × 11 + the cache sweep\'s 11 working sets');
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
  // repeat 1: fused and eager are the same kernel, so no speedup is claimed
  for (const table of await page.locator('.lab-table').all()) {
    const one = table.locator('tr[data-repeat="1"]');
    assert.equal(await one.getAttribute('data-speedup'), null, 'repeat 1 has no speedup');
    assert.equal(await one.getAttribute('data-same-kernel'), '1');
    assert.equal(await one.locator('td.speedup').innerText(), 'same kernel');
    assert.doesNotMatch(await one.innerText(), /\d×/, 'no "1×" or similar at repeat 1');
  }
  // spreads shown with the figures: every time in the tables, the headline readouts
  // (mul and cos: fused and eager; the fma chain is fused only, its eager cells "–")
  const times = await page.$$eval('.lab-table:not([data-op=fma]) tbody tr', (rows) => rows.flatMap((r) => [r.cells[1].innerText, r.cells[2].innerText]));
  assert.equal(times.length, 2 * 2 * 11);
  const fma = await page.$$eval('.lab-table[data-op=fma][data-dt=f32] tbody tr', (rows) => rows.map((r) => [r.cells[1].innerText, r.cells[2].innerText]));
  assert.equal(fma.length, 11);
  for (const [f, e] of fma) {
    assert.match(f, /^[\d.]+ [a-zµ]*s ±\d+ %( \(noisy\))?$/, `fma time cell "${f}"`);
    assert.equal(e, '–', 'the fma chain has no eager variant');
  }
  for (const t of times) assert.match(t, /^[\d.]+ [a-zµ]*s ±\d+ %( \(noisy\))?$/, `time cell "${t}"`);
  for (const k of ['lab_copy_bw', 'lab_peak_flops', 'lab_dispatch_s', 'lab_submit_s', 'lab_encode_s']) {
    assert.match(await page.locator(`[data-metric=${k}]`).innerText(), / ±\d+ %( \(noisy\))?$/, `${k} without its spread`);
  }
  // the crossover in words, not "110 (slower from ×16)"
  const cross = await page.locator('[data-metric=lab_crossover_repeat]').innerText();
  assert.match(cross, /^(about [\d.]+ ops per element|not reached)$/, cross);
  const crossNote = page.locator('#lab-crossover-note');
  if (cross === 'not reached') assert.match(await crossNote.innerText(), /^Still memory-bound at \d+ ops per element, the most measured\.$/);
  else {
    // a crossover found is always explained: a missing note fails
    assert.equal(await crossNote.count(), 1, `crossover ${cross} without #lab-crossover-note`);
    assert.match(await crossNote.innerText(), /rose 25 % above its memory-bound time at \d+ ops? per element\.$/);
  }
  // whatever was noisy is said in the notes, with its spread, and nothing else is
  const noisyRows = await page.locator('.lab-table tr[data-noisy="1"]').count();
  const noisyNote = await page.locator('.lab-notes li', { hasText: /^Noisy \(/ }).count();
  assert.equal(noisyNote, run.measurements.some((x) => x.noisy) ? 1 : 0, 'a note iff some variant is noisy');
  assert.equal(noisyRows > 0, run.measurements.some((x) => x.noisy && (x.kernel === 'fused' || x.kernel === 'eager')), 'rows marked iff a fused or eager variant is noisy');
  for (const x of run.measurements) {
    assert.equal(typeof x.noisy, 'boolean');
    assert.ok(Number.isInteger(x.remeasured) && x.remeasured >= 0 && x.remeasured <= 1, `remeasured ${x.remeasured} (small runs measure again at most once)`);
  }
  assert.ok(Number(await page.locator('#lab-roofline').getAttribute('data-frame')) >= 1, 'roofline drawn');
  await checkCliff(page, run);

  // legible at 1440 and 390 px, without horizontal page scroll (tables scroll)
  for (const [w, hgt] of [[1440, 900], [390, 844]]) {
    await page.setViewportSize({ width: w, height: hgt });
    await page.locator('#lab').scrollIntoViewIfNeeded();
    await pollUntil(page, () => page.evaluate(() => document.documentElement.scrollWidth), (sw) => sw <= w);
    const sw = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(sw <= w, `horizontal scroll at ${w} px: ${sw}`);
    await settle(page); // the chart learns its new width at a frame and redraws
    await page.locator('#lab').screenshot({ path: path.join(SHOTS, `lab-${w}.png`) });
  }
  await page.setViewportSize({ width: 1280, height: 800 });

  // JSON and CSV round trips: import → export gives the same bytes
  const csv = await exportText(page, 'lab-export-csv');
  assert.match(csv.text, /^# brrr-lab v1\n# \{/);
  assert.match(await importFile(page, csv.file), /Imported 67 measurements/);
  assert.equal((await exportText(page, 'lab-export-json')).text, a.text, 'CSV import → JSON export is exact');
  assert.equal((await exportText(page, 'lab-export-csv')).text, csv.text, 'CSV round trip');
  assert.match(await importFile(page, a.file), /Imported/);
  assert.equal((await exportText(page, 'lab-export-json')).text, a.text, 'JSON round trip');

  // a noisy variant (trials spread ±30 %, measured again once): marked in the
  // table, in the notes, and in both exports
  const noisyRun = JSON.parse(a.text);
  const v = noisyRun.measurements.find((x) => x.kernel === 'fused' && x.op === 'mul' && x.dtype === 'f32' && x.repeat === 4);
  const mid = [...v.times_s].sort((x, y) => x - y)[1];
  v.times_s = [0.7 * mid, mid, 1.3 * mid];
  v.remeasured = 1;
  const noisyFile = path.join(SHOTS, 'noisy.json');
  fs.writeFileSync(noisyFile, JSON.stringify(noisyRun));
  const row4 = page.locator('.lab-table[data-op=mul][data-dt=f32] tr[data-repeat="4"]');
  // the message reads as after the last import, so wait for the table instead
  await page.setInputFiles('#lab-import', noisyFile);
  await pollUntil(page, () => row4.locator('td').nth(0).innerText(), (t) => t.endsWith('±30 % (noisy)'));
  assert.match(await page.locator('#lab-message').innerText(), /Imported 67 measurements/);
  assert.equal(await row4.getAttribute('data-noisy'), '1');
  const fused4 = row4.locator('td').nth(0);
  assert.equal(await fused4.getAttribute('class'), 'noisy');
  assert.match(await fused4.innerText(), /±30 % \(noisy\)$/);
  assert.match(await fused4.getAttribute('title'), /measured again once/);
  assert.match(await row4.locator('td.speedup').innerText(), /× \(noisy\)$/);
  assert.match(await page.locator('.lab-notes').innerText(), /Noisy \(trials spread more than ±10 %.*fused mul ×4 \(f32\) ±30 %/);
  const nj = JSON.parse((await exportText(page, 'lab-export-json')).text);
  const nv = nj.measurements.find((x) => x.kernel === 'fused' && x.op === 'mul' && x.dtype === 'f32' && x.repeat === 4);
  assert.equal(nv.noisy, true);
  assert.equal(nv.remeasured, 1);
  const nc = (await exportText(page, 'lab-export-csv')).text.split('\n');
  const cols = nc[2].split(',');
  assert.deepEqual(cols.slice(-2), ['noisy', 'remeasured']);
  const row = nc.find((l) => l.startsWith('fused,mul,f32,4,')).split(',');
  assert.deepEqual(row.slice(-2), ['1', '1'], 'CSV says noisy, measured again once');
  await page.locator('#lab').screenshot({ path: path.join(SHOTS, 'lab-noisy-import.png') });
  // the real run back (exports reuse one file name, so from a copy; the message
  // reads the same, so wait for the table to change)
  const original = path.join(SHOTS, 'run-original.json');
  fs.writeFileSync(original, a.text);
  await page.setInputFiles('#lab-import', original);
  await pollUntil(page, () => row4.locator('td').nth(0).innerText(), (t) => !t.endsWith('±30 % (noisy)'));
  assert.equal((await exportText(page, 'lab-export-json')).text, a.text, 'the real run back');

  // "Use my GPU" loads the measured ceilings into the explorer
  await page.click('#lab-use');
  assert.match(await page.locator('#lab-applied').innerText(), /explorer now describes this GPU/);
  assert.equal(await page.locator('#dtype').inputValue(), 'fp32');
  const bw = param(await search(page), 'bw');
  const want = Math.min(1e15, Math.max(1e9, m.lab_copy_bw)); // clamped to the explorer's limits
  assert.ok(Math.abs(Number(bw) / want - 1) < 1e-6, `bw ${bw} vs ${want}`);
  // it is the measured GPU now, named after the adapter, not the preset it replaced
  const q = Object.fromEntries(new URLSearchParams(await search(page)));
  assert.equal(q.hw, 'measured');
  assert.ok((q.gpu || '').length > 0, `adapter name in the URL: ${JSON.stringify(q)}`);
  assert.match(await page.locator('#hw option:checked').textContent(), /^Measured: /);
  assert.match(await readText(page.locator('.controls .source')), /Measured by brrr's lab/);
  // the cache sweep's fast plateau is the measured GPU's L2 roof exactly when it found a
  // cliff whose plateau beats the copy bandwidth; then the link and the message carry it
  const cc = await metrics(page, ['lab_cache_bw', 'lab_cache_bytes', 'lab_mem_bw']);
  const seen = cc.lab_cache_bytes !== '' && cc.lab_mem_bw !== '' && cc.lab_cache_bw > Number(bw);
  console.log(`# use my GPU: cache ${JSON.stringify(cc)}, copy ${bw}, l2=${q.l2}`);
  assert.equal(q.l2 !== undefined, seen, `l2=${q.l2} with ${JSON.stringify(cc)} and bw ${bw}`);
  if (seen) {
    const [l2bw, fits] = q.l2.split('_').map(Number);
    assert.ok(Math.abs(l2bw / Math.min(1e15, cc.lab_cache_bw) - 1) < 1e-12, q.l2);
    assert.equal(fits, cc.lab_cache_bytes);
    assert.match(await page.locator('#lab-applied').innerText(), /L2 [\d.]+ [kMGT]?B\/s up to [\d.]+ [kMG]?B \(the cache cliff\)/);
  }
  // widgets that need tensor-core numbers say they do not know them
  await page.locator('#tensor-cores').scrollIntoViewIfNeeded();
  assert.match(await pollUntil(page, () => page.locator('#tensor-cores .takeaway').innerText(), (t) => /Measured/.test(t)),
    /does not know its tensor-core rates/);
  assert.equal(await page.locator('#diagnosis li[data-remedy="tensor"]').getAttribute('data-applicable'), '0');
  assert.match(await page.locator('#diagnosis li[data-remedy="tensor"]').textContent(), /lab measures fp32 only/);
  // Reset restores the defaults (and the datasheet preset)
  await page.locator('#reset').click();
  assert.equal(await pollUntil(page, () => page.locator('#hw').inputValue(), (v) => v !== 'measured'), 'a100-40gb');
  assert.equal(param(await search(page), 'hw'), 'a100-40gb');
  assert.equal(param(await search(page), 'gpu'), null);

  // results survive a reload (shown once the lab's module is in: it loads on screen)
  await page.reload();
  await waitReady(page);
  await page.locator('#lab').scrollIntoViewIfNeeded();
  await page.waitForSelector('#lab .lab', { timeout: 15_000 });
  await waitMetric(page, 'lab_copy_bw', '===', m.lab_copy_bw);
  assert.deepEqual(await metrics(page, READOUTS), m);
  assert.equal(await status(page), 'done');
  assert.equal((await exportText(page, 'lab-export-json')).text, a.text, 'reload keeps the exact run');

  // corrupt saved data: reported, left in place, the page still works
  await page.evaluate(() => localStorage.setItem('brrr.lab.v1', '{"format":"brrr-lab",'));
  await page.reload();
  await waitReady(page);
  await page.locator('#lab').scrollIntoViewIfNeeded();
  await page.waitForSelector('#lab .lab', { timeout: 15_000 });
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
  await drawnPast(page, 'canvas#roofline-canvas', before);
  assert.ok((await frame(page)) > before);
  await page.locator('#lab').scrollIntoViewIfNeeded();
  await page.locator('#lab').screenshot({ path: path.join(SHOTS, 'lab-no-webgpu.png') });
});

test('a cancelled run keeps its partial results and leaves the page usable (wall-clock timing)', async () => {
  const page = await openLab('?lab_size=small&lab_timer=wall');
  await page.click('#lab-run');
  await waitMetric(page, 'lab_progress', '>=', 0.3);
  await page.click('#lab-cancel');
  assert.equal(await settled(page), 'cancelled');
  // the progress line ends with "cancelled", not "cancelling…"
  assert.match(await page.locator('[data-metric=lab_progress]').innerText(), /^\d+ % — cancelled$/);
  assert.ok(await page.locator('.lab-progress').isVisible(), 'the progress line stays to say so');
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
  await drawnPast(page, 'canvas#roofline-canvas', before);
  assert.ok((await frame(page)) > before);
});

test('a device lost mid-run is reported, partial results are kept, and a new run can start', async () => {
  const page = await openLab('?lab_size=small');
  await page.click('#lab-run');
  await waitMetric(page, 'lab_progress', '>=', 0.25);
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
  await waitMetric(page, 'lab_progress', '>', 0.05);
  await page.click('#lab-cancel');
  assert.equal(await settled(page), 'cancelled');
});
