// Issue 35: every sentence true and every answer in view. One test per item of
// the issue, each of which failed on the page before the fix: the first screen
// (the batch slider, the chart and the answer in view together, on a desktop and
// a phone), the remedies' headline, the roofline's legend naming the floor,
// contrast in both themes, one dtype rule for every widget, the grouped-query
// copies named and credited, achievable roofs beyond the essay, controls and
// sentences that say something, and the small things (plurals, a chart label, a
// folded embed, the embed's link keeping the theme).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import {
  useHarness, waitReady, metric, pollUntil, inputValue, readText, show, settle, REPO_ROOT, screenshot, showMore,
} from './helpers.mjs';

const h = useHarness();
const AXE = path.join(REPO_ROOT, 'node_modules', 'axe-core', 'axe.min.js');

/** The page's text a reader sees in `sel` (scrolled into view first). */
const text = (page, sel) => readText(page.locator(sel).first());

/** An element's bounding rectangle in the viewport, or null. */
const rect = (page, sel) =>
  page.evaluate((s) => {
    const el = document.querySelector(s);
    if (!el) return null;
    const r = el.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: r.width, height: r.height };
  }, sel);

const inside = (r, box) => r && r.width > 0 && r.height > 0 && r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5 && r.left >= box.left - 0.5 && r.right <= box.right + 0.5;

/** Wait until the explorer's later parts (controls, diagnosis) are built. */
async function explorerBuilt(page) {
  await page.waitForSelector('#batch-slider', { state: 'attached' });
  await page.waitForSelector('[data-metric=regime]', { state: 'attached' });
}

// ---------------------------------------------------------------------------
// 1. The answer is in view

test('1: at 1280 × 900 the batch slider, the chart and the answer are in view on arrival', async (t) => {
  await h.withPage(t, '', async (page) => {
    await explorerBuilt(page);
    await page.waitForSelector('canvas#roofline-canvas[data-frame]');
    assert.equal(await page.evaluate(() => window.scrollY), 0, 'no scrolling');
    const view = { top: 0, bottom: 900, left: 0, right: 1280 };
    const slider = await rect(page, '#batch-slider');
    const canvas = await rect(page, 'canvas#roofline-canvas');
    assert.ok(inside(slider, view), `#batch-slider ${JSON.stringify(slider)}`);
    assert.ok(inside(canvas, view), `the chart ${JSON.stringify(canvas)}`);
    // the answer: the regime readout or the explorer's one-line headline, whole and visible
    const answers = await page.evaluate(() =>
      [...document.querySelectorAll('[data-metric=regime], .explorer-headline')]
        .filter((el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden')
        .map((el) => {
          const r = el.getBoundingClientRect();
          return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: r.width, height: r.height, text: el.textContent };
        }),
    );
    assert.ok(answers.some((a) => inside(a, view) && /-bound/.test(a.text)), `no answer in view: ${JSON.stringify(answers)}`);
  }, { viewport: { width: 1280, height: 900 }, shot: 'truth-first-screen-1280' });
});

test('1: on a 390 × 844 phone the pinned panel shows the answer and the whole chart with its legend', async (t) => {
  await h.withPage(t, '', async (page) => {
    await explorerBuilt(page);
    await page.waitForSelector('canvas#roofline-canvas[data-frame]');
    // scrolled to as the page asks (its scroll margin puts a control below the pinned chart)
    await page.locator('#batch-slider').evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await settle(page, 0);
    const panel = await rect(page, '.explorer-chart');
    const view = { top: 0, bottom: 844, left: 0, right: 390 };
    assert.ok(inside(panel, view), `the pinned panel is in view: ${JSON.stringify(panel)}`);
    assert.ok(panel.top <= 1, `the panel is pinned to the top: ${JSON.stringify(panel)}`);
    const headline = await rect(page, '.explorer-headline');
    assert.ok(inside(headline, panel), `the answer in the panel: ${JSON.stringify(headline)}`);
    assert.match(await page.locator('.explorer-headline').innerText(), /^The step is [a-z-]+-bound/);
    const canvas = await rect(page, 'canvas#roofline-canvas');
    assert.ok(inside(canvas, panel), `the whole chart in the panel: ${JSON.stringify(canvas)} in ${JSON.stringify(panel)}`);
    // every legend entry whole, inside the panel (none cut by its edge)
    const items = await page.evaluate(() =>
      [...document.querySelectorAll('.explorer-chart .legend li')].map((el) => {
        const r = el.getBoundingClientRect();
        return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: r.width, height: r.height };
      }),
    );
    assert.ok(items.length >= 4, 'the legend');
    for (const it of items) assert.ok(inside(it, panel), `legend entry ${JSON.stringify(it)} cut by the panel ${JSON.stringify(panel)}`);
    // and the slider itself is below the panel, not under it
    const slider = await rect(page, '#batch-slider');
    assert.ok(slider.top >= panel.bottom && slider.bottom <= 844, `slider ${JSON.stringify(slider)} under the panel ${JSON.stringify(panel)}`);
  }, { viewport: { width: 390, height: 844 }, shot: 'truth-first-screen-390' });
});

