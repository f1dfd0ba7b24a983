// Issue 23: the trace widget's two on-demand .wasm files failing. Each test
// serves one of them as bytes that are not WebAssembly (with the wasm MIME type,
// so wasm-bindgen's loader reports the failure rather than retrying) from its own
// server, and checks that the widget says so (data-trace-state="error" and a
// message, never a spinner forever) while the rest of the page keeps working.
// Every wait is on a state the page signals. The message is read as the DOM's
// text (textContent), not as rendered text: a widget the page reports off the
// screen is skipped by CSS (content-visibility), and Chromium's innerText of a
// skipped subtree is empty (CI failed that way once, under load).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createHarness, show, setSlider, waitMetric, OUT_DIR, REPO_ROOT } from './helpers.mjs';

const W = '#trace';

/** A harness whose copy of `name` is not WebAssembly. */
async function broken(t, name, query, fn) {
  const h = await createHarness({ files: { [name]: 'not wasm' } });
  try {
    await h.withPage(t, query, fn);
    h.assertClean();
  } finally {
    await h.close();
  }
}

async function state(page) {
  await page.waitForFunction(
    (sel) => ['error', 'example'].includes(document.querySelector(sel)?.querySelector('[data-trace-state]')?.getAttribute('data-trace-state')),
    W,
    { timeout: 60_000 },
  );
  return page.locator(`${W} [data-trace-state]`).getAttribute('data-trace-state');
}

test("the widget's own module failing to load: error state, a message, and the page keeps working", async (t) => {
  await broken(t, 'brrr-trace-ui_bg.wasm', '?workload=mlp&hidden=1024&ops=8&fused=1', async (page) => {
    await show(page.locator(W));
    assert.equal(await state(page), 'error');
    assert.match(await page.locator(`${W} [data-trace-message]`).textContent(), /trace analyser could not be loaded/);
    // the rest of the page still answers: the explorer's batch slider moves its regime
    await setSlider(page, 'batch', Math.log10(8192));
    assert.equal(await waitMetric(page, 'regime', '===', 'compute'), 'compute');
    await setSlider(page, 'batch', Math.log10(1));
    assert.equal(await waitMetric(page, 'regime', '===', 'overhead'), 'overhead');
  });
});

test('the worker failing to start: error state and a message, not a spinner', async (t) => {
  await broken(t, 'brrr-trace-worker_bg.wasm', '', async (page) => {
    await show(page.locator(W));
    assert.equal(await state(page), 'error');
    assert.match(await page.locator(`${W} [data-trace-message]`).textContent(), /worker could not start/);
  });
});

// Issue 51: a corrupt .gz said "(Failed to fetch)", the browser's words for its
// decompression stream failing, though the file was read, not fetched. The
// message says what is wrong with the file: gzip data that will not
// decompress, or a name ending in .gz on data that is not gzip at all.
test('a corrupt .gz: what is wrong with the file, not "Failed to fetch"', async (t) => {
  const dir = fs.mkdtempSync(path.join(OUT_DIR, 'trace-gz-'));
  const gz = fs.readFileSync(path.join(REPO_ROOT, 'tests', 'data', 'traces', 'h200_mlp_eager', 'mlp_eager.pt.trace.json.gz'));
  const files = {
    // gzip's magic bytes, then the stream cut short
    'cut.pt.trace.json.gz': [gz.subarray(0, Math.floor(gz.length / 3)), /gzip data that would not decompress: it is corrupt or cut short/],
    // a .gz name on bytes that are not gzip (nor JSON)
    'plain.pt.trace.json.gz': [Buffer.from('not compressed, not JSON'), /ends in \.gz but is not gzip data/],
  };
  for (const [name, [body]] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), body);
  const h = await createHarness();
  try {
    await h.withPage(t, '', async (page) => {
      await show(page.locator(W));
      await page.waitForFunction((sel) => ['example', 'error'].includes(document.querySelector(`${sel} [data-trace-state]`)?.getAttribute('data-trace-state')), W, { timeout: 60_000 });
      for (const [name, [, re]] of Object.entries(files)) {
        await page.locator(`${W} input[type=file][data-trace-input]`).setInputFiles([path.join(dir, name)]);
        await page.waitForFunction(
          ([sel, n]) => document.querySelector(`${sel} [data-trace-state]`)?.getAttribute('data-trace-state') === 'error'
            && (document.querySelector(`${sel} [data-trace-message]`)?.textContent || '').includes(n),
          [W, name],
          { timeout: 60_000 },
        );
        const msg = await page.locator(`${W} [data-trace-message]`).textContent();
        assert.match(msg, re, `${name}: ${msg}`);
        assert.doesNotMatch(msg, /Failed to fetch/i, `${name}: ${msg}`);
      }
    });
    h.assertClean();
  } finally {
    await h.close();
  }
});
