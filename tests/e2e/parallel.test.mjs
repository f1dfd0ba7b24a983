// Issue 24: more than one GPU. The llm widget's tensor/pipeline parallelism and
// link, the dit widget's sequence parallelism, the communication share and the
// scaling chart, bad spreads, the embed in dark mode, 390 px and axe.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import {
  useHarness,
  metric,
  pollUntil,
  search,
  param,
  inputValue,
  OUT_DIR,
  REPO_ROOT,
  readText,
  waitReady,
  typeBox,
  waitMetric,
  drawnPast,
  showMore,
} from './helpers.mjs';

const h = useHarness();
const SHOTS = path.join(OUT_DIR, 'parallel');
fs.mkdirSync(SHOTS, { recursive: true });
const AXE = path.join(REPO_ROOT, 'node_modules', 'axe-core', 'axe.min.js');

async function drawn(page, sel) {
  await page.locator(sel).scrollIntoViewIfNeeded();
  return drawnPast(page, sel);
}

/** Wait until `name` differs from `before`, then return it. */
const changed = (page, name, before) => pollUntil(page, () => metric(page, name), (x) => x !== before);

test('Llama-3-70B on H100s: needs two, then more GPUs shorten the step while the communication share rises', async (t) => {
  await h.withPage(t, '?hw=h100-sxm&llm_model=llama3-70b', async (page) => {
    await page.locator('#llm').scrollIntoViewIfNeeded();
    assert.equal(await metric(page, 'llm_fits'), 0);
    assert.equal(await metric(page, 'llm_min_tp'), 2);
    assert.equal(await metric(page, 'llm_gpus'), 1);
    assert.equal(await metric(page, 'llm_comm_share'), 0);
    assert.match(await readText(page.locator('#llm-fit')), /tensor parallelism over 2 GPUs/);
    // the preset's own link is the default
    assert.equal(await inputValue(page, 'llm_link'), 'preset');
    await page.locator('#llm_graphs').check();
    await pollUntil(page, () => search(page), (q) => param(q, 'llm_graphs') === '1');
    let step = await metric(page, 'llm_step_s');
    await page.selectOption('#llm_tp', '2');
    step = await changed(page, 'llm_step_s', step);
    assert.equal(await metric(page, 'llm_fits'), 1);
    assert.equal(await metric(page, 'llm_gpus'), 2);
    const perGpu = await metric(page, 'llm_per_gpu_bytes');
    assert.ok(perGpu < 80e9 && perGpu > 65e9, `per GPU ${perGpu}`);
    let comm = await metric(page, 'llm_comm_share');
    assert.ok(comm > 0, `comm ${comm}`);
    for (const tp of ['4', '8']) {
      await page.selectOption('#llm_tp', tp);
      const s = await changed(page, 'llm_step_s', step);
      const c = await metric(page, 'llm_comm_share');
      assert.ok(s < step && c > comm, `tp ${tp}: step ${s} after ${step}, comm ${c} after ${comm}`);
      [step, comm] = [s, c];
    }
    assert.equal(param(await search(page), 'llm_tp'), '8');
    const eff = await metric(page, 'llm_scaling_efficiency');
    assert.ok(eff > 0.5 && eff < 1.2, `efficiency ${eff}`);
    const text = await readText(page.locator('#llm'));
    assert.match(text, /On 8 GPUs \(8 tensor parallel × 1 pipeline stage\) over NVLink 4/);
    assert.match(text, /Scaling efficiency at tensor parallel 8: [\d.]+ %/);
    await drawn(page, '#llm-scaling');
    // one mark per GPU count, the current one marked
    // the chart redraws once on screen: wait for its marks to show the state
    const kinds = await pollUntil(page, 
      () => page.$$eval('#llm button.mark[data-mark^="scale-"]', (bs) => bs.map((b) => [b.dataset.mark, b.dataset.x])),
      (k) => k.some((m) => m[0] === 'scale-current' && m[1] === '8'));
    assert.deepEqual(kinds.map((k) => k[1]), ['1', '2', '4', '8']);
    assert.deepEqual(kinds.filter((k) => k[0] === 'scale-current').map((k) => k[1]), ['8']);
    // the roofline shows the link's roof and the step against it
    await drawn(page, '#llm-roofline');
    const link = await pollUntil(page, 
      () => page.$$eval('#llm button.mark[data-mark="link"]', (bs) => bs.map((b) => b.getAttribute('aria-label'))),
      (l) => l.length === 1);
    assert.match(link[0], /the step against the link, [\d.]+k? FLOP per byte over the link/);
    assert.equal(await page.locator('#llm-roofline ~ ul.legend .swatch.comm, #llm ul.legend .swatch.comm').count() >= 1, true);
    await page.locator('#llm').screenshot({ path: path.join(SHOTS, 'llm-tp8.png') });
  });
});

