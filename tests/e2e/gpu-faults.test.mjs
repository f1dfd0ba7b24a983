// GPU faults (issue 6), in headless Chromium on SwiftShader at the small test size.
// Each fault is provoked for real, through the browser's own WebGPU objects (stubbed
// with context.addInitScript before the app loads) or the app's test knobs, and each
// test checks the message the page shows, that partial results are marked partial
// (or that "nothing was measured" is said in words), that no panic banner appears,
// and that the page stays usable: a slider still redraws the explorer's roofline.
//   1. no WebGPU (navigator.gpu undefined)
//   2. navigator.gpu.requestAdapter() resolving to null
//   3. adapter.requestDevice() rejecting
//   4. the device lost before the first measurement, and while a variant's output
//      is being read back for verification
//   5. a WGSL compile failure (window.__brrrLabBreakShader: fused x·m ×2)
//   6. tiny adapter limits (GPUAdapter.prototype.limits stubbed): a note below the
//      small test size, a clear refusal below the lab's minimum
//   7. Cancel in every phase: device setup, copy bandwidth, dispatch overhead, the
//      fused and the eager sweep, and verification
// Phases are reached deterministically: the fault kit below can hold one WebGPU call
// (requestDevice, onSubmittedWorkDone, or mapAsync of the verification read-back
// buffer) while the lab's progress text matches a pattern, until the test releases it.
// Like every file, the after hook fails on any console error/warning or request off
// the page's origin: none of these faults may log anything.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useHarness, waitReady, metric, setSlider, sliderRange, frame, drawnPast, waitMetric } from './helpers.mjs';

const h = useHarness();

const status = (page) => metric(page, 'lab_status');
const message = (page) => page.locator('#lab-message').innerText();
const saved = (page) => page.evaluate(() => JSON.parse(localStorage.getItem('brrr.lab.v1') || 'null'));

/** Wait until the run is no longer running. */
async function settled(page, timeout = 45_000) {
  return waitMetric(page, 'lab_status', '!==', 'running', timeout);
}

/** Installed before the app loads (addInitScript): lets a test hold one WebGPU call. */
function faultKit() {
  if (typeof GPUAdapter === 'undefined') return;
  window.__brrrLabSmall = true;
  const progress = () => {
    const el = document.querySelector('[data-metric="lab_progress"]');
    return el ? el.textContent : '';
  };
  // window.__brrrHold = { api: 'device' | 'done' | 'verify', when: RegExp source }
  const gate = (api, self) => {
    const h = window.__brrrHold;
    if (!h || h.api !== api || !new RegExp(h.when).test(progress())) return null;
    // the verification read-back is the only mapAsync of a 32 KiB buffer
    if (api === 'verify' && self.size !== 8192 * 4) return null;
    window.__brrrHold = null;
    return new Promise((resolve) => {
      window.__brrrHeld = progress();
      window.__brrrRelease = resolve;
    });
  };
  const wrap = (proto, name, api) => {
    const orig = proto[name];
    proto[name] = function (...args) {
      const g = gate(api, this);
      return g ? g.then(() => orig.apply(this, args)) : orig.apply(this, args);
    };
  };
  wrap(GPUAdapter.prototype, 'requestDevice', 'device');
  wrap(GPUQueue.prototype, 'onSubmittedWorkDone', 'done');
  wrap(GPUBuffer.prototype, 'mapAsync', 'verify');
}

/**
 * A fresh page with `init` (a function, run before the app in every load) and the
 * fault kit installed, at the small size, once the lab knows whether it has a GPU.
 */
async function openWith(label, init, arg) {
  const page = await h.open('', { label });
  await page.context().addInitScript(faultKit);
  if (init) await page.context().addInitScript(init, arg);
  await page.goto(h.url + '?lab_size=small', { waitUntil: 'load' });
  await waitReady(page);
  await page.locator('#lab').scrollIntoViewIfNeeded(); // the lab probes WebGPU once seen
  await page.waitForSelector('.lab[data-lab-gpu=ready], .lab[data-lab-gpu=missing]', { timeout: 15_000 });
  return page;
}

