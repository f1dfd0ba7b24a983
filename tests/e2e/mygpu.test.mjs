// "Use my GPU" in every widget (issue 54, item 3). The stored H200 run of brrr-lab
// (tests/data/h200-lab.json, the lab's own JSON format; its source is in
// tests/data/README.md) is imported into the page's lab, which guesses the H200
// datasheet from the adapter; "Use my GPU" then makes the measured GPU the page's:
// the link carries hw=measured with hw_base=h200 and the measured spreads, and the
// explorer, llm, dit, serve and shapes widgets each show the GPU's figures labelled
// measured or datasheet, and their headline as a range across the measured spread.
// Every wait is on a page condition (a message, a line's text), never a timer.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { createHarness, OUT_DIR, REPO_ROOT, pollUntil, search, setSlider, showMore, sliderRange } from './helpers.mjs';

const RUN = path.join(REPO_ROOT, 'tests/data/h200-lab.json');

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

test('a stored H200 run, Use my GPU: every GPU-dependent widget answers on it, labelled, with a range', async () => {
  const page = await h.open('', { label: 'my gpu' });
  await page.locator('#lab').scrollIntoViewIfNeeded();
  await page.locator('#lab-import').setInputFiles(RUN);
  await page.locator('#lab-message', { hasText: /Imported/ }).waitFor();
  assert.equal(await page.locator('#lab-preset').inputValue(), 'h200', 'the adapter is guessed');
  await page.click('#lab-use');
  await page.locator('#lab-applied', { hasText: /explorer now describes this GPU/ }).waitFor();
  assert.match(await page.locator('#lab-applied').innerText(), /datasheet NVIDIA H200/);

  const q = new URLSearchParams(await search(page));
  assert.equal(q.get('hw'), 'measured');
  assert.equal(q.get('hw_base'), 'h200');
  assert.equal(q.get('dtype'), 'bf16', 'the datasheet brings its tensor-core dtypes');
  assert.ok(Number(q.get('bw_spread')) > 0 && Number(q.get('flops_spread')) > 0, q.toString());
  assert.match(await page.locator('#hw option:checked').textContent(), /^Measured: NVIDIA/);
  // the explorer's dtype select offers the matched datasheet's dtypes, with bf16 chosen
  assert.equal(await page.locator('#dtype').inputValue(), 'bf16');
  assert.deepEqual(await page.$$eval('#dtype option', (os) => os.map((o) => o.value)), ['fp32', 'tf32', 'bf16', 'fp8']);

  const line = async (sel) => {
    const t = await pollUntil(
      page,
      () => page.locator(`${sel} .mygpu`).first().innerText().catch(() => ''),
      (t) => /Across the measured spread: ~/.test(t),
    );
    assert.match(t, /^On NVIDIA .*\(measured: HBM bandwidth [\d.]+ TB\/s ±[\d.]+ %, fp32 /, `${sel}: ${t}`);
    assert.match(t, /; datasheet NVIDIA H200 SXM: bf16 matmul [\d.]+ TFLOP\/s \(scaled to /, `${sel}: ${t}`);
    assert.match(t, /memory 141 GB/, `${sel}: ${t}`);
    return t;
  };
  await page.locator('#roofline-explorer').scrollIntoViewIfNeeded();
  // the stored run's trials agree to within 0.1 %, so some ranges read the same at either end
  const either = (unit) => new RegExp(`~[\\d.]+ ${unit}(–[\\d.]+ ${unit}| at either end)`);
  assert.match(await line('#roofline-explorer'), either('[µmn]?s'));
  await page.locator('#llm').scrollIntoViewIfNeeded();
  assert.match(await line('#llm'), either('k?tok/s'));
  await showMore(page, '#shapes');
  assert.match(await line('#shapes'), either('TFLOP/s'));
  await showMore(page, '#serve');
  assert.match(await line('#serve'), /tok\/s.*, inter-token latency ~[\d.]+ [µm]?s/);
  await showMore(page, '#dit');
  assert.match(await line('#dit'), /s.* a step\./);
  await page.locator('#llm .mygpu').first().screenshot({ path: path.join(OUT_DIR, 'mygpu-llm.png') });

  // the link is the measured GPU: opened with a wider spread, the range opens up, low below high
  const wide = new URLSearchParams(await search(page));
  wide.set('bw_spread', '0.1');
  wide.set('flops_spread', '0.1');
  const p2 = await h.open(`?${wide}`, { label: 'my gpu link' });
  await p2.locator('#llm').scrollIntoViewIfNeeded();
  const t = await pollUntil(p2, () => p2.locator('#llm .mygpu').first().innerText().catch(() => ''), (t) => /tok\/s–/.test(t));
  const [, lo, hi] = t.match(/~([\d.]+) (?:k?)tok\/s–([\d.]+) k?tok\/s/);
  assert.ok(Number(lo) < Number(hi), t);
  assert.match(t, /HBM bandwidth [\d.]+ TB\/s ±10 %/);

  // a cache cliff the lab measured (l2=BW_BYTES) is the measured GPU's L2 roof: the
  // explorer's legend reads it (not the H200 preset's 9.9 TB/s) and says who measured it,
  // the explorer's line labels it measured, and the link keeps it
  const cliff = new URLSearchParams(await search(page));
  assert.equal(cliff.get('l2'), null, 'the stored run has no cache sweep, so no measured L2');
  const before = await page.locator('[data-metric="roof_l2_bw"]').first().getAttribute('data-value');
  assert.equal(Number(before), 9914.4e9, 'without a sweep, the matched preset\'s L2');
  cliff.set('l2', '7e12_3e7');
  const p3 = await h.open(`?${cliff}`, { label: 'my gpu l2' });
  await p3.locator('#roofline-explorer').scrollIntoViewIfNeeded();
  const legend = p3.locator('#roofline-explorer li.l2');
  await legend.waitFor();
  assert.equal(Number(await legend.locator('[data-metric="roof_l2_bw"]').getAttribute('data-value')), 7e12);
  assert.match(await legend.innerText(), /measured by the lab's cache sweep 7 TB\/s: kernels whose working set fits, up to 30 MB/);
  const ex = await pollUntil(p3, () => p3.locator('#roofline-explorer .mygpu').first().innerText().catch(() => ''), (t) => /L2 bandwidth/.test(t));
  assert.match(ex, /measured: .*L2 bandwidth 7 TB\/s up to 30 MB \(the cache cliff\)/, ex);
  assert.doesNotMatch(ex, /9\.91 TB\/s/, 'the preset\'s L2 bandwidth gives way to the measured one');
  assert.equal(new URLSearchParams(await search(p3)).get('l2'), '7e12_3e7');
  await p3.locator('#roofline-explorer').screenshot({ path: path.join(OUT_DIR, 'mygpu-l2.png') });

  // the overhead per kernel is the lab's while it keeps the value the lab timed (the link
  // says which, overhead_measured=); moved on the page, the line calls it the reader's
  assert.ok(Number(q.get('overhead_measured')) > 0, `the stored run timed dispatch: ${q}`);
  const exLine = () => page.locator('#roofline-explorer .mygpu').first().innerText().catch(() => '');
  await page.locator('#roofline-explorer').scrollIntoViewIfNeeded();
  const kept = await pollUntil(page, exLine, (t) => /overhead per kernel/.test(t));
  assert.match(kept, /\(measured: [^;]*overhead per kernel [\d.]+ [µmn]?s/, kept);
  assert.doesNotMatch(kept, /not measured/, kept);
  const { max } = await sliderRange(page, 'overhead');
  await setSlider(page, 'overhead', max);
  const moved = await pollUntil(page, exLine, (t) => /not measured: overhead per kernel/.test(t));
  assert.match(moved, /not measured: overhead per kernel [\d.]+ [µmn]?s \(set on the page; the lab measured [\d.]+ [µmn]?s\)/, moved);
});