// ---------------------------------------------------------------------------
// 2. A remedy explained by the mechanism that moves the number

test('2: bf16 on a fused fp32 chain is not called a remedy for compute time', async (t) => {
  await h.withPage(t, '?hw=a100-40gb&dtype=fp32&workload=chain&batch=65536&fused=1&ops=32', async (page) => {
    await explorerBuilt(page);
    const headline = await text(page, '.advice-headline');
    assert.match(headline, /bf16/, headline);
    assert.match(headline, /memory/, headline);
    assert.doesNotMatch(headline, /compute time/, headline);
    const all = await page.evaluate(() => document.body.textContent);
    assert.doesNotMatch(all, /remedy for compute time/);
  });
});

// ---------------------------------------------------------------------------
// 3. One legend that names the floor

test('3: the roofline legend names the kernel floor that holds a kernel under its roof', async (t) => {
  await h.withPage(t, '?hw=h100-sxm&batch=1', async (page) => {
    await explorerBuilt(page);
    const legend = await text(page, '#roofline-explorer .legend');
    assert.doesNotMatch(legend, /a kernel \(on its roof\)/);
    assert.match(legend, /floor/, legend);
    // the floor's own figure, as the model has it
    assert.match(legend, /\d(\.\d+)? µs/, legend);
  });
});

// ---------------------------------------------------------------------------
// 4. Contrast ≥ 4.5 : 1 for all text, both themes

/** WCAG contrast of two `rgb(…)` colours. */
function contrast(a, b) {
  const lum = (c) => {
    const [r, g, bl] = c.match(/[\d.]+/g).slice(0, 3).map(Number).map((v) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}

async function audited(query, colorScheme, width = 1280) {
  const ctx = await h.browser.newContext({ colorScheme, bypassCSP: true, viewport: { width, height: 900 } });
  const page = await ctx.newPage();
  await page.goto(h.url + query);
  await waitReady(page);
  return page;
}

async function contrastViolations(page) {
  await page.addScriptTag({ path: AXE });
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { runOnly: ['color-contrast'], resultTypes: ['violations', 'incomplete'] });
    const list = (xs) => xs.flatMap((v) => v.nodes.map((n) => `${n.target.join(' ')}: ${(n.any[0] && n.any[0].message) || ''}`));
    return { violations: list(r.violations), incomplete: list(r.incomplete) };
  });
}