/** No panic, and the explorer still reacts: a batch slider move redraws the roofline. */
async function assertUsable(page) {
  assert.equal(await page.locator('#panic-banner').count(), 0, 'the app panicked');
  await page.locator('#roofline-canvas').scrollIntoViewIfNeeded();
  const r = await sliderRange(page, 'batch');
  const before = await frame(page);
  // to the far end: the slider's value may read back a rounding away from its max
  // (log mapping), so "=== max" would sometimes set max again and change nothing
  await setSlider(page, 'batch', r.value > (r.min + r.max) / 2 ? r.min : r.max);
  const after = await drawnPast(page, 'canvas#roofline-canvas', before);
  assert.ok(after > before, `the roofline did not redraw (data-frame ${before} → ${after})`);
  assert.equal(await page.locator('#panic-banner').count(), 0, 'the app panicked');
  assert.equal(await page.evaluate(() => typeof window.__brrrLabLoseDevice), 'undefined', 'test hook left behind');
}

/** Start a run and wait until the held WebGPU call is reached; returns the progress text then. */
async function runUntilHeld(page, api, when) {
  await page.evaluate(([api, when]) => {
    window.__brrrHeld = null;
    window.__brrrHold = { api, when };
  }, [api, when]);
  await page.click('#lab-run');
  // the stub sets `__brrrHeld` when it holds the call
  const held = await page.waitForFunction(() => window.__brrrHeld, null, { timeout: 40_000 }).then((v) => v.jsonValue(), () => null);
  assert.ok(held, `the run never reached ${api} while /${when}/ (status ${await status(page)})`);
  assert.equal(await status(page), 'running');
  assert.ok(await page.locator('#lab-cancel').isVisible(), 'Cancel shows while running');
  return held;
}

const release = (page) => page.evaluate(() => window.__brrrRelease());

test('1. without WebGPU the lab says so, offers no Run, and the page works', async () => {
  const page = await openWith('no webgpu', () => {
    Object.defineProperty(Navigator.prototype, 'gpu', { get: () => undefined, configurable: true });
  });
  assert.equal(await page.locator('.lab').getAttribute('data-lab-gpu'), 'missing');
  assert.equal(await status(page), 'unsupported');
  assert.match(await page.locator('#lab-fallback').innerText(), /does not offer WebGPU \(navigator\.gpu is missing\)/);
  assert.equal(await page.locator('#lab-run').isVisible(), false);
  await assertUsable(page);
});

test('2. an adapter request resolving to null: "no adapter", no Run, the page works', async () => {
  const page = await openWith('null adapter', () => {
    if (typeof GPU !== 'undefined') GPU.prototype.requestAdapter = async () => null;
  });
  assert.equal(await page.locator('.lab').getAttribute('data-lab-gpu'), 'missing');
  assert.equal(await status(page), 'unsupported');
  assert.match(await page.locator('#lab-fallback').innerText(), /WebGPU is present but offered no adapter/);
  assert.equal(await page.locator('#lab-run').isVisible(), false);
  await assertUsable(page);
});

test('3. requestDevice rejecting: the run fails with the reason, nothing is kept, Run works again', async () => {
  const page = await openWith('device refused', () => {
    if (typeof GPUAdapter === 'undefined') return;
    GPUAdapter.prototype.requestDevice = () => Promise.reject(new DOMException('test refusal', 'OperationError'));
  });
  assert.equal(await page.locator('.lab').getAttribute('data-lab-gpu'), 'ready');
  for (let i = 0; i < 2; i++) {
    await page.click('#lab-run');
    assert.equal(await settled(page), 'failed');
    assert.match(await message(page), /The browser refused a WebGPU device: OperationError: test refusal/);
    assert.equal(await page.locator('.lab').getAttribute('data-lab-results'), 'no');
    assert.equal(await saved(page), null, 'nothing saved');
    assert.ok(await page.locator('#lab-run').isVisible(), 'Run shows again');
  }
  await assertUsable(page);
});

