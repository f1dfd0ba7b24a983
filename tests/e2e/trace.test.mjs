// Issue 23: the `trace` widget ("Diagnose your own run"). It opens on the bundled
// example (a real A100 trace) once it comes on screen, parsed by its own worker
// (.wasm fetched only then); its readouts equal brrr-trace's --json for the same
// file (tests/e2e/data/trace-cli.json, written by the native CLI, see its
// "how" field); chosen files (.json, .json.gz, several at once) give `done`; bad
// files give `error` and leave the rest of the page alone; Cancel stops the worker;
// dark mode, a phone width and the axe audit; per step, the remedies' predicted
// steps, HTA's idle causes and launch delay, two files compared before and after
// (tests/e2e/data/trace-compare.json, the CLI's --compare), the timeline's
// busy fraction. Every wait is on data-trace-state or a drawn frame.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { useHarness, waitReady, metric, OUT_DIR, REPO_ROOT, show, screenshot, settle } from './helpers.mjs';

const h = useHarness();
const W = '#trace';
const TRACES = path.join(REPO_ROOT, 'tests', 'data', 'traces');
const CLI = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'tests', 'e2e', 'data', 'trace-cli.json'), 'utf8'));
const COMPARE = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'tests', 'e2e', 'data', 'trace-compare.json'), 'utf8')).compare;
const AXE = path.join(REPO_ROOT, 'node_modules', 'axe-core', 'axe.min.js');
const SHOTS = path.join(OUT_DIR, 'trace');
fs.mkdirSync(SHOTS, { recursive: true });

const FILES = {
  a100: path.join(TRACES, 'a100_80gb', 'rank0.json.gz'),
  alexnet: path.join(TRACES, 'alexnet', 'benchmark_result_2869224_1695835535_trace.json.gz'),
  overlap: path.join(TRACES, 'synthetic_overlap', 'trace.json'),
  cpu: path.join(TRACES, 'cpu_only', 'rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz'),
  decode: path.join(TRACES, 'h200_llama8b_decode_eager', 'llama8b_decode_eager.pt.trace.json.gz'),
  mlpEager: path.join(TRACES, 'h200_mlp_eager', 'mlp_eager.pt.trace.json.gz'),
  mlpGraph: path.join(TRACES, 'h200_mlp_graph', 'mlp_graph.pt.trace.json.gz'),
  compiledDecode: path.join(TRACES, 'h100_llama2_7b_decode_compiled_b1', 'llama2_7b_decode_compiled_b1.pt.trace.json.gz'),
};

/** The CLI's row for a fixture file (by its base name). */
const row = (file) => {
  const r = CLI.ranks.find((x) => path.basename(x.file) === path.basename(file));
  assert.ok(r, `no CLI row for ${file}`);
  return r;
};

/** Wait until the widget's state is one of `states` (it signals each change). */
async function state(page, states, timeout = 60_000) {
  const list = Array.isArray(states) ? states : [states];
  await page.waitForFunction(
    ([sel, l]) => l.includes(document.querySelector(sel)?.querySelector('[data-trace-state]')?.getAttribute('data-trace-state')),
    [W, list],
    { timeout },
  );
  return page.locator(`${W} [data-trace-state]`).getAttribute('data-trace-state');
}

const NUMERIC = ['kernels', 'span_s', 'idle_share', 'compute_share', 'noncompute_share', 'comm_share', 'memory_share',
  'launch_wait_share', 'short_kernel_share', 'placed_kernels', 'best_speedup', 'steps', 'step_s',
  'idle_host_share', 'idle_kernel_share', 'idle_other_share', 'comm_overlap', 'launch_delay_median_s'];