test('over PCIe at batch 64 the step is communication-bound and more GPUs pay less than over NVLink', async (t) => {
  const base = '?hw=h100-sxm&llm_model=llama3-70b&llm_graphs=1&llm_batch=64&llm_tp=8';
  let nvEff;
  await h.withPage(t, base, async (page) => {
    await page.locator('#llm').scrollIntoViewIfNeeded();
    nvEff = await metric(page, 'llm_scaling_efficiency');
    assert.notEqual(await metric(page, 'llm_regime'), 'communication');
    const step = await metric(page, 'llm_step_s');
    await page.selectOption('#llm_link', 'pcie4');
    await changed(page, 'llm_step_s', step);
    assert.equal(await metric(page, 'llm_regime'), 'communication');
    assert.ok((await metric(page, 'llm_speedup_link2')) > 1.05);
    const pcEff = await metric(page, 'llm_scaling_efficiency');
    assert.ok(pcEff < nvEff, `PCIe ${pcEff} vs NVLink ${nvEff}`);
    assert.equal(param(await search(page), 'llm_link'), 'pcie4');
    const text = await readText(page.locator('#llm'));
    assert.match(text, /The step is communication-bound: 2× link bandwidth and half its latency alone buys [\d.]+×\./);
    assert.match(text, /Overlapping the collectives with the kernels after them \(the ideal, an upper bound\) would make the step [\d.]+× faster/);
    // overlap on: the step shortens
    const s0 = await metric(page, 'llm_step_s');
    await page.locator('#llm_overlap').check();
    const s1 = await changed(page, 'llm_step_s', s0);
    assert.ok(s1 < s0);
  });
});

test('the link typed in: twice the bandwidth is NVLink 5 on the model, a zero is refused and the last good state kept', async (t) => {
  const base = '?hw=h100-sxm&llm_model=llama3-70b&llm_graphs=1&llm_batch=64&llm_tp=8';
  // NVLink 5 is NVLink 4's latencies at twice its bandwidth: what the model gives
  // for it is what typing 900 GB/s over NVLink 4 must give
  let nvlink5;
  await h.withPage(t, base + '&llm_link=nvlink5', async (page) => {
    await page.locator('#llm').scrollIntoViewIfNeeded();
    nvlink5 = { step: await metric(page, 'llm_step_s'), comm: await metric(page, 'llm_comm_share') };
    assert.equal(await inputValue(page, 'llm_link_bw-box'), '900');
  });
  await h.withPage(t, base, async (page) => {
    await page.locator('#llm').scrollIntoViewIfNeeded();
    // absent keys: the link's own figures, with their units
    assert.equal(await inputValue(page, 'llm_link_bw-box'), '450');
    assert.equal(await inputValue(page, 'llm_link_lat-box'), '0.6');
    const s0 = await metric(page, 'llm_step_s');
    const c0 = await metric(page, 'llm_comm_share');
    await typeBox(page, 'llm_link_bw', '900');
    const s1 = await changed(page, 'llm_step_s', s0);
    const c1 = await metric(page, 'llm_comm_share');
    assert.ok(s1 < s0 && c1 < c0, `step ${s1} after ${s0}, communication ${c1} after ${c0}`);
    assert.equal(s1, nvlink5.step);
    assert.equal(c1, nvlink5.comm);
    assert.equal(await pollUntil(page, async () => param(await search(page), 'llm_link_bw'), (v) => v === '900'), '900');
    // zero: the message beside the box, the step and the link as they were
    await typeBox(page, 'llm_link_bw', '0');
    const msg = await pollUntil(page, () => readText(page.locator('#llm_link_bw-error')), (m) => m.length > 0);
    assert.match(msg, /greater than zero/);
    assert.equal(await page.locator('#llm_link_bw-box').getAttribute('aria-invalid'), 'true');
    assert.equal(await metric(page, 'llm_step_s'), s1);
    assert.equal(param(await search(page), 'llm_link_bw'), '900');
    // the latency too: a non-number is refused, a typed one changes the step
    await typeBox(page, 'llm_link_lat', 'slow');
    assert.match(await pollUntil(page, () => readText(page.locator('#llm_link_lat-error')), (m) => m.length > 0), /not a number|number/);
    assert.equal(await metric(page, 'llm_step_s'), s1);
    await typeBox(page, 'llm_link_lat', '6');
    const s2 = await changed(page, 'llm_step_s', s1);
    assert.ok(s2 > s1, `10x the per-step latency: ${s2} after ${s1}`);
    // (an empty message takes no room: read its text, not what is shown)
    assert.equal(await page.locator('#llm_link_lat-error').textContent(), '');
    // another link: its own figures, the typed ones dropped from the URL (the
    // select takes the focus, as a click on it would: the box is no longer edited)
    await page.locator('#llm_link').focus();
    await page.selectOption('#llm_link', 'pcie4');
    assert.equal(await pollUntil(page, () => inputValue(page, 'llm_link_bw-box'), (v) => v === '32'), '32');
    assert.equal(await inputValue(page, 'llm_link_lat-box'), '1');
    const q = await pollUntil(page, () => search(page), (x) => param(x, 'llm_link') === 'pcie4');
    assert.equal(param(q, 'llm_link_bw'), null);
    assert.equal(param(q, 'llm_link_lat'), null);
  });
  // the dit widget has its own pair; bad values in the URL give notices
  await h.withPage(t, '?hw=h100-sxm&llm_link_bw=0&llm_link_lat=-1&dit_link_bw=fast&dit_link_lat=1e9', async (page) => {
    for (const p of ['llm_link_bw', 'llm_link_lat', 'dit_link_bw', 'dit_link_lat']) {
      assert.equal(await page.locator(`#url-notices li[data-param="${p}"]`).count(), 1, `a notice for ${p}`);
    }
    await showMore(page, '#dit');
    assert.equal(await inputValue(page, 'dit_link_bw-box'), '450');
    assert.equal(await inputValue(page, 'dit_link_lat-box'), '0.6');
  });
});