test('4. the device lost: before the first result a failure in words, during a verification read-back partial results kept', async () => {
  const page = await openWith('lost device');
  // lost while measuring the copy bandwidth: nothing to keep, so the run failed
  await runUntilHeld(page, 'done', 'copy bandwidth \\(f32\\)');
  // the hook returns `device.lost`: once awaited, the run knows of the loss
  await page.evaluate(() => window.__brrrLabLoseDevice());
  await release(page);
  assert.equal(await settled(page), 'failed');
  assert.match(await message(page), /device was lost during the run .*nothing was measured; earlier results, if any, are unchanged/);
  assert.equal(await page.locator('.lab').getAttribute('data-lab-results'), 'no');
  assert.equal(await saved(page), null, 'nothing saved');
  await assertUsable(page);
  // lost while a variant's output is read back: a new device, then partial results
  const held = await runUntilHeld(page, 'verify', 'fused cos ×8 \\(f32\\)');
  assert.match(held, /fused cos ×8/);
  // released at once: the read-back is refused before device.lost has resolved, and
  // must still be reported as the loss, not as an error of the run
  await page.evaluate(() => {
    window.__brrrLabLoseDevice();
    window.__brrrRelease();
  });
  assert.equal(await settled(page), 'partial');
  assert.match(await message(page), /device was lost during the run .*the results so far are kept, marked partial/);
  assert.equal(await page.locator('.lab-notes').getAttribute('data-outcome'), 'partial');
  assert.match(await page.locator('.lab-notes li').first().innerText(), /^Partial run/);
  const run = await saved(page);
  assert.equal(run.outcome, 'partial');
  // copy, x·m ×1…×1024 fused and eager, cos ×1…×4 fused and eager
  assert.equal(run.measurements.length, 1 + 22 + 6);
  assert.ok(run.measurements.every((m) => m.check === 'passed'), 'the loss is never blamed on a variant');
  assert.ok((await metric(page, 'lab_copy_bw')) > 0);
  await assertUsable(page);
});

test('5. a WGSL compile failure fails that variant only: shown as failed, never plotted, the run completes', async () => {
  const page = await openWith('broken shader', () => {
    window.__brrrLabBreakShader = true;
  });
  await page.click('#lab-run');
  assert.equal(await settled(page, 60_000), 'done', await message(page));
  // the error is caught in an error scope: Chromium logs nothing for it (the after
  // hook fails on any console message)
  const run = await saved(page);
  assert.equal(run.outcome, 'complete');
  assert.equal(run.measurements.length, 56 + 11, 'every other variant still ran (and the cache sweep\'s 11 working sets)');
  const broken = run.measurements.filter((m) => m.check !== 'passed');
  assert.equal(broken.length, 1, JSON.stringify(broken));
  const [b] = broken;
  assert.deepEqual([b.kernel, b.op, b.dtype, b.repeat], ['fused', 'mul', 'f32', 2]);
  assert.match(b.detail, /^shader: /);
  assert.equal(b.times_s.length, 0, 'a failed variant is not timed');
  // shown as failed: in the table (no speedup) and in words
  const row = page.locator('.lab-table[data-op=mul][data-dt=f32] tr[data-repeat="2"]');
  assert.equal(await row.locator('td.failed').count(), 3);
  assert.equal(await row.getAttribute('data-speedup'), null);
  assert.match(await page.locator('.lab-notes').innerText(), /Failed \(not plotted\): fused mul ×2 \(f32\): shader: /);
  // never plotted: the lab roofline's SVG export has one dot per verified kernel
  // inside the axes, and the broken one is not verified
  const inside = run.measurements.filter((m) => {
    if (m.check !== 'passed' || !m.op) return false;
    const t = [...m.times_s].sort((x, y) => x - y)[Math.floor(m.times_s.length / 2)];
    const flops = m.elements * m.repeat * (m.op === 'fma' ? 2 : 1); // an FMA is 2 FLOP
    const bytes = 2 * m.elements * (m.dtype === 'f16' ? 2 : 4) * (m.kernel === 'eager' ? m.repeat : 1);
    const [x, y] = [flops / bytes, flops / t];
    return x >= 1e-2 && x <= 1e5 && y >= 1e8 && y <= 1e17;
  }).length;
  await page.locator('#lab-roofline').scrollIntoViewIfNeeded();
  const [dl] = await Promise.all([
    page.waitForEvent('download'),
    page.locator('.lab figure:has(#lab-roofline) button[data-export=svg]').click(),
  ]);
  const svg = await new Promise((resolve, reject) => {
    dl.createReadStream().then((s) => {
      let t = '';
      s.on('data', (c) => (t += c));
      s.on('end', () => resolve(t));
      s.on('error', reject);
    }, reject);
  });
  assert.equal((svg.match(/<circle/g) || []).length, inside, 'dots on the lab roofline');
  await assertUsable(page);
});

