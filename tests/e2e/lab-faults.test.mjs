// The lab's on-demand module failing to load ("Measure my GPU" is its own .wasm,
// brrr-lab-ui, imported when the widget first comes on screen). The harness
// serves that .wasm as bytes that are not WebAssembly (with the wasm MIME type,
// so wasm-bindgen's loader reports the failure rather than retrying) and the
// test checks that the widget says so (data-lab-load="error" and a message,
// never a spinner forever) while the rest of the page keeps working: the
// explorer's regime still follows its slider, and the trace widget still loads.
// Every wait is on a state the page signals.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, show, setSlider, waitMetric } from './helpers.mjs';

const W = '#lab';

test("the lab's own module failing to load: error state, a message, and the page keeps working", async (t) => {
  const h = await createHarness({ files: { 'brrr-lab-ui_bg.wasm': 'not wasm' } });
  try {
    await h.withPage(t, '?lab_size=small', async (page) => {
      await show(page.locator(W));
      await page.waitForFunction(
        (sel) => document.querySelector(sel)?.querySelector('[data-lab-load]')?.getAttribute('data-lab-load') === 'error',
        W,
        { timeout: 60_000 },
      );
      assert.match(await page.locator(`${W} [data-lab-message]`).textContent(), /GPU lab could not be loaded/);
      assert.equal(await page.locator(`${W} .lab`).count(), 0, 'no half-mounted lab');
      // the rest of the page still answers: the explorer's batch slider moves its regime
      await setSlider(page, 'batch', Math.log10(8192));
      assert.equal(await waitMetric(page, 'regime', '===', 'compute'), 'compute');
      await setSlider(page, 'batch', Math.log10(1));
      assert.equal(await waitMetric(page, 'regime', '===', 'overhead'), 'overhead');
      // and the other on-demand widget still loads its own module
      await show(page.locator('#trace'));
      await page.waitForFunction(
        () => ['error', 'example'].includes(document.querySelector('#trace [data-trace-state]')?.getAttribute('data-trace-state')),
        null,
        { timeout: 60_000 },
      );
      assert.equal(await page.locator('#trace [data-trace-state]').getAttribute('data-trace-state'), 'example');
    });
    h.assertClean();
  } finally {
    await h.close();
  }
});