test('eager decode on 8 GPUs stays overhead-bound: each GPU launches all its own kernels', async (t) => {
  await h.withPage(t, '?hw=h100-sxm&llm_model=llama3-70b&llm_tp=8', async (page) => {
    await page.locator('#llm').scrollIntoViewIfNeeded();
    assert.equal(await metric(page, 'llm_regime'), 'overhead');
    assert.match(await readText(page.locator('#llm')), /more GPUs do not shorten the launches: the eager step stays overhead-bound/);
  });
});

test('a pipeline: the model fits, decode passes the stages in turn', async (t) => {
  await h.withPage(t, '?hw=h100-sxm&llm_model=llama3-70b&llm_graphs=1&llm_pp=2', async (page) => {
    await page.locator('#llm').scrollIntoViewIfNeeded();
    assert.equal(await metric(page, 'llm_fits'), 1);
    assert.equal(await metric(page, 'llm_gpus'), 2);
    const c = await metric(page, 'llm_comm_share');
    assert.ok(Math.abs(c - 0.5) < 0.05, `half the step is the other stage: ${c}`);
    assert.match(await readText(page.locator('#llm')), /A pipeline lets the model fit, but this step passes through the stages one after another/);
  });
});

test('bad spreads: a degree that does not split the heads falls back with a message; bad values give notices', async (t) => {
  await h.withPage(t, '?llm_model=custom&llm_heads=4&llm_kv_heads=2&llm_layers=2&llm_tp=8&llm_pp=8', async (page) => {
    await page.locator('#llm').scrollIntoViewIfNeeded();
    const notes = await readText(page.locator('#llm'));
    assert.match(notes, /Tensor parallel 8 does not divide the 4 attention heads and 2 KV heads evenly: showing 2\./);
    assert.match(notes, /8 pipeline stages need at least 8 layers, the model has 2: showing 2\./);
    assert.equal(await metric(page, 'llm_gpus'), 4);
    assert.equal(await page.locator('#url-notices li').count(), 0);
  });
  await h.withPage(t, '?llm_tp=3&llm_pp=16&llm_link=warp&llm_overlap=2&dit_sp=5&dit_link=x', async (page) => {
    for (const p of ['llm_tp', 'llm_pp', 'llm_link', 'llm_overlap', 'dit_sp', 'dit_link']) {
      assert.equal(await page.locator(`#url-notices li[data-param="${p}"]`).count(), 1, `a notice for ${p}`);
    }
    assert.equal(await inputValue(page, 'llm_tp'), '1');
    assert.equal(await metric(page, 'llm_gpus'), 1);
  });
});