test('4: the explorer answer has ≥ 4.5 : 1 contrast in every regime and both themes (axe and measured)', async () => {
  const states = {
    overhead: '?hw=h100-sxm',
    memory: '?hw=h100-sxm&workload=chain&batch=65536',
    compute: '?hw=h100-sxm&batch=65536&hidden=16384',
  };
  for (const theme of ['light', 'dark']) {
    for (const [regime, q] of Object.entries(states)) {
      const page = await audited(`${q}&theme=${theme}`, theme);
      try {
        await explorerBuilt(page);
        assert.equal(await metric(page, 'regime'), regime, q);
        const c = await page.locator('[data-metric=regime]').evaluate((el) => {
          let bg = 'rgba(0, 0, 0, 0)';
          for (let e = el; e && /rgba\(0, 0, 0, 0\)|transparent/.test(bg); e = e.parentElement) bg = getComputedStyle(e).backgroundColor;
          return { fg: getComputedStyle(el).color, bg };
        });
        const ratio = contrast(c.fg, c.bg);
        assert.ok(ratio >= 4.5, `${theme} ${regime}: the answer ${c.fg} on ${c.bg} is ${ratio.toFixed(2)} : 1`);
        const found = await contrastViolations(page);
        assert.deepEqual(found.violations, [], `${theme} ${regime}: axe colour-contrast violations`);
      } finally {
        await h.closeContext(page.context());
      }
    }
  }
});

// ---------------------------------------------------------------------------
// 5. One dtype rule for every widget

test('5: fp8 weights or an fp8 KV cache on a GPU without fp8 are refused as dtype=fp8 is', async (t) => {
  await h.withPage(t, '?hw=m2-max&llm_wdtype=fp8&llm_kvdtype=fp8&llm_tp=8&dtype=fp8', async (page) => {
    const notices = await text(page, '#url-notices');
    for (const key of ['dtype', 'llm_wdtype', 'llm_kvdtype']) {
      assert.match(notices, new RegExp(`${key}="fp8": Apple M2 Max \\(38-core GPU\\) has no fp8 mode`), notices);
    }
    await show(page.locator('#llm'));
    assert.equal(await inputValue(page, 'llm_wdtype'), 'bf16');
    assert.equal(await inputValue(page, 'llm_kvdtype'), 'bf16');
    // the select says why fp8 cannot be chosen here
    assert.equal(await page.locator('#llm_wdtype option[value=fp8]').isDisabled(), true);
    // choosing a GPU without fp8 while fp8 is chosen falls back, as the explorer does
    await page.selectOption('#llm-hw', 'h100-sxm');
    await page.selectOption('#llm_wdtype', 'fp8');
    await page.selectOption('#llm-hw', 't4');
    assert.equal(await pollUntil(page, () => inputValue(page, 'llm_wdtype'), (v) => v === 'bf16'), 'bf16');
  });
});

test('5: Compare GPUs refuses fp8 weights on the presets without fp8 instead of running them', async (t) => {
  await h.withPage(t, '?hw=h100-sxm&llm_wdtype=fp8', async (page) => {
    const details = page.locator('.llm-compare');
    await show(details);
    await details.locator('summary').click();
    const rows = await pollUntil(
      page,
      () => page.locator('.llm-compare-table tbody tr').evaluateAll((trs) => trs.map((tr) => ({ hw: tr.dataset.hw, step: tr.dataset.step ?? null, refused: tr.dataset.refused ?? null, text: tr.innerText }))),
      (r) => r.length > 5,
    );
    for (const id of ['m2-max', 'v100', 't4']) {
      const r = rows.find((x) => x.hw === id);
      assert.ok(r, id);
      assert.equal(r.step, null, `${id} has no step time: ${JSON.stringify(r)}`);
      assert.match(r.text, /has no fp8|no fp8/, JSON.stringify(r));
    }
    const h100 = rows.find((x) => x.hw === 'h100-sxm');
    assert.ok(Number(h100.step) > 0, JSON.stringify(h100));
  });
});

// ---------------------------------------------------------------------------
// 6. The grouped-query copies named, and the gain credited to them

