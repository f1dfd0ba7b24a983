// Charts (issue 10): the memory roof is the line bandwidth × intensity at every
// bandwidth (read back from the canvas's pixels, not from what the app says it
// drew), ceiling labels never collide (the essay's fp32 A100 included), every
// plotted point shows its numbers on hover and on keyboard focus, and the hardware
// table speaks one memory unit and names the dtype of each ridge. Screenshots in
// tests/e2e/out/charts/, light and dark.

import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { useHarness, metric, typeBox, setSlider, sliderRange, pollUntil, OUT_DIR, readText, search, canvasHash, canvasPixel, frame, showMore } from './helpers.mjs';

const SHOTS = path.join(OUT_DIR, 'charts');
before(() => {
  fs.rmSync(SHOTS, { recursive: true, force: true });
  fs.mkdirSync(SHOTS, { recursive: true });
});
const h = useHarness();

const EXPLORER = '#roofline-explorer';
// the light palette (src/ui/chart/palette.rs LIGHT)
const MEMORY = [217, 119, 6];
const COMPUTE = [37, 99, 235];
const VECTOR = [124, 58, 237];

/** The chart's geometry (`data-geometry` of its point layer) once it has drawn. */
async function geometry(page, scope = EXPLORER) {
  const sel = `${scope} .marks`;
  // charts draw only on screen
  await page.locator(`${scope} .plot`).first().scrollIntoViewIfNeeded();
  const g = await pollUntil(page, 
    () => page.evaluate((s) => document.querySelector(s)?.getAttribute('data-geometry') ?? null, sel),
    (v) => v !== null && JSON.parse(v).areas.length > 0,
  );
  assert.ok(g && JSON.parse(g).areas.length > 0, `no drawn geometry at ${sel}`);
  return JSON.parse(g);
}

/** Data → CSS pixel on a log-log area, computed here from the axes alone. */
function toPx(area, [x, y]) {
  const [l, t, r, b] = area.rect;
  const f = (v, [lo, hi]) => (Math.log(v) - Math.log(lo)) / (Math.log(hi) - Math.log(lo));
  return [l + f(x, area.x) * (r - l), b - f(y, area.y) * (b - t)];
}

/** The points of a chart: data-* attributes and centre relative to the canvas. */
async function marks(page, scope = EXPLORER) {
  return page.evaluate((s) => {
    const c = document.querySelector(`${s} canvas`).getBoundingClientRect();
    return [...document.querySelectorAll(`${s} .mark`)].map((m) => {
      const r = m.getBoundingClientRect();
      return {
        kind: m.dataset.mark,
        bound: m.dataset.bound,
        x: Number(m.dataset.x),
        y: Number(m.dataset.y),
        cx: r.left + r.width / 2 - c.left,
        cy: r.top + r.height / 2 - c.top,
        label: m.getAttribute('aria-label'),
      };
    });
  }, scope);
}

/**
 * For each [x, y] CSS pixel: whether a pixel within `reach` of it has colour `rgb`
 * (± tol per channel). Reads the canvas's own pixels (DPR 1 in these tests).
 */
async function colourNear(page, pts, rgb, { reach = 2, tol = 40, scope = EXPLORER } = {}) {
  return page.evaluate(
    ({ s, pts, rgb, reach, tol }) => {
      const c = document.querySelector(`${s} canvas`);
      const k = c.width / c.getBoundingClientRect().width;
      // a copy to read from, so the page's own canvas is read back once
      const copy = document.createElement('canvas');
      copy.width = c.width;
      copy.height = c.height;
      const ctx = copy.getContext('2d', { willReadFrequently: true });
      ctx.drawImage(c, 0, 0);
      return pts.map(([x, y]) => {
        const x0 = Math.round((x - reach) * k);
        const y0 = Math.round((y - reach) * k);
        const n = Math.round(2 * reach * k) + 1;
        const d = ctx.getImageData(x0, y0, n, n).data;
        for (let i = 0; i < d.length; i += 4) {
          if (Math.abs(d[i] - rgb[0]) <= tol && Math.abs(d[i + 1] - rgb[1]) <= tol && Math.abs(d[i + 2] - rgb[2]) <= tol) return true;
        }
        return false;
      });
    },
    { s: scope, pts, rgb, reach, tol },
  );
}

const rel = (a, b) => Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b));
const overlap = (a, b) => a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];