/** Every readout of the shown rank equals the CLI's row, exactly (null: ""). */
async function sameAsCli(page, r) {
  for (const k of NUMERIC) assert.equal(await metric(page, `trace_${k}`), r[k] ?? '', `trace_${k}`);
  const str = async (k) => page.locator(`[data-metric="trace_${k}"]`).getAttribute('data-value');
  assert.equal(await str('regime'), r.regime);
  assert.equal(await str('best_remedy'), r.best_remedy ?? '');
  assert.equal(await str('device'), r.device ?? '');
  assert.equal(await str('preset'), r.preset ?? '');
  assert.equal(await str('rank'), r.rank === null ? '' : String(r.rank));
  // the remedy items: the CLI's speedups and predicted steps, helping iff ≥ 1.05×,
  // in words (the id is an attribute, never the text)
  const items = await page.$$eval(`${W} li[data-remedy]`, (lis) => lis.map((li) => [li.dataset.remedy, Number(li.dataset.speedup), li.dataset.helps, Number(li.dataset.stepAfter), li.textContent]));
  assert.equal(items.length, Object.keys(r.remedies).length);
  for (const [id, sp, helps, after, text] of items) {
    assert.equal(sp, r.remedies[id], id);
    assert.equal(helps, sp >= 1.05 ? '1' : '0', id);
    assert.equal(after, r.remedy_list.find((x) => x.id === id).step_after_s, `${id} data-step-after`);
    assert.ok(!text.includes(id), `${id}: the item reads as a sentence, not its id: ${text}`);
  }
}

async function choose(page, files) {
  await page.locator(`${W} input[type=file][data-trace-input]`).setInputFiles(files);
}

/** The names the file input holds. */
const inputNames = (page) => page.$eval(`${W} input[data-trace-input]`, (i) => [...i.files].map((f) => f.name));

test('the example opens when the widget is first on screen, fetched only then, and equals brrr-trace', async (t) => {
  await h.withPage(t, '', async (page) => {
    const before = h.requests.filter((r) => /brrr-trace-(worker|ui)|example\/rank0/.test(r.url) && r.label.startsWith(t.name));
    assert.deepEqual(before, [], 'nothing of the trace widget is fetched before it is on screen');
    // nor the lab's module (brrr-lab-ui.js / _bg.wasm): the first visit holds neither widget
    const lab = h.requests.filter((r) => /brrr-lab-ui/.test(r.url) && r.label.startsWith(t.name));
    assert.deepEqual(lab, [], "the lab's module is not part of the first visit");
    await show(page.locator(W));
    assert.equal(await state(page, ['example', 'error']), 'example', await page.locator(`${W} [data-trace-message]`).innerText());
    const fetched = h.requests.filter((r) => r.label.startsWith(t.name)).map((r) => r.url);
    assert.ok(fetched.some((u) => u.endsWith('brrr-trace-ui_bg.wasm')), "the widget's own wasm");
    assert.ok(fetched.some((u) => u.endsWith('brrr-trace-worker_bg.wasm')), 'the worker wasm');
    assert.ok(fetched.some((u) => u.endsWith('example/rank0.json.gz')), 'the example');
    assert.equal(await metric(page, 'trace_ranks'), 1);
    await sameAsCli(page, row(FILES.a100));
    assert.equal(await page.locator(`${W} [data-trace-state]`).getAttribute('data-trace-file'), null, 'no file name for the example');
    await page.screenshot({ path: path.join(SHOTS, 'example.png'), fullPage: false });
  }, { shot: 'trace/example-full' });
});

test('choosing a .json and a .json.gz: done, a table per rank, the slowest named, a rank select', async (t) => {
  await h.withPage(t, '', async (page) => {
    await show(page.locator(W));
    await state(page, 'example');
    await choose(page, [FILES.overlap]);
    assert.equal(await state(page, ['done', 'error']), 'done');
    assert.equal(await page.locator(`${W} [data-trace-state]`).getAttribute('data-trace-file'), 'trace.json');
    await sameAsCli(page, row(FILES.overlap));
    // the input keeps naming the file read, and the widget says it too
    assert.deepEqual(await inputNames(page), ['trace.json']);
    assert.match(await page.locator(`${W} [data-trace-loaded]`).textContent(), /Read: trace\.json/);

    await choose(page, [FILES.alexnet]);
    await state(page, 'loading', 10_000).catch(() => {});
    assert.equal(await state(page, ['done', 'error']), 'done');
    assert.equal(await page.locator(`${W} [data-trace-state]`).getAttribute('data-trace-file'), path.basename(FILES.alexnet));
    await sameAsCli(page, row(FILES.alexnet));

    // several files: one row each, the slowest named, the select picks the rank shown
    await choose(page, [FILES.overlap, FILES.alexnet]);
    await page.waitForFunction((sel) => document.querySelectorAll(`${sel} table.trace-ranks tbody tr`).length === 2, W, { timeout: 60_000 });
    assert.equal(await state(page, 'done'), 'done');
    assert.equal(await metric(page, 'trace_ranks'), 2);
    const spans = [row(FILES.overlap).span_s, row(FILES.alexnet).span_s];
    const slowest = spans[1] > spans[0] ? 1 : 0;
    assert.equal(await page.locator(`${W} [data-trace-slowest]`).getAttribute('data-trace-slowest'), String(slowest));
    await sameAsCli(page, row(FILES.overlap));
    await page.locator(`${W} select[name="trace_rank"]`).selectOption('1');
    await page.waitForFunction((v) => document.querySelector('[data-metric="trace_span_s"]')?.getAttribute('data-value') === String(v), row(FILES.alexnet).span_s);
    await sameAsCli(page, row(FILES.alexnet));

    // Reset: back to the example, and the input names no file
    await page.locator(`${W} [data-trace-reset]`).click();
    assert.equal(await state(page, 'example'), 'example');
    await sameAsCli(page, row(FILES.a100));
    assert.deepEqual(await inputNames(page), []);
  });
});