test('6: the copies of K and V for every query head are named, and compiling is credited with removing them', async (t) => {
  const q = '?hw=h100-sxm&llm_model=llama3-70b&llm_tp=8&llm_wdtype=fp8&llm_kvdtype=fp8&llm_context=131072&llm_batch=16&roof=datasheet';
  await h.withPage(t, q, async (page) => {
    const advice = await text(page, '#llm .llm-advice');
    assert.match(advice, /copying K and V out to every query head takes/, advice);
    assert.match(advice, /Grouped-query attention: 64 query heads share 8 K\/V heads, but this step first copies K and V out to every query head/, advice);
    assert.match(advice, /An attention that reads the grouped K\/V in place \([^)]*enable_gqa=True[^)]*\) would make the step [\d.]+× faster/, advice);
    const compiled = advice.split('\n').find((l) => l.startsWith('Compiled kernels in one CUDA graph'));
    assert.ok(compiled, advice);
    assert.match(compiled, /[\d.]+× of it is the attention reading the grouped K\/V in place/, compiled);
    assert.match(compiled, /[\d.]+× is fusing the kernels and launching them as one graph/, compiled);
  });
});

// ---------------------------------------------------------------------------
// 7. Achievable roofs beyond the essay by default; an explicit roof for all

async function readouts(page, names) {
  const out = {};
  for (const n of names) out[n] = await metric(page, n);
  return out;
}

test('7: with no roof key the llm and dit widgets run on achievable roofs, the essay on the datasheet; roof= applies to all', async (t) => {
  const beyond = ['llm_step_s', 'llm_tokens_per_s', 'dit_step_s'];
  const essay = ['wall_time_s', 'achieved_flops'];
  const at = async (q) => {
    const page = await h.open(q, { label: `7 ${q}` });
    try {
      await show(page.locator('#llm'));
      await showMore(page, '#dit');
      return { b: await readouts(page, beyond), e: await readouts(page, essay), note: await text(page, '#llm') };
    } finally {
      await h.closePage(page);
    }
  };
  const none = await at('?hw=h100-sxm');
  const ach = await at('?hw=h100-sxm&roof=achievable');
  const ds = await at('?hw=h100-sxm&roof=datasheet');
  assert.deepEqual(none.b, ach.b, 'beyond the essay: no roof key = achievable');
  assert.deepEqual(none.e, ds.e, 'the essay: no roof key = datasheet');
  assert.notDeepEqual(ds.b, ach.b, 'roof=datasheet applies to the llm and dit widgets');
  assert.notDeepEqual(ach.e, ds.e, 'roof=achievable applies to the explorer');
  assert.match(none.note, /achievable roofs/, 'the llm widget says which roofs it uses');
});

// ---------------------------------------------------------------------------
// 8. Controls and sentences that say something

test('8: the link sliders are disabled with the reason on one GPU, enabled on two', async (t) => {
  await h.withPage(t, '', async (page) => {
    await show(page.locator('#llm'));
    for (const id of ['llm_link_bw', 'llm_link_lat']) {
      const slider = page.locator(`#${id}-slider`);
      assert.equal(await slider.isDisabled(), true, `${id} on one GPU`);
      assert.equal(await page.locator(`#${id}-box`).isDisabled(), true, `${id} box on one GPU`);
      const why = await slider.evaluate((el) => {
        const ids = (el.getAttribute('aria-describedby') || '').split(/\s+/).filter(Boolean);
        return ids.map((i) => document.getElementById(i)?.textContent || '').join(' ');
      });
      assert.match(why, /one GPU|single GPU/i, `${id}: the reason (${why})`);
    }
    await page.selectOption('#llm_tp', '2');
    assert.equal(await pollUntil(page, () => page.locator('#llm_link_bw-slider').isDisabled(), (d) => d === false), false);
  });
});

test('8: where the step is overhead-bound yet doubling the batch costs more than 1.2×, a sentence says why', async (t) => {
  await h.withPage(t, '?hw=h100-sxm', async (page) => {
    await explorerBuilt(page);
    assert.equal(await metric(page, 'regime'), 'overhead');
    await show(page.locator('#overhead'));
    const ratio = await metric(page, 'double_batch_ratio');
    assert.ok(ratio >= 1.2, `ratio ${ratio}`);
    const said = await text(page, '#overhead');
    assert.match(said, /the added work shows, yet the launches still set the pace: half the CPU overhead buys [\d.]+×, more than any other halving/, said);
  });
});