async function shot(page, name, sel = `${EXPLORER} .plot`) {
  await page.locator(sel).first().screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

for (const theme of ['light', 'dark']) {
  test(`memory roof at 1 GB/s is bandwidth × intensity and passes through its kernels (${theme})`, async (t) => {
    const bw = 1e9;
    await h.withPage(t, `?bw=1e9&theme=${theme}`, async (page) => {
      const g = await geometry(page);
      const area = g.areas[0];
      const mem = g.lines.find((l) => l.name === 'memory');
      assert.ok(mem, 'the memory roof is drawn');
      // its ends: on the line and inside the axes; it enters through the bottom edge
      for (const [x, y] of [mem.from, mem.to]) {
        assert.ok(rel(y, bw * x) < 1e-9, `end (${x}, ${y}) off y = bw·x`);
        assert.ok(x >= area.x[0] && x <= area.x[1] && y >= area.y[0] * (1 - 1e-12) && y <= area.y[1], `end (${x}, ${y}) outside`);
      }
      assert.ok(rel(mem.from[1], area.y[0]) < 1e-9 && rel(mem.from[0], 0.1) < 1e-9, `enters at (0.1, 1e8), not the corner: ${mem.from}`);

      const pts = await marks(page);
      const kernels = pts.filter((p) => p.kind === 'kernel');
      assert.ok(kernels.length >= 2, `kernel points: ${JSON.stringify(pts)}`);
      for (const k of kernels) {
        // at 1 GB/s every kernel of the default step is memory-bound, on the roof
        assert.equal(k.bound, 'memory', k.label);
        assert.ok(rel(k.y, bw * k.x) < 1e-9, `${k.label}: not on y = bw·x`);
        assert.ok(k.x >= mem.from[0] && k.x <= mem.to[0], `${k.label}: beside the drawn roof ${JSON.stringify(mem)}`);
        // its button sits where the chart's mapping puts it
        const [px, py] = toPx(area, [k.x, k.y]);
        assert.ok(Math.abs(px - k.cx) <= 1.5 && Math.abs(py - k.cy) <= 1.5, `${k.label}: button at (${k.cx}, ${k.cy}), point at (${px}, ${py})`);
      }

      // The pixels: along y = bw·x (from the URL's bandwidth and the axes alone),
      // away from points and labels, the canvas shows the roof's colour.
      if (theme === 'light') {
        const away = (p) =>
          pts.every((m) => Math.hypot(m.cx - p[0], m.cy - p[1]) > 12) &&
          g.labels.every((l) => !overlap(l.rect, [p[0] - 4, p[1] - 4, p[0] + 4, p[1] + 4]));
        const samples = [];
        for (let e = -0.9; e <= 4.9; e += 0.2) {
          const x = 10 ** e;
          const p = toPx(area, [x, bw * x]);
          if (away(p)) samples.push(p);
        }
        assert.ok(samples.length >= 20, `samples: ${samples.length}`);
        const hit = await colourNear(page, samples, MEMORY);
        const missed = samples.filter((_, i) => !hit[i]);
        assert.deepEqual(missed, [], 'the roof is not drawn at y = bw·x here');
        // and no roof where the old one ran: from the axes' corner (0.01, 1e8), where
        // plotters pinned its end, to (1e5, 1e14); at x = 1 that is 10^(8 + 12/7)
        const wrong = toPx(area, [1, 10 ** (8 + 12 / 7)]);
        const [bad] = await colourNear(page, [wrong], MEMORY, { reach: 1 });
        assert.equal(bad, false, 'roof colour off the line');
      }
      await shot(page, `roof-1gbs-${theme}`);
    });
  });
}

/** Check a chart's labels: all present, inside the plot, pairwise apart. */
function assertLabelsApart(g, names) {
  const area = g.areas[0];
  const labels = g.labels;
  for (const n of names) assert.ok(labels.some((l) => l.name === n), `label ${n} missing: ${JSON.stringify(labels)}`);
  for (const l of labels) {
    const [x0, y0, x1, y1] = l.rect;
    const [l0, t0, r0, b0] = area.rect;
    assert.ok(x0 >= l0 - 0.5 && y0 >= t0 - 0.5 && x1 <= r0 + 0.5 && y1 <= b0 + 0.5, `${l.name} outside the plot: ${l.rect}`);
  }
  for (let i = 0; i < labels.length; i++) {
    for (let j = i + 1; j < labels.length; j++) {
      assert.ok(!overlap(labels[i].rect, labels[j].rect), `${labels[i].name} ${labels[i].rect} overlaps ${labels[j].name} ${labels[j].rect}`);
    }
  }
}

for (const [label, viewport] of [['desktop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 844 }]]) {
  test(`fp32 on an A100: ceiling labels apart, each beside its own line, drawn where said (${label})`, async (t) => {
    await h.withPage(
      t,
      '?hw=a100-40gb&dtype=fp32',
      async (page) => {
        const g = await geometry(page);
        assertLabelsApart(g, ['matmul', 'pointwise', 'memory']);
        const area = g.areas[0];
        const line = (n) => g.lines.find((l) => l.name === n);
        assert.equal(line('matmul').from[1], 19.5e12);
        assert.equal(line('pointwise').from[1], 9.75e12);
        // each ceiling label within two label heights of its own line, and not
        // crossed by it
        for (const [name, rgb] of [['matmul', COMPUTE], ['pointwise', VECTOR]]) {
          const r = g.labels.find((l) => l.name === name).rect;
          const y = toPx(area, line(name).from)[1];
          const hgt = r[3] - r[1];
          assert.ok(r[3] <= y || r[1] >= y, `${name} label crosses its line`);
          assert.ok(Math.min(Math.abs(r[3] - y), Math.abs(r[1] - y)) <= 2 * hgt, `${name} label far from its line`);
          // text of the label's colour inside its box: drawn where it says
          const cells = [];
          for (let x = r[0] + 2; x < r[2] - 2; x += 3) cells.push([x, (r[1] + r[3]) / 2]);
          const hits = (await colourNear(page, cells, rgb, { reach: 1.5, tol: 60 })).filter(Boolean).length;
          assert.ok(hits >= cells.length / 3, `${name} label text not found in its box (${hits}/${cells.length})`);
        }
        await shot(page, `a100-fp32-${label}`);
      },
      { viewport },
    );
  });
}

test('dark theme: fp32 A100 labels apart as well', async (t) => {
  await h.withPage(t, '?hw=a100-40gb&dtype=fp32&theme=dark', async (page) => {
    assertLabelsApart(await geometry(page), ['matmul', 'pointwise', 'memory']);
    await shot(page, 'a100-fp32-dark');
  });
});

/** Whether `.mark`'s tooltip is shown, and its text. */
async function tip(page, handle) {
  return handle.evaluate((m) => {
    const t = m.querySelector('.tip');
    const r = t.getBoundingClientRect();
    return { shown: getComputedStyle(t).display !== 'none' && r.width > 0 && r.height > 0, text: t.innerText };
  });
}

for (const theme of ['light', 'dark']) {
  test(`a point shows its numbers on hover and on keyboard focus (${theme})`, async (t) => {
    await h.withPage(t, `?theme=${theme}`, async (page) => {
      await geometry(page);
      const buttons = page.locator(`${EXPLORER} .mark`);
      const n = await buttons.count();
      assert.ok(n >= 3, `points: ${n}`);

      // hover: the step (×) shows the explorer's own readouts
      const step = page.locator(`${EXPLORER} .mark[data-mark="step"]`);
      assert.equal(rel(Number(await step.getAttribute('data-x')), await metric(page, 'intensity')) < 1e-12, true);
      assert.equal(rel(Number(await step.getAttribute('data-y')), await metric(page, 'achieved_flops')) < 1e-12, true);
      assert.equal((await tip(page, await step.elementHandle())).shown, false, 'hidden until hovered');
      await step.hover();
      const s = await tip(page, await step.elementHandle());
      assert.ok(s.shown, 'hover shows the tooltip');
      const wall = (await page.locator('[data-metric="wall_time_s"]').first().innerText()).trim();
      const flops = (await page.locator('[data-metric="achieved_flops"]').first().innerText()).trim();
      assert.match(s.text, /whole step/);
      assert.ok(s.text.includes(wall), `tooltip ${JSON.stringify(s.text)} lacks the wall time ${wall}`);
      assert.ok(s.text.includes(flops), `tooltip ${JSON.stringify(s.text)} lacks ${flops}`);
      assert.match(s.text, /intensity [\d.]+ FLOP\/B/);
      assert.match(s.text, /-bound/);
      await page.mouse.move(2, 2);

      // keyboard: Tab from the last focusable element before the chart (in
      // document order) lands on the chart's first point
      const ok = await page.evaluate((sel) => {
        const first = document.querySelector(`${sel} .mark`);
        const all = [...document.querySelectorAll('a[href], button, input, select, textarea, [tabindex]')].filter(
          (e) => !e.disabled && e.tabIndex >= 0 && e.getClientRects().length > 0 && !e.classList.contains('mark'),
        );
        const before = all.filter((e) => e.compareDocumentPosition(first) & Node.DOCUMENT_POSITION_FOLLOWING).pop();
        before?.focus();
        return before ? document.activeElement === before : false;
      }, EXPLORER);
      assert.ok(ok, 'a focusable element precedes the chart');
      await page.keyboard.press('Tab');
      const first = await page.evaluate(() => ({
        mark: document.activeElement?.classList.contains('mark'),
        kind: document.activeElement?.dataset.mark,
      }));
      assert.deepEqual(first, { mark: true, kind: 'kernel' }, 'Tab reaches the chart’s first point');
      let focused = await page.evaluateHandle(() => document.activeElement);
      let k = await tip(page, focused);
      assert.ok(k.shown, 'focus shows the tooltip');
      assert.match(k.text, /^matmul: 1 kernel\nintensity [\d.]+ FLOP\/B\nattains [\d.]+ [TGP]?FLOP\/s\ntime [\d.]+ [mµn]?s per kernel\n(compute|memory)-bound$/);
      if (theme === 'light') await shot(page, 'focused-point', `${EXPLORER} .chart`);
      else await shot(page, 'focused-point-dark', `${EXPLORER} .chart`);

      // arrow keys move between points; one tab stop for the chart
      await page.keyboard.press('ArrowRight');
      focused = await page.evaluateHandle(() => document.activeElement);
      k = await tip(page, focused);
      assert.ok(k.shown && /^pointwise op: 8 kernels\n/.test(k.text), JSON.stringify(k));
      const stops = await page.evaluate((s) => [...document.querySelectorAll(`${s} .mark`)].filter((m) => m.tabIndex === 0).length, EXPLORER);
      assert.equal(stops, 1, 'one tab stop per chart');
      // Escape hides the tooltip, focus stays
      await page.keyboard.press('Escape');
      assert.equal((await tip(page, focused)).shown, false, 'Escape hides it');
      assert.equal(await page.evaluate(() => document.activeElement?.dataset.mark), 'kernel');
    });
  });
}

test('points follow the state: a new bandwidth moves the kernels onto the new roof', async (t) => {
  await h.withPage(t, '?bw=1e9', async (page) => {
    await geometry(page);
    await typeBox(page, 'bw', '0.01');
    const kernels = await pollUntil(page, 
      async () => (await marks(page)).filter((m) => m.kind === 'kernel'),
      (ks) => ks.length > 0 && ks.every((k) => k.bound === 'compute' || rel(k.y, 1e10 * k.x) < 1e-9),
    );
    const g = await geometry(page);
    const mem = g.lines.find((l) => l.name === 'memory');
    assert.ok(rel(mem.from[1], 1e10 * mem.from[0]) < 1e-9, JSON.stringify(mem));
    for (const k of kernels.filter((k) => k.bound === 'memory')) {
      assert.ok(rel(k.y, 1e10 * k.x) < 1e-9, k.label);
      const [px, py] = toPx(g.areas[0], [k.x, k.y]);
      assert.ok(Math.abs(px - k.cx) <= 1.5 && Math.abs(py - k.cy) <= 1.5, `${k.label}: button off its point`);
    }
  });
});

test('a focused point keeps its focus and tooltip while a slider redraws the chart', async (t) => {
  await h.withPage(t, '', async (page) => {
    await geometry(page);
    // the pointwise kernel's own button (a handle: the same node throughout)
    const point = await page.locator(`${EXPLORER} .mark[data-mark="kernel"][data-bound="memory"]`).first().elementHandle();
    assert.match(await point.getAttribute('aria-label'), /^pointwise op/);
    await point.focus();
    const before = Number(await point.getAttribute('data-y'));
    const frame = await page.evaluate((s) => Number(document.querySelector(`${s} canvas`).dataset.frame), EXPLORER);
    const r = await sliderRange(page, 'bw');
    await setSlider(page, 'bw', r.value - (r.max - r.min) / 10);
    const after = await pollUntil(page, async () => Number(await point.getAttribute('data-y')), (y) => y !== before);
    assert.ok(after < before, `the point moved down with the bandwidth: ${before} -> ${after}`);
    const frame2 = await page.evaluate((s) => Number(document.querySelector(`${s} canvas`).dataset.frame), EXPLORER);
    assert.ok(frame2 > frame, 'redrawn');
    const still = await point.evaluate((m) => document.activeElement === m);
    assert.ok(still, 'the same button keeps the focus');
    const t2 = await tip(page, point);
    assert.ok(t2.shown, 'and its tooltip');
    const bw = await metric(page, 'achieved_bw');
    assert.ok(bw > 0);
  });
});

test('points drawn on top of each other: the top one’s tooltip names both (op calculator)', async (t) => {
  await h.withPage(t, '', async (page) => {
    await showMore(page, '#calculator');
    await geometry(page, '#calculator');
    const pts = await marks(page, '#calculator');
    const step = pts.find((p) => p.kind === 'step');
    const kernel = pts.find((p) => p.kind === 'kernel');
    // a single matmul: the whole step sits (almost) on its kernel
    assert.ok(step && kernel && Math.hypot(step.cx - kernel.cx, step.cy - kernel.cy) < 10, JSON.stringify(pts));
    const top = page.locator('#calculator .mark[data-mark="step"]');
    await top.hover();
    const s = await tip(page, await top.elementHandle());
    assert.ok(s.shown);
    assert.match(s.text, /^whole step, overhead included\n[^]*\n\nmatmul: 1 kernel\n/);
    await shot(page, 'calculator-stacked-tooltip', '#calculator .plot');
  });
});

test('microbenchmark points show their numbers on hover and focus', async (t) => {
  await h.withPage(t, '', async (page) => {
    await page.locator('#microbench').scrollIntoViewIfNeeded();
    const g = await geometry(page, '#microbench');
    assert.equal(g.areas.length, 3, 'three panels');
    const pts = await marks(page, '#microbench');
    assert.ok(pts.length >= 3 * 8, `points: ${pts.length}`);
    // every point sits where its panel's mapping puts it
    for (const p of pts) {
      const near = g.areas.some((a) => {
        const [x, y] = toPx(a, [p.x, p.y]);
        return Math.abs(x - p.cx) <= 1.5 && Math.abs(y - p.cy) <= 1.5;
      });
      assert.ok(near, `${p.label}: button off its point`);
    }
    const b = page.locator('#microbench .mark').nth(4);
    await b.hover();
    const s = await tip(page, await b.elementHandle());
    assert.ok(s.shown);
    assert.match(s.text, /^repeat \d+\nintensity [\d.]+ FLOP\/B\nruntime [\d.]+ [mµn]?s\nattains [\d.]+ [kMGTP]?FLOP\/s\nbandwidth [\d.]+ [kMGTP]?B\/s\nkernel (memory|compute)-bound$/);
    await page.mouse.move(2, 2);
    await b.focus();
    assert.ok((await tip(page, await b.elementHandle())).shown, 'focus shows it');
    await shot(page, 'microbench-tooltip', '#microbench .plot');
  });
});

test('generations points show their GPU, year and value on hover and focus', async (t) => {
  await h.withPage(t, '', async (page) => {
    await page.locator('#generations').scrollIntoViewIfNeeded();
    const g = await geometry(page, '#generations');
    assert.equal(g.areas.length, 1);
    const pts = await marks(page, '#generations');
    assert.ok(pts.length >= 20, `points: ${pts.length}`);
    for (const p of pts) {
      const [x, y] = toPx(g.areas[0], [p.x, p.y]);
      assert.ok(Math.abs(x - p.cx) <= 1.5 && Math.abs(y - p.cy) <= 1.5, `${p.label}: button off its point`);
    }
    const b = page.locator('#generations .mark').nth(2);
    await b.hover();
    const s = await tip(page, await b.elementHandle());
    assert.ok(s.shown);
    assert.match(s.text, /^.+ \(20\d\d\)\n(fp32|16-bit tensor|memory bandwidth): [\d.]+ [kMGTP]?(FLOP|B)\/s$/);
    await page.mouse.move(2, 2);
    await b.focus();
    assert.ok((await tip(page, await b.elementHandle())).shown, 'focus shows it');
  });
});

for (const theme of ['light', 'dark']) {
  test(`hardware table: one memory unit (GB = 1e9 bytes), each ridge names its dtype (${theme})`, async (t) => {
    await h.withPage(t, `?theme=${theme}`, async (page) => {
      await showMore(page, '#hardware');
      const table = page.locator('#hardware table');
      assert.match(await readText(table.locator('caption')), /GB = 10⁹ bytes/);
      const rows = await page.evaluate(() =>
        [...document.querySelectorAll('#hardware tr[data-preset]')].map((r) => ({
          id: r.dataset.preset,
          bw: r.querySelector('[data-col=bandwidth]')?.innerText.trim(),
          mem: r.querySelector('[data-col=memory]')?.innerText.trim(),
          ridge: r.querySelector('[data-col=ridge]')?.innerText.trim(),
          dtype: r.querySelector('[data-col=ridge]')?.dataset.dtype,
          link: r.querySelector('[data-col=link]')?.innerText.trim(),
        })),
      );
      assert.ok(rows.length >= 10);
      for (const r of rows) {
        assert.match(r.bw, /^\d{1,3}(,\d{3})* GB\/s$/, `${r.id} bandwidth`);
        assert.match(r.mem, /^\d{1,3}(,\d{3})* GB$/, `${r.id} memory`);
        assert.match(r.ridge, /^[\d.]+ FLOP\/B \((fp32|tf32 tensor|bf16\/fp16 tensor|bf16 matrix|fp8 tensor)\)$/, `${r.id} ridge`);
      }
      const row = (id) => rows.find((r) => r.id === id);
      assert.deepEqual(
        [row('a100-40gb').bw, row('a100-40gb').mem, row('a100-40gb').ridge, row('a100-40gb').dtype],
        ['1,555 GB/s', '40 GB', '201 FLOP/B (bf16/fp16 tensor)', 'bf16'],
      );
      assert.deepEqual([row('h200').mem, row('m2-max').ridge, row('m2-max').dtype], ['141 GB', '34 FLOP/B (fp32)', 'fp32']);
      // each preset names the link its GPUs are joined by (issue 24); the laptop none
      assert.deepEqual([row('h100-sxm').link, row('h100-pcie').link, row('m2-max').link],
        ['NVLink 4 (H100 / H200 SXM), 450 GB/s', 'PCIe 5.0 x16, 64 GB/s', 'none']);
      // no other memory unit in the figures (the source column quotes datasheets)
      const figures = await page.evaluate(() =>
        [...document.querySelectorAll('#hardware td:not(.source)')].map((td) => td.innerText).join(' '),
      );
      assert.doesNotMatch(figures, /GiB|TB\/s|MB\/s|\bTB\b/);
      await shot(page, `hardware-${theme}`, '#hardware');
    });
  });
}

test('a redraw that copies the kept axes back is pixel-identical to a fresh drawing; a theme switch draws new ones', async (t) => {
  // Charts draw their background, axes, grid and labels once and copy that
  // picture back on later redraws (ui::chart::backend::Layer). A state reached by
  // sliders (drawn from the kept picture) must give exactly the pixels of the
  // same state opened from its address (drawn afresh), and anything the
  // picture depends on (here the theme) must draw it anew.
  const pixels = async (page) => ({ frame: await frame(page), hash: await canvasHash(page), corner: await canvasPixel(page) });
  const redrawn = (page, after) => pollUntil(page, () => pixels(page), (p) => p.frame > after.frame);
  const same = (a, b) => a.hash === b.hash;
  let moved;
  let query;
  await h.withPage(t, '?theme=light', async (page) => {
    const first = await pixels(page);
    assert.deepEqual(first.corner, [255, 255, 255], 'light background');
    const { min, max } = await sliderRange(page, 'bw');
    for (const v of [0.3, 0.7, 0.55].map((f) => min + f * (max - min))) {
      const before = await pixels(page);
      await setSlider(page, 'bw', v);
      moved = await redrawn(page, before);
      assert.ok(!same(moved, before), `bw ${v}: the chart did not change`);
    }
    query = await search(page);
    const lit = await pixels(page);
    await page.locator('#theme-toggle').click();
    const dark = await redrawn(page, lit);
    assert.ok(Math.max(...dark.corner) < 80, `after the switch to dark the chart's background is ${dark.corner}, not dark`);
  });
  await h.withPage(t, query, async (page) => {
    const fresh = await pixels(page);
    assert.equal(fresh.frame, 1, 'opened from its address, the chart is drawn once');
    assert.ok(same(fresh, moved), `${query}: drawn afresh, the chart differs from the same state drawn from the kept axes`);
  });
});