test('dit: sequence parallel on a 17 k-token video; Ulysses or ring, and PCIe turns it communication-bound', async (t) => {
  await h.withPage(t, '?hw=h100-sxm&dit_model=cogvideox-2b&dit_res=49&dit_graphs=1', async (page) => {
    await showMore(page, '#dit');
    assert.equal(await metric(page, 'dit_sp_kind'), 'none');
    assert.equal(await metric(page, 'dit_comm_share'), 0);
    let step = await metric(page, 'dit_step_s');
    await page.selectOption('#dit_sp', '2');
    step = await changed(page, 'dit_step_s', step);
    assert.equal(await metric(page, 'dit_sp_kind'), 'ulysses');
    const c2 = await metric(page, 'dit_comm_share');
    await page.selectOption('#dit_sp', '4');
    await changed(page, 'dit_step_s', step);
    assert.equal(await metric(page, 'dit_sp_kind'), 'ring');
    assert.ok((await metric(page, 'dit_comm_share')) > c2);
    assert.match(await readText(page.locator('#dit')), /ring attention \(key\/value shards passed round the ring\) \(30 heads do not split 4 ways\)/);
    const eff = await metric(page, 'dit_scaling_efficiency');
    assert.ok(eff > 0.5 && eff <= 1.0, `efficiency ${eff}`);
    await drawn(page, '#dit-scaling');
    await page.selectOption('#dit_link', 'pcie4');
    await waitMetric(page, 'dit_regime', '===', 'communication');
    // on the achievable roofs (the widget's default) attention takes long enough
    // that the first doubling over PCIe still pays (> 1.1×); the second does not
    assert.equal(await metric(page, 'dit_sp_stops_paying'), 2);
    assert.match(await readText(page.locator('#dit')), /waiting on the other GPUs outweighs attention from 2 GPUs on/);
    // issue 51: where more GPUs stop paying reads as a count past which they stop,
    // never "stop paying at 1 GPU"
    const dit = await readText(page.locator('#dit'));
    assert.match(dit, /More GPUs stop paying\s*beyond 2 GPUs/);
    assert.match(dit, /adding GPUs stops paying beyond 2 GPUs: the next doubling buys less than 1\.1×/);
    assert.doesNotMatch(dit, /stops? paying at\b/);
    assert.equal(param(await search(page), 'dit_link'), 'pcie4');
    await page.locator('#dit').screenshot({ path: path.join(SHOTS, 'dit-sp4-pcie.png') });
  });
});

test('parallel states in the embed: dark mode, 390 px and the axe audit', async (t) => {
  const q = '?embed=llm&hw=h100-sxm&llm_model=llama3-70b&llm_graphs=1&llm_tp=4&llm_link=pcie5';
  await h.withPage(t, q + '&theme=dark', async (page) => {
    await drawn(page, '#llm-scaling');
    await page.screenshot({ path: path.join(SHOTS, 'llm-dark.png'), fullPage: true });
  }, { viewport: { width: 720, height: 900 } });
  for (const [w, query] of [[390, q], [390, '?embed=dit&dit_model=cogvideox-2b&dit_sp=8']]) {
    await h.withPage(t, query, async (page) => {
      await drawn(page, query.includes('dit') ? '#dit-scaling' : '#llm-scaling');
      const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(wide <= 0, `${wide} px of horizontal overflow at ${w} px: ${query}`);
    }, { viewport: { width: w, height: 800 } });
  }
  for (const [query, scheme] of [[q, 'light'], [q + '&theme=dark', 'dark'], ['?embed=dit&dit_model=cogvideox-2b&dit_sp=4&dit_link=pcie4', 'light']]) {
    const ctx = await h.browser.newContext({ colorScheme: scheme, bypassCSP: true, viewport: { width: 720, height: 900 } });
    const page = await ctx.newPage();
    await page.goto(h.url + query);
    await waitReady(page);
    await page.addScriptTag({ path: AXE });
    const v = await page.evaluate(async () => {
      const r = await window.axe.run(document, { resultTypes: ['violations'] });
      return r.violations.map((x) => `${x.id}: ${x.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
    });
    assert.deepEqual(v, [], query);
    await h.closeContext(ctx);
  }
});