// ---------------------------------------------------------------------------
// 9. Small things

test('9: counts of one are singular: one collective, one pipeline stage, one GPU', async (t) => {
  // two pipeline stages on one GPU each: one send per pass
  await h.withPage(t, '?llm_pp=2&dit_sp=1', async (page) => {
    await show(page.locator('#llm'));
    const all = (await text(page, '#llm')) + '\n' + (await text(page, '#dit'));
    assert.match(all, /1 collective per pass/, all);
    const one = all.match(/(^|[^\d.,])1 (GPUs|collectives|stages|pipeline stages|lanes|tokens|sequences|kernels)\b.{0,60}/);
    assert.equal(one, null, one && one[0]);
  });
});

test('9: the scaling chart keeps its "stops paying" label off the data line at 390 px', async (t) => {
  await h.withPage(t, '?embed=dit', async (page) => {
    const canvas = page.locator('#dit-scaling');
    await show(canvas);
    await pollUntil(page, () => canvas.getAttribute('data-frame'), (f) => Number(f) >= 1);
    // the chart's geometry is on its point layer (the canvas's sibling)
    const layer = page.locator('.plot:has(#dit-scaling) .marks');
    const geo = await pollUntil(page, async () => JSON.parse((await layer.getAttribute('data-geometry')) || 'null'), (g) => g && g.labels.length > 0);
    const label = geo.labels.find((l) => /stops/.test(l.name));
    assert.ok(label, JSON.stringify(geo.labels));
    // the total line runs through the marked points
    const pts = await page.locator('#dit-scaling ~ .marks .mark, .plot:has(#dit-scaling) .mark').evaluateAll((ms) =>
      ms.map((m) => ({ x: parseFloat(m.style.left), y: parseFloat(m.style.top) })),
    );
    assert.ok(pts.length >= 2, JSON.stringify(pts));
    const [l, tp, r, b] = label.rect;
    const hits = (a, c) => {
      // a segment against the label's box: sample along it
      for (let i = 0; i <= 50; i++) {
        const x = a.x + ((c.x - a.x) * i) / 50;
        const y = a.y + ((c.y - a.y) * i) / 50;
        if (x >= l && x <= r && y >= tp && y <= b) return true;
      }
      return false;
    };
    for (let i = 1; i < pts.length; i++) assert.ok(!hits(pts[i - 1], pts[i]), `label ${JSON.stringify(label)} over the line ${JSON.stringify([pts[i - 1], pts[i]])}`);
  }, { viewport: { width: 390, height: 844 } });
});

test('9: the llm embed folds its secondary tables at 390 px', async (t) => {
  await h.withPage(t, '?embed=llm', async (page) => {
    await page.waitForSelector('#llm');
    await page.waitForSelector('#llm details.llm-measured-fold');
    // the secondary tables are behind closed disclosures
    const open = await page.evaluate(() => [...document.querySelectorAll('#llm table')].filter((t) => t.getClientRects().length > 0 && !t.closest('details:not([open])')).map((t) => t.className));
    assert.ok(open.length <= 1, `tables shown unfolded: ${open.join(', ')}`);
    // and folding them keeps the embed shorter by at least the measured rows' tables
    const folded = await page.evaluate(() => document.documentElement.scrollHeight);
    await page.evaluate(() => document.querySelectorAll('#llm details').forEach((d) => { d.open = true; }));
    await settle(page);
    const unfolded = await page.evaluate(() => document.documentElement.scrollHeight);
    assert.ok(unfolded - folded > 500, `folded ${folded} px, unfolded ${unfolded} px at 390 px`);
  }, { viewport: { width: 390, height: 844 } });
});

test('9: "Open in brrr" from an embed keeps the theme', async (t) => {
  await h.withPage(t, '?embed=llm&theme=dark', async (page) => {
    const href = await page.locator('.embed-foot a').getAttribute('href');
    assert.match(href, /[?&]theme=dark(&|#|$)/, href);
    assert.doesNotMatch(href, /embed=/, href);
  });
});