test('6. tiny adapter limits: a note below the test size, a clear refusal below the minimum', async () => {
  const tiny = (bytes) => {
    if (typeof GPUAdapter === 'undefined') return;
    const real = Object.getOwnPropertyDescriptor(GPUAdapter.prototype, 'limits').get;
    Object.defineProperty(GPUAdapter.prototype, 'limits', {
      configurable: true,
      get() {
        const l = real.call(this);
        const o = {};
        for (const k in l) o[k] = l[k];
        o.maxStorageBufferBindingSize = bytes;
        o.maxBufferSize = bytes;
        return o;
      },
    });
  };
  // 512 KiB: below the 1 MiB test size, above the 256 KiB minimum
  const page = await openWith('512 KiB limits', tiny, 512 * 1024);
  assert.match(await page.locator('.lab-gpu').innerText(), /524 kB/, 'the adapter panel shows the stubbed limit');
  await page.click('#lab-run');
  assert.equal(await settled(page), 'done', await message(page));
  const run = await saved(page);
  assert.equal(run.elements, (512 * 1024) / 4);
  const notes = await page.locator('.lab-notes').innerText();
  assert.match(notes, /512 KiB buffers/);
  assert.match(notes, /This adapter allows buffers of at most 512 KiB, so the lab uses 512 KiB instead of 1 MiB/);
  assert.ok(run.measurements.every((m) => m.check === 'passed' && m.elements <= run.elements));
  await assertUsable(page);

  // 128 KiB: refused, in words, with both sizes
  const small = await openWith('128 KiB limits', tiny, 128 * 1024);
  await small.click('#lab-run');
  assert.equal(await settled(small), 'failed');
  assert.match(await message(small), /Limits too small: this adapter allows buffers of only 128 KiB \(need at least 256 KiB\)/);
  assert.equal(await small.locator('.lab').getAttribute('data-lab-results'), 'no');
  await assertUsable(small);
});

test('7. Cancel in every phase leaves the page usable, with partial results marked partial or none said in words', async () => {
  const page = await openWith('cancel phases');
  // [phase, held call, progress text, measurements kept]
  const phases = [
    ['device setup', 'device', 'opening the GPU', 0],
    ['copy bandwidth', 'done', 'copy bandwidth \\(f32\\)', 0],
    ['dispatch overhead', 'done', 'dispatch and submit overhead', 1],
    ['fused sweep', 'done', 'fused cos ×4 \\(f32\\)', 1 + 22 + 4],
    ['eager sweep', 'done', 'eager mul ×16 \\(f32\\)', 1 + 8 + 1],
    ['verification', 'verify', 'eager mul ×4 \\(f32\\)', 1 + 4 + 1],
  ];
  for (const [phase, api, when, kept] of phases) {
    const held = await runUntilHeld(page, api, when);
    assert.match(held, new RegExp(when), phase);
    await page.click('#lab-cancel');
    await release(page);
    assert.equal(await settled(page), 'cancelled', phase);
    assert.match(await page.locator('[data-metric=lab_progress]').innerText(), /— cancelled$/, `${phase}: progress line`);
    const msg = await message(page);
    const run = await saved(page);
    if (kept === 0) {
      assert.match(msg, /^Cancelled: nothing was measured; earlier results, if any, are unchanged\.$/, phase);
      assert.equal(run, null, `${phase}: nothing saved`);
      assert.equal(await page.locator('.lab').getAttribute('data-lab-results'), 'no', phase);
    } else {
      assert.match(msg, /^Cancelled: the results so far are kept, marked partial\.$/, phase);
      assert.equal(run.outcome, 'cancelled', phase);
      assert.equal(run.measurements.length, kept, phase);
      assert.ok(run.measurements.every((m) => m.check === 'passed' && m.times_s.length > 0), phase);
      assert.equal(await page.locator('.lab-notes').getAttribute('data-outcome'), 'cancelled', phase);
      assert.match(await page.locator('.lab-notes li').first().innerText(), /^Partial run/, phase);
      assert.ok((await metric(page, 'lab_copy_bw')) > 0, phase);
    }
    assert.ok(await page.locator('#lab-run').isVisible(), `${phase}: Run shows again`);
    await assertUsable(page);
  }
});
