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
import { createHarness, show, setSlider, waitMetric } from './helpers.mjs';

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
