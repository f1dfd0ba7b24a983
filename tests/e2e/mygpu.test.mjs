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
import { createHarness, OUT_DIR, REPO_ROOT, pollUntil, search, showMore } from './helpers.mjs';

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
  assert.match(await page.locator('#hw option:checked').textContent(), /^Measured: NVIDIA H200/);

  const line = async (sel) => {
    const t = await pollUntil(
      page,
      () => page.locator(`${sel} .mygpu`).first().innerText().catch(() => ''),
      (t) => /Across the measured spread: ~/.test(t),
    );
    assert.match(t, /^On NVIDIA H200 \(measured: HBM bandwidth [\d.]+ TB\/s ±[\d.]+ %, fp32 /, `${sel}: ${t}`);
    assert.match(t, /; datasheet NVIDIA H200: bf16 matmul [\d.]+ TFLOP\/s \(scaled to /, `${sel}: ${t}`);
    assert.match(t, /memory 141 GB/, `${sel}: ${t}`);
    return t;
  };
  await page.locator('#roofline-explorer').scrollIntoViewIfNeeded();
  assert.match(await line('#roofline-explorer'), /~[\d.]+ [µmn]?s–[\d.]+ [µmn]?s a step/);
  await page.locator('#llm').scrollIntoViewIfNeeded();
  assert.match(await line('#llm'), /~[\d.]+ k?tok\/s–[\d.]+ k?tok\/s\./);
  await showMore(page, '#shapes');
  assert.match(await line('#shapes'), /TFLOP\/s–[\d.]+ TFLOP\/s achieved/);
  await showMore(page, '#serve');
  assert.match(await line('#serve'), /tok\/s, inter-token latency ~[\d.]+ [µm]?s–/);
  await showMore(page, '#dit');
  assert.match(await line('#dit'), /s a step\./);
  await page.locator('#llm .mygpu').first().screenshot({ path: path.join(OUT_DIR, 'mygpu-llm.png') });
});