test('dropping a file onto the widget reads it like choosing one', async (t) => {
  await h.withPage(t, '', async (page) => {
    await show(page.locator(W));
    await state(page, 'example');
    const dt = await page.evaluateHandle((text) => {
      const d = new DataTransfer();
      d.items.add(new File([text], 'dropped.json', { type: 'application/json' }));
      return d;
    }, fs.readFileSync(FILES.overlap, 'utf8'));
    await page.dispatchEvent(`${W} [data-trace-state]`, 'dragover', { dataTransfer: dt });
    await page.dispatchEvent(`${W} [data-trace-state]`, 'drop', { dataTransfer: dt });
    assert.equal(await state(page, ['done', 'error']), 'done');
    assert.equal(await page.locator(`${W} [data-trace-state]`).getAttribute('data-trace-file'), 'dropped.json');
    await sameAsCli(page, row(FILES.overlap));
    assert.deepEqual(await inputNames(page), ['dropped.json'], 'the input names the dropped file');
  });
});

test('bad files: a clear message, state error, and the rest of the page keeps its state', async (t) => {
  const dir = fs.mkdtempSync(path.join(OUT_DIR, 'trace-bad-'));
  const gz = fs.readFileSync(FILES.alexnet);
  const bad = {
    'notjson.json': ['hello world', /not JSON/],
    'empty.json': ['', /empty/],
    'cut.json.gz': [gz.subarray(0, Math.floor(gz.length / 2)), /gzip|truncated/],
    'unknown-gpu.json': [JSON.stringify({ deviceProperties: [{ id: 0, name: 'Mystery GPU 9000' }], traceEvents: [{ ph: 'X', cat: 'kernel', name: 'k', ts: 0, dur: 5, args: { stream: 7, correlation: 1, device: 0 } }] }), null],
  };
  for (const [name, [body]] of Object.entries(bad)) fs.writeFileSync(path.join(dir, name), body);
  await h.withPage(t, '?batch=8', async (page) => {
    await show(page.locator(W));
    await state(page, 'example');
    const url = page.url();
    const wall = await metric(page, 'wall_time_s');
    for (const [name, [, re]] of Object.entries(bad)) {
      if (!re) continue;
      await choose(page, [path.join(dir, name)]);
      assert.equal(await state(page, ['error', 'done']), 'error', name);
      const msg = await page.locator(`${W} [data-trace-message]`).innerText();
      assert.match(msg, re, `${name}: ${msg}`);
      assert.match(msg, new RegExp(name.replace(/\./g, '\\.')), `${name}: the message names the file`);
      assert.equal(await page.locator(`${W} [data-metric="trace_regime"]`).getAttribute('data-value'), '');
    }
    await choose(page, [FILES.cpu]);
    assert.equal(await state(page, ['error', 'done']), 'error');
    assert.match(await page.locator(`${W} [data-trace-message]`).innerText(), /no GPU events/);
    // an unknown GPU is analysed; it just has no preset
    await choose(page, [path.join(dir, 'unknown-gpu.json')]);
    assert.equal(await state(page, ['error', 'done']), 'done');
    assert.equal(await page.locator('[data-metric="trace_device"]').getAttribute('data-value'), 'Mystery GPU 9000');
    assert.equal(await page.locator('[data-metric="trace_preset"]').getAttribute('data-value'), '');
    assert.match(await page.locator(`${W} [data-trace-message]`).innerText(), /No hardware preset for the GPU Mystery GPU 9000/);
    // the rest of the page did not move
    assert.equal(await metric(page, 'wall_time_s'), wall);
    assert.equal(page.url(), url);
    assert.equal(await page.locator('#panic-banner, .panic').count(), 0);
  });
});

test('Cancel stops the worker mid-parse and the example stays', async (t) => {
  await h.withPage(t, '', async (page) => {
    await show(page.locator(W));
    await state(page, 'example');
    await page.evaluate(() => { window.__brrrTraceSlow = true; });
    await choose(page, [FILES.a100]);
    await page.waitForFunction((sel) => /Reading file 1/.test(document.querySelector(`${sel} [data-trace-message]`)?.textContent || ''), W, { timeout: 30_000 });
    assert.equal(await state(page, 'loading'), 'loading');
    await page.locator(`${W} [data-trace-cancel]`).click();
    assert.equal(await state(page, ['example', 'done', 'error']), 'example');
    assert.match(await page.locator(`${W} [data-trace-message]`).innerText(), /Cancelled/);
    await sameAsCli(page, row(FILES.a100));
  });
});

test('dark mode at a phone width: no sideways scroll; the axe audit passes', async () => {
  for (const [scheme, width] of [['dark', 390], ['light', 720]]) {
    const ctx = await h.browser.newContext({ colorScheme: scheme, bypassCSP: true, viewport: { width, height: 900 } });
    try {
      const page = await ctx.newPage();
      await page.goto(h.url + `?theme=${scheme}`);
      await waitReady(page, 60_000);
      await show(page.locator(W));
      await state(page, 'example');
      const over = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(over <= 0, `${scheme} ${width}px: the page scrolls sideways by ${over}px`);
      await page.locator(W).screenshot({ path: path.join(SHOTS, `${scheme}-${width}.png`) });
      await page.addScriptTag({ path: AXE });
      const v = await page.evaluate(async (sel) => {
        const r = await window.axe.run(document.querySelector(sel), { resultTypes: ['violations'] });
        return r.violations.map((x) => `${x.id}: ${x.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
      }, W);
      assert.deepEqual(v, [], `${scheme} ${width}px`);
    } finally {
      await h.closeContext(ctx);
    }
  }
});

// for the README and docs/perf.md: from file chosen to diagnosis shown
test('benchmark (BRRR_TRACE_BENCH=MB): a generated trace of that size', { skip: !process.env.BRRR_TRACE_BENCH }, async (t) => {
  const mb = Number(process.env.BRRR_TRACE_BENCH);
  const file = path.join(OUT_DIR, `trace-bench-${mb}mb.json`);
  if (!fs.existsSync(file)) {
    const ev = [];
    let size = 0, i = 0, ts = 0;
    while (size < mb * 1e6) {
      const k = `{"ph":"X","cat":"kernel","name":"ampere_sgemm_128x64_nn_${i % 50}","pid":0,"tid":7,"ts":${ts},"dur":${5 + (i % 20)},"args":{"device":0,"stream":7,"correlation":${i},"External id":${i}}}`;
      const l = `{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":${ts - 4},"dur":3,"args":{"correlation":${i}}}`;
      ev.push(k, l);
      size += k.length + l.length + 2;
      ts += 30 + (i % 7);
      i++;
    }
    fs.writeFileSync(file, `{"deviceProperties":[{"id":0,"name":"NVIDIA A100-SXM4-80GB","totalGlobalMem":85093040128}],"traceEvents":[${ev.join(',')}]}`);
  }
  await h.withPage(t, '', async (page) => {
    await show(page.locator(W));
    await state(page, 'example');
    // the main thread's long tasks while it works (a benchmark figure, not a test)
    await page.evaluate(() => {
      window.__long = [];
      new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push(e.duration); }).observe({ type: 'longtask' });
    });
    const t0 = Date.now();
    await choose(page, [file]);
    await state(page, ['done', 'error'], 120_000);
    const ms = Date.now() - t0;
    await settle(page);
    const long = await page.evaluate(() => window.__long);
    console.log(`trace bench: ${(fs.statSync(file).size / 1e6).toFixed(1)} MB in ${ms} ms (file chosen → diagnosis shown); main-thread long tasks: ${long.length}, longest ${Math.round(Math.max(0, ...long))} ms`);
    // then the timeline of its busiest second drawn, and zoomed in once
    await page.evaluate(() => { window.__long = []; });
    const f = await drawn(page, 'trace-timeline');
    await page.locator(`${W} [data-trace-zoom="in"]`).click();
    await drawn(page, 'trace-timeline', f);
    await settle(page);
    const tl = await page.evaluate(() => window.__long);
    const spans = await page.evaluate(() => document.querySelectorAll('#trace .marks [data-mark="span"]').length);
    console.log(`trace bench: timeline drawn and zoomed: long tasks ${tl.length}, longest ${Math.round(Math.max(0, ...tl))} ms (${spans} span tooltips)`);
    assert.equal(await state(page, ['done', 'error']), 'done');
  });
});


/** Waits until canvas `id` has been drawn more than `after` times; returns the count. */
async function drawn(page, id, after = 0) {
  await page.locator(`#${id}`).scrollIntoViewIfNeeded();
  await page.waitForFunction(([i, n]) => Number(document.getElementById(i)?.dataset.frame || 0) > n, [id, after], { timeout: 60_000 });
  return Number(await page.locator(`#${id}`).getAttribute('data-frame'));
}

const windowOf = async (page) => (await page.locator(`${W} [data-trace-window]`).getAttribute('data-trace-window')).split(' ').map(Number);

test('the kernels on their roofline, the busiest second zoomed and panned, another GPU picked', async (t) => {
  const dir = fs.mkdtempSync(path.join(OUT_DIR, 'trace-gpu-'));
  const unknown = path.join(dir, 'unknown-gpu.json');
  fs.writeFileSync(unknown, JSON.stringify({ deviceProperties: [{ id: 0, name: 'Mystery GPU 9000' }], traceEvents: [{ ph: 'X', cat: 'kernel', name: 'k', ts: 0, dur: 5, args: { stream: 7, correlation: 1, device: 0 } }] }));
  await h.withPage(t, '', async (page) => {
    await show(page.locator(W));
    await state(page, 'example');
    // the roofline: one point per (op, kernel) pair, and what they say in words
    await drawn(page, 'trace-roofline');
    const points = await page.locator(`${W} .marks [data-mark="kernel"]`).count();
    assert.ok(points >= 10, `points on the roofline: ${points}`);
    assert.match(await page.locator('#trace-roofline').getAttribute('aria-label'), /NVIDIA A100 80GB SXM roofline \(tf32/);
    const note = () => page.locator(`${W} [data-trace-roof-note]`).first().innerText();
    const datasheet = await note();
    assert.match(datasheet, /placed here \(\d+ calls\).* of the NVIDIA A100 80GB SXM allows there .*datasheet roofs/);
    await page.locator(`${W} select[data-trace-roof]`).selectOption('achievable');
    await page.waitForFunction((sel) => /achievable roofs/.test(document.querySelector(`${sel} [data-trace-roof-note]`)?.textContent || ''), W);
    assert.notEqual(await note(), datasheet);

    // the timeline: at most a second, zoomed, panned and reset
    const frames = await drawn(page, 'trace-timeline');
    assert.ok((await page.locator(`${W} .marks [data-mark="span"]`).count()) > 0, 'the longest spans have tooltips');
    const full = await windowOf(page);
    assert.ok(full[1] > full[0] && full[1] - full[0] <= 1 + 1e-9, `window ${full}`);
    await page.locator(`${W} [data-trace-zoom="in"]`).click();
    await page.waitForFunction(([sel, w]) => {
      const [a, b] = document.querySelector(`${sel} [data-trace-window]`).getAttribute('data-trace-window').split(' ').map(Number);
      return Math.abs((b - a) - w / 2) < 1e-9;
    }, [W, full[1] - full[0]]);
    const zoomed = await windowOf(page);
    assert.ok(Math.abs((zoomed[0] + zoomed[1]) / 2 - (full[0] + full[1]) / 2) < 1e-9, 'zoomed about the middle');
    await drawn(page, 'trace-timeline', frames);
    await page.locator(`${W} [data-trace-zoom="right"]`).click();
    await page.waitForFunction(([sel, a0]) => Number(document.querySelector(`${sel} [data-trace-window]`).getAttribute('data-trace-window').split(' ')[0]) > a0, [W, zoomed[0]]);
    const later = await windowOf(page);
    assert.ok(Math.abs((later[1] - later[0]) - (zoomed[1] - zoomed[0])) < 1e-9 && later[1] <= full[1] + 1e-12, `panned ${later}`);
    // the wheel over the timeline scrolls the page until the timeline has focus
    await page.locator('#trace-timeline').hover();
    await page.mouse.wheel(0, -200);
    await settle(page);
    assert.deepEqual(await windowOf(page), later, 'an unfocused timeline does not take the wheel');
    // from the keyboard: + zooms in, Home shows it all
    await page.locator(`${W} .trace-timeline`).focus();
    await page.keyboard.press('+');
    await page.waitForFunction(([sel, w]) => {
      const [a, b] = document.querySelector(`${sel} [data-trace-window]`).getAttribute('data-trace-window').split(' ').map(Number);
      return Math.abs((b - a) - w / 2) < 1e-9;
    }, [W, later[1] - later[0]]);
    await page.keyboard.press('Home');
    await page.waitForFunction(([sel, f]) => document.querySelector(`${sel} [data-trace-window]`).getAttribute('data-trace-window') === f, [W, full.join(' ')]);
    // focused, the wheel zooms it (in, about the middle)
    await page.locator('#trace-timeline').hover();
    await page.mouse.wheel(0, -200);
    await page.waitForFunction(([sel, w]) => {
      const [a, b] = document.querySelector(`${sel} [data-trace-window]`).getAttribute('data-trace-window').split(' ').map(Number);
      return b - a < w;
    }, [W, full[1] - full[0]]);

    // another GPU for the roofline: the files are read again; the matched preset stays
    await page.locator(`${W} select[data-trace-preset]`).selectOption('h100-sxm');
    await page.waitForFunction((sel) => /NVIDIA H100 SXM roofline/.test(document.getElementById('trace-roofline')?.getAttribute('aria-label') || ''), W, { timeout: 60_000 });
    assert.equal(await state(page, ['example', 'error']), 'example');
    assert.equal(await page.locator('[data-metric="trace_preset"]').getAttribute('data-value'), 'a100-80gb');
    // a slower GPU: the dots above its roof ran on the A100, and the sentence says so
    await page.locator(`${W} select[data-trace-preset]`).selectOption('t4');
    await page.waitForFunction(() => /T4 roofline/.test(document.getElementById('trace-roofline')?.getAttribute('aria-label') || ''), null, { timeout: 60_000 });
    const notes = await page.locator(`${W} [data-trace-roof-note]`).allTextContents();
    assert.ok(notes.some((n) => /ran faster than the picked GPU allows, because they ran on the NVIDIA A100-SXM4-80GB/.test(n)), notes.join(' | '));
    assert.ok(!notes.some((n) => /cache hit/.test(n)), 'not explained as a cache hit on another GPU');

    // an fp32 run on a V100 with no matmul placed: drawn against the fp32 roof,
    // not the tensor cores' (the preset's default)
    const v100 = path.join(dir, 'v100-fp32.json');
    fs.writeFileSync(v100, JSON.stringify({ deviceProperties: [{ id: 0, name: 'Tesla V100-SXM2-16GB' }], traceEvents: [
      { ph: 'X', cat: 'cpu_op', name: 'aten::mul', tid: 1, ts: 0, dur: 5, args: { 'External id': 7, 'Input Dims': [[1048576], [1048576]], 'Input type': ['float', 'float'] } },
      { ph: 'X', cat: 'kernel', name: 'vectorized_elementwise_kernel', ts: 10, dur: 20, args: { stream: 7, correlation: 1, device: 0, 'External id': 7 } },
    ] }));
    await choose(page, [v100]);
    assert.equal(await state(page, ['error', 'done']), 'done');
    await page.waitForFunction(() => /V100.* roofline \(fp32,/.test(document.getElementById('trace-roofline')?.getAttribute('aria-label') || ''), null, { timeout: 60_000 });

    // an unknown GPU: no roofline until one is picked
    await choose(page, [unknown]);
    assert.equal(await state(page, ['error', 'done']), 'done');
    assert.equal(await page.locator('#trace-roofline').count(), 0);
    assert.match(await page.locator(`${W} [data-trace-unplaced]`).innerText(), /matches no preset/);
    await page.locator(`${W} select[data-trace-preset]`).selectOption('h100-sxm');
    await page.waitForFunction(() => /NVIDIA H100 SXM roofline/.test(document.getElementById('trace-roofline')?.getAttribute('aria-label') || ''), null, { timeout: 60_000 });
    assert.equal(await state(page, ['error', 'done']), 'done');
    assert.equal(await page.locator('[data-metric="trace_preset"]').getAttribute('data-value'), '');
    assert.match(await page.locator(`${W} [data-trace-unplaced]`).innerText(), /None of the 1 kernels could be placed/);
  });
});

test('an eager decode step: per step, HTA idle causes, remedies as predicted steps, the profiled run said, the timeline as busy as it was', async (t) => {
  await h.withPage(t, '', async (page) => {
    await show(page.locator(W));
    await state(page, 'example');
    await choose(page, [FILES.decode]);
    assert.equal(await state(page, ['done', 'error']), 'done');
    const r = row(FILES.decode);
    await sameAsCli(page, r);
    assert.equal(await metric(page, 'trace_steps'), 0);
    assert.match(await page.locator('[data-metric="trace_step_s"]').textContent(), /no markers: the whole trace/);
    // a profiled eager run: the step an unprofiled run would take, from the
    // profiler's cost this trace shows (no fixed factor)
    const profiled = await page.locator(`${W} [data-trace-profiled]`).textContent();
    assert.match(profiled, /a median 1\.63 µs longer than its child/);
    assert.match(profiled, /this step would take about 77\.1 ms unprofiled/);
    assert.ok(Math.abs(r.step_unprofiled_s - 0.0771) < 0.0001, String(r.step_unprofiled_s));
    assert.doesNotMatch(profiled, /1\.88/);
    // HTA's "compute" beside the essay's regime, in words
    assert.match(await page.locator(`${W} [data-trace-regime-note]`).textContent(), /HTA's "compute" is every busy kernel/);
    // the kernels not placed: how much time kept its name class
    assert.match(await page.locator(`${W} [data-trace-unplaced]`).textContent(), /of kernel time kept the class of its name/);
    // the timeline at its default zoom: the GPU lane is drawn about as busy as
    // it was (90 % idle), not solid
    const ink = await laneInk(page, 0);
    assert.ok(ink < 0.35 && ink > 0.01, `GPU lane drawn ${Math.round(100 * ink)} % inked for a lane busy ${Math.round(100 * (1 - r.idle_share))} % of the time`);
  });
});

test('a compiled decode step replayed as a CUDA graph: memory-bound by its kernels\' tiles and grids, no CUDA graphs offered, its unplaced kernels say why', async (t) => {
  await h.withPage(t, '', async (page) => {
    await show(page.locator(W));
    await state(page, 'example');
    await choose(page, [FILES.compiledDecode]);
    assert.equal(await state(page, ['done', 'error']), 'done');
    assert.equal(await page.locator('[data-metric="trace_regime"]').getAttribute('data-value'), 'memory');
    assert.equal(await metric(page, 'trace_steps'), 3);
    const ids = await page.$$eval(`${W} li[data-remedy]`, (lis) => lis.map((li) => [li.dataset.remedy, Number(li.dataset.speedup), li.textContent]));
    for (const [id, x] of ids) assert.ok(!id.includes('graph') || x < 1.05, `${id} ×${x} offered to a replayed run`);
    const noIdle = ids.find(([id]) => id === 'no_idle');
    assert.ok(noIdle && /already replays CUDA graphs/.test(noIdle[2]), noIdle?.[2]);
    const note = await page.locator(`${W} [data-trace-unplaced]`).textContent();
    assert.match(note, /memory-bound by its kernels' tiles and launch grids/);
    assert.match(note, /replayed from a CUDA graph/);
  });
});

/**
 * How much of lane `li` of the timeline is inked, 0..1: along the lane's middle
 * row, each pixel's distance from the plot's background (sampled just above the
 * lane, in its margin) over the largest distance on the row (a fully busy pixel).
 */
async function laneInk(page, li) {
  await drawn(page, 'trace-timeline');
  return page.evaluate(([sel, i]) => {
    const canvas = document.getElementById('trace-timeline');
    const geo = JSON.parse(document.querySelector(`${sel} .trace-timeline [data-geometry]`).getAttribute('data-geometry'));
    const [l, t, r, b] = geo.areas[0].rect;
    const lanes = geo.areas[0].y[1];
    const laneH = (b - t) / lanes;
    const k = canvas.width / canvas.clientWidth;
    // one read of the lane's upper half (one getImageData: more would ask the
    // canvas to be kept in memory for reading), then its first and last rows
    const [x0, y0, w] = [Math.round(l * k), Math.round((t + laneH * (i + 0.05)) * k), Math.round((r - l) * k)];
    const h = Math.round((t + laneH * (i + 0.5)) * k) - y0 + 1;
    const img = canvas.getContext('2d').getImageData(x0, y0, w, h).data;
    const bg = img.subarray(0, 4 * w);
    const mid = img.subarray(4 * w * (h - 1), 4 * w * h);
    const d = [];
    for (let p = 0; p < mid.length; p += 4) {
      d.push(Math.hypot(mid[p] - bg[p], mid[p + 1] - bg[p + 1], mid[p + 2] - bg[p + 2]));
    }
    const max = Math.max(...d);
    return max > 0 ? d.reduce((a, x) => a + x, 0) / (d.length * max) : 0;
  }, [W, li]);
}

test('two runs of one model, before and after: what changed and whether the fix delivered what was predicted', async (t) => {
  await h.withPage(t, '', async (page) => {
    await show(page.locator(W));
    await state(page, 'example');
    await choose(page, [FILES.mlpEager, FILES.mlpGraph]);
    assert.equal(await state(page, ['done', 'error']), 'done');
    // two files of no rank: compared at once, the CLI's numbers exactly
    assert.equal(await page.locator(`${W} input[data-trace-compare]`).isChecked(), true);
    // the speedup of what ran (each step less the profiler's cost), the
    // profiled one beside it, labelled
    assert.equal(await metric(page, 'trace_compare_speedup'), COMPARE.speedup);
    assert.equal(await metric(page, 'trace_compare_speedup_profiled'), COMPARE.speedup_profiled);
    assert.ok(COMPARE.speedup < COMPARE.speedup_profiled);
    const box = await page.locator(`${W} .trace-compare dl`).textContent();
    assert.match(box, /unprofiled/);
    assert.match(box, /As profiled/);
    // the two files are before and after, not ranks
    const firsts = await page.locator(`${W} table.trace-ranks tbody tr th, ${W} table.trace-ranks tbody tr td:first-child`).allTextContents();
    assert.ok(firsts[0].startsWith('before') && firsts[1].startsWith('after'), firsts.join(' | '));
    const options = await page.locator(`${W} select[name="trace_rank"] option`).allTextContents();
    assert.ok(options[0].startsWith('before') && options[1].startsWith('after'), options.join(' | '));
    assert.doesNotMatch(await page.locator(`${W} table.trace-ranks`).textContent(), /rank/i);
    assert.equal(await metric(page, 'trace_compare_predicted'), COMPARE.predicted);
    assert.equal(await page.locator(`${W} [data-trace-compare-matched]`).getAttribute('data-trace-compare-matched'), COMPARE.matched);
    const sentence = await page.locator(`${W} [data-trace-compare-sentence]`).textContent();
    assert.equal(sentence, COMPARE.sentence);
    assert.equal(await page.locator(`${W} table.trace-compare-classes tbody tr`).count(), COMPARE.classes.length);
    // the graph run: CUDA graphs are not offered to it
    await page.locator(`${W} select[name="trace_rank"]`).selectOption('1');
    await page.waitForFunction(() => document.querySelector('[data-metric="trace_steps"]') && !document.querySelector('#trace li[data-remedy="cuda_graphs"]'));
    assert.match(await page.locator(`${W} [data-trace-regime-note]`).textContent(), /already replays CUDA graphs/);
    // unchecked: ranks of one run, no comparison
    await page.locator(`${W} input[data-trace-compare]`).uncheck();
    await page.waitForFunction(() => !document.querySelector('[data-metric="trace_compare_speedup"]'));
    assert.equal(await page.locator(`${W} table.trace-ranks tbody tr`).count(), 2);
  });
});
