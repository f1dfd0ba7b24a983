// Share, embed and ship (issue 5): embed mode per widget, Copy link / Copy embed
// code, chart exports (PNG, SVG, CSV), offline reload via the service worker, dark
// mode, a 360 px layout. Screenshots of every embed, light and dark, go to
// tests/e2e/out/embeds/.

import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { useHarness, waitReady, inputValue, pollUntil, search, WIDGET_IDS, OUT_DIR, DEFAULT_ROOT, canvasPixel, settle, drawnPast, showMore } from './helpers.mjs';

const SHOTS = path.join(OUT_DIR, 'embeds');

before(() => {
  fs.rmSync(SHOTS, { recursive: true, force: true });
  fs.mkdirSync(SHOTS, { recursive: true });
});
const h = useHarness();

test('each embed URL shows only its widget, with its state and a link to the full page', async () => {
  for (const id of WIDGET_IDS) {
    const page = await h.open(`?embed=${id}&batch=64&ops=16`, { viewport: { width: 800, height: 700 } });
    assert.equal(await page.locator('header.top').count(), 0, `${id}: page chrome shown in embed`);
    assert.equal(await page.locator('section.widget').count(), 1, `${id}: not exactly one widget`);
    assert.equal(await page.locator(`section.widget#${id}`).count(), 1, `${id}: wrong widget`);
    const q = await search(page);
    assert.equal(new URLSearchParams(q).get('embed'), id, `${id}: embed= lost from the URL`);
    assert.equal(new URLSearchParams(q).get('batch'), '64');
    const href = await page.locator('.embed-foot a').getAttribute('href');
    const u = new URL(href);
    assert.equal(u.searchParams.get('embed'), null, 'open-in-brrr link still embeds');
    assert.equal(u.searchParams.get('batch'), '64');
    assert.equal(u.hash, `#${id}`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `${id}: embed ${overflow}px wider than its frame`);
    for (const dark of [false, true]) {
      if (dark) await page.locator('#theme-toggle').count().then(async (n) => {
        // no toggle in embeds: use the system preference
        assert.equal(n, 0);
      });
      await page.emulateMedia({ colorScheme: dark ? 'dark' : 'light' });
      if (dark) {
        await page.reload();
        await waitReady(page);
      }
      await settle(page); // the charts redraw in the new palette
      await page.screenshot({ path: path.join(SHOTS, `${id}-${dark ? 'dark' : 'light'}.png`), fullPage: true });
    }
    await h.closePage(page);
  }
  // an unknown id shows the full page and says why
  const bad = await h.open('?embed=nope');
  assert.equal(await bad.locator('#url-notices li[data-param="embed"]').count(), 1);
  assert.equal(await bad.locator('header.top').count(), 1);
});

/** Activates a button as a keyboard user does: focus, then Enter. */
async function press(locator) {
  await locator.focus();
  await locator.page().keyboard.press('Enter');
}

test('Copy link reproduces the state and scrolls to the widget', async () => {
  const page = await h.open('?batch=512&ops=32&fusion_n=6');
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  // pressed from the keyboard: a mouse click lands at coordinates taken before
  // it is sent, and widgets coming into view above (content-visibility) can
  // move the button in between on a loaded machine (the flaky run of issue 25)
  await press(page.locator('#fusion [data-share="link"]'));
  const text = page.locator('#fusion .share-text');
  await text.waitFor();
  const link = await text.inputValue();
  // the status says "copying…" until the clipboard's promise settles
  const status = await pollUntil(page, () => page.locator('#fusion .share-status').innerText(), (t) => /copied|copy it/.test(t));
  assert.match(status, /copied|copy it/);
  const clip = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(clip, link, 'clipboard holds the link');
  const u = new URL(link);
  assert.equal(u.hash, '#fusion');
  const other = await h.open(u.search + u.hash);
  assert.equal(await inputValue(other, 'batch-box'), '512');
  assert.equal(await inputValue(other, 'ops-box'), '32');
  assert.equal(await inputValue(other, 'fusion_n-box'), '6');
  const top = await pollUntil(other, () => other.evaluate(() => document.getElementById('fusion').getBoundingClientRect().top), (t) => Math.abs(t) < 200);
  assert.ok(Math.abs(top) < 200, 'link did not scroll to the widget');
});

test('Copy embed code gives a lazy iframe whose src embeds the widget with this state', async () => {
  const page = await h.open('?batch=128');
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await press(page.locator('#microbench [data-share="embed"]'));
  const code = await page.locator('#microbench .share-text').inputValue();
  const attrs = await page.evaluate((html) => {
    const d = document.createElement('div');
    d.innerHTML = html; // test-side parsing of the snippet, not app code
    const f = d.querySelector('iframe');
    return f && { src: f.getAttribute('src'), title: f.title, width: f.getAttribute('width'), height: f.getAttribute('height'), loading: f.getAttribute('loading') };
  }, code);
  assert.ok(attrs, `no iframe in ${code}`);
  assert.equal(attrs.loading, 'lazy');
  assert.match(attrs.title, /brrr/);
  assert.ok(Number(attrs.height) >= 300, `height ${attrs.height}`);
  assert.ok(attrs.width);
  const u = new URL(attrs.src);
  assert.equal(u.searchParams.get('embed'), 'microbench');
  assert.equal(u.searchParams.get('batch'), '128');
  const framed = await h.open(u.search);
  assert.equal(await framed.locator('section.widget#microbench').count(), 1);
});

test('chart exports: a PNG, a parseable SVG and a CSV with the right columns', async () => {
  const page = await h.open('');
  const grab = async (sel, kind) => {
    const [dl] = await Promise.all([page.waitForEvent('download'), page.locator(`${sel} [data-export="${kind}"]`).first().click()]);
    const file = path.join(OUT_DIR, `export-${dl.suggestedFilename()}`);
    await dl.saveAs(file);
    return { name: dl.suggestedFilename(), data: fs.readFileSync(file) };
  };
  const png = await grab('#roofline-explorer', 'png');
  assert.equal(png.name, 'brrr-roofline-canvas.png');
  assert.deepEqual([...png.data.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10], 'not a PNG');
  const svg = await grab('#roofline-explorer', 'svg');
  const svgText = svg.data.toString('utf8');
  const parsed = await page.evaluate((t) => {
    const doc = new DOMParser().parseFromString(t, 'image/svg+xml');
    return { err: doc.querySelector('parsererror') !== null, root: doc.documentElement.nodeName, texts: doc.querySelectorAll('text').length, lines: doc.querySelectorAll('polyline, line, path').length };
  }, svgText);
  assert.equal(parsed.err, false, 'SVG does not parse');
  assert.equal(parsed.root, 'svg');
  assert.ok(parsed.texts > 5 && parsed.lines > 2, `SVG has ${parsed.texts} texts, ${parsed.lines} lines`);
  const csv = (await grab('#roofline-explorer', 'csv')).data.toString('utf8').trim().split('\n');
  assert.equal(csv[0], 'kind,name,value,intensity_flop_per_byte,attained_flop_per_s');
  assert.ok(csv.some((l) => l.startsWith('kernel,matmul,')));
  // the microbenchmark's CSV: one row per repeat
  await page.locator('#microbench').scrollIntoViewIfNeeded();
  const mb = (await grab('#microbench', 'csv')).data.toString('utf8').trim().split('\n');
  assert.equal(mb[0], 'repeat,runtime_s,achieved_flop_per_s,achieved_bytes_per_s,bound,regime,overhead_share');
  assert.equal(mb.length, 12);
  // the default (fp32, 2^28 elements): memory-bound through 32, compute-bound from 64
  assert.ok(mb[6].startsWith('32,') && mb[6].includes(',memory,memory,'), mb[6]);
  assert.ok(mb[7].startsWith('64,') && mb[7].includes(',compute,compute,'), mb[7]);
});

/**
 * Installed before the app loads: WebAssembly.instantiateStreaming records the
 * sizes of the chunks its Response's body arrives in (window.__wasmChunks) and
 * the Response's URL (window.__wasmUrl: a fetch's own Response has one, one
 * built in script has none); with `plain`, the browser has no TransformStream.
 */
function chunkProbe(plain) {
  if (plain) delete self.TransformStream;
  window.__wasmChunks = [];
  const orig = WebAssembly.instantiateStreaming;
  WebAssembly.instantiateStreaming = async (source, imports) => {
    const r = await source;
    window.__wasmUrl = r.url;
    const [mine, theirs] = r.body.tee();
    (async () => {
      const reader = theirs.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        window.__wasmChunks.push(value.length);
      }
    })();
    return orig.call(WebAssembly, new Response(mine, r), imports);
  };
}

test('the loader hands the module to WebAssembly in slices of at most 64 KB, a browser without TransformStream gets it whole', async () => {
  const size = fs.statSync(path.join(DEFAULT_ROOT, fs.readdirSync(DEFAULT_ROOT).find((f) => /^brrr-[0-9a-f]+_bg\.wasm$/.test(f)))).size;
  for (const plain of [false, true]) {
    const page = await h.open('', { label: `loader ${plain ? 'plain' : 'sliced'}` });
    await page.context().addInitScript(chunkProbe, plain);
    await page.reload({ waitUntil: 'load' });
    await waitReady(page);
    const chunks = await pollUntil(page, () => page.evaluate(() => window.__wasmChunks), (c) => c.reduce((a, b) => a + b, 0) === size);
    const url = await page.evaluate(() => window.__wasmUrl);
    if (plain) {
      // the fetch's own Response, as it came (its chunks are the network's)
      assert.match(url, /_bg\.wasm$/, `without TransformStream the module came from ${JSON.stringify(url)}`);
    } else {
      assert.equal(url, '', 'the sliced module is a Response built by the loader');
      assert.ok(chunks.length >= Math.ceil(size / 65536), `${chunks.length} chunks for ${size} bytes`);
      assert.ok(chunks.every((n) => n <= 65536), `a chunk over 64 KB: ${chunks.join(', ')}`);
    }
    await h.closePage(page);
  }
});

/** Installed before any page script: at the first frame, whether each deferred
 * section's heading was laid out (checkVisibility is false for what a
 * `content-visibility: auto` ancestor skips). */
function deferProbe() {
  requestAnimationFrame(() => {
    window.__deferredAtFirstFrame = [...document.querySelectorAll('[data-defer]')].map((s) => ({
      id: s.id,
      laidOut: s.querySelector('h2').checkVisibility({ contentVisibilityAuto: true }),
      // a section near the screen may be drawn at once (the browser's margin)
      far: s.getBoundingClientRect().top > 2 * innerHeight,
    }));
  });
}

test('the first paint lays out the first screen alone; the sections below are laid out before the page is ready', async () => {
  // issue 33: the whole static essay's first layout was one task of 75-120 ms at 4x CPU
  const page = await h.open('', { label: 'deferred sections', viewport: { width: 412, height: 823 } });
  await page.context().addInitScript(deferProbe);
  await page.reload({ waitUntil: 'load' });
  await waitReady(page);
  const first = await page.evaluate(() => window.__deferredAtFirstFrame);
  assert.ok(first && first.length >= 9, `sections deferred at the first frame: ${JSON.stringify(first)}`);
  const far = first.filter((s) => s.far);
  assert.ok(far.length >= 7, `sections far below the first screen: ${JSON.stringify(first)}`);
  for (const s of far) assert.equal(s.laidOut, false, `#${s.id}, far below the screen, was laid out for the first paint`);
  // by the time the page is ready (and jumps to a #fragment), every section has
  // its real size: none is left standing in at a guessed height
  const after = await page.evaluate((ids) => ({
    left: document.querySelectorAll('[data-defer]').length,
    laidOut: ids.map((id) => document.getElementById(id).querySelector('h2').checkVisibility({ contentVisibilityAuto: true })),
    below: ids.map((id) => document.getElementById(id).getBoundingClientRect().top > innerHeight),
  }), far.map((s) => s.id));
  assert.equal(after.left, 0, 'a section is still deferred once the page is ready');
  assert.ok(after.below.every(Boolean), 'the sections checked are below the screen');
  assert.ok(after.laidOut.every(Boolean), `a section below the screen is not laid out: ${JSON.stringify(after.laidOut)}`);
  await h.closePage(page);
});

test('works offline after the first visit (service worker)', async () => {
  const page = await h.open('?batch=96');
  const ok = await page.evaluate(async () => {
    const reg = await navigator.serviceWorker.ready;
    // sw.js claims the page once active: the page's `controllerchange` says so
    if (!navigator.serviceWorker.controller) {
      await new Promise((r) => navigator.serviceWorker.addEventListener('controllerchange', r, { once: true }));
    }
    return !!reg.active;
  });
  assert.ok(ok, 'service worker did not activate');
  // wait until the assets are cached
  await pollUntil(page, () => page.evaluate(async () => (await caches.keys()).length), (n) => n > 0);
  await page.context().setOffline(true);
  await page.reload();
  await waitReady(page);
  assert.equal(await inputValue(page, 'batch-box'), '96');
  await page.context().setOffline(false);
});

test('dark mode: follows the system, toggles, is remembered, and charts switch palette', async () => {
  const page = await h.open('');
  await page.emulateMedia({ colorScheme: 'light' });
  const bg = async () => (await canvasPixel(page)).reduce((a, b) => a + b, 0);
  await drawnPast(page);
  assert.ok((await bg()) > 600, 'light chart background should be light');
  await page.locator('#theme-toggle').click();
  assert.equal(await page.getAttribute('html', 'data-theme'), 'dark');
  assert.ok((await pollUntil(page, bg, (v) => v < 200)) < 200, 'dark chart background should be dark');
  await page.reload();
  await waitReady(page);
  assert.equal(await page.getAttribute('html', 'data-theme'), 'dark', 'theme not remembered');
  await page.screenshot({ path: path.join(OUT_DIR, 'dark-1440.png') });
  // a fresh visitor whose system is dark gets dark
  const ctx = await h.browser.newContext({ colorScheme: 'dark' });
  const p2 = await ctx.newPage();
  await p2.goto(h.url);
  await waitReady(p2);
  assert.equal(await p2.getAttribute('html', 'data-theme'), 'dark');
  await h.closeContext(ctx);
});

test('theme= in the URL fixes the theme (for embeds in course pages), stays in the URL, and a bad value is a notice', async () => {
  const openIn = async (colorScheme, query) => {
    const ctx = await h.browser.newContext({ colorScheme, viewport: { width: 900, height: 900 } });
    const page = await ctx.newPage();
    await page.goto(h.url + query);
    await waitReady(page);
    return page;
  };
  // a light course page embedding the factory, seen by a visitor whose system is dark
  const light = await openIn('dark', '?embed=factory&theme=light');
  await showMore(light, '#factory'); // the factory loads on demand
  assert.equal(await light.getAttribute('html', 'data-theme'), 'light');
  await light.locator('#factory-double').click();
  const q = await pollUntil(light, () => light.evaluate(() => location.search), (s) => s.includes('flops='));
  assert.match(q, /flops=/, 'the state change rewrote the URL');
  assert.match(q, /(^|[?&])theme=light(&|$)/, `the theme stays in the URL: ${q}`);
  assert.match(q, /(^|[?&])embed=factory(&|$)/);
  await h.closeContext(light.context());
  // and the other way round, on the full page; the toggle then rewrites theme=
  const dark = await openIn('light', '?theme=dark');
  assert.equal(await dark.getAttribute('html', 'data-theme'), 'dark');
  await dark.locator('#theme-toggle').click();
  assert.equal(await dark.getAttribute('html', 'data-theme'), 'light');
  const q2 = await pollUntil(dark, () => dark.evaluate(() => location.search), (s) => s.includes('theme=light'));
  assert.match(q2, /(^|[?&])theme=light(&|$)/, `the URL follows the toggle: ${q2}`);
  await h.closeContext(dark.context());
  // a bad value: a notice, and the system's theme
  const bad = await openIn('dark', '?theme=purple');
  assert.equal(await bad.getAttribute('html', 'data-theme'), 'dark');
  assert.equal(await bad.locator('#url-notices li[data-param="theme"]').count(), 1);
  await h.closeContext(bad.context());
});

test('dark mode: the factory picture as shown on screen is dark, and light in light mode', async () => {
  // The factory canvas is drawn with one palette and themed by CSS, so its pixels
  // never change: only a screenshot shows what the visitor sees.
  const meanLuma = async (colorScheme) => {
    const ctx = await h.browser.newContext({ colorScheme, viewport: { width: 1000, height: 900 } });
    try {
      const page = await ctx.newPage();
      await page.goto(h.url + '?embed=factory');
      await waitReady(page);
      await showMore(page, '#factory');
      assert.equal(await page.getAttribute('html', 'data-theme'), colorScheme);
      const canvas = page.locator('#factory-canvas');
      await drawnPast(page, '#factory-canvas');
      const png = (await canvas.screenshot()).toString('base64');
      return await page.evaluate(async (b64) => {
        const img = new Image();
        img.src = 'data:image/png;base64,' + b64;
        await img.decode();
        const c = document.createElement('canvas');
        c.width = img.width;
        c.height = img.height;
        const x = c.getContext('2d');
        x.drawImage(img, 0, 0);
        const d = x.getImageData(0, 0, c.width, c.height).data;
        let sum = 0;
        for (let i = 0; i < d.length; i += 4) sum += 0.2126 * d[i] + 0.7152 * d[i + 1] + 0.0722 * d[i + 2];
        return sum / (d.length / 4);
      }, png);
    } finally {
      await h.closeContext(ctx);
    }
  };
  const light = await meanLuma('light');
  const dark = await meanLuma('dark');
  assert.ok(light > 180, `light factory should be mostly light, mean luma ${light.toFixed(0)}`);
  assert.ok(dark < 90, `dark factory should be mostly dark, mean luma ${dark.toFixed(0)}`);
});

test('print: a dark-theme page prints in the light colours, its charts inverted back to light', async () => {
  const ctx = await h.browser.newContext({ colorScheme: 'dark', viewport: { width: 1000, height: 900 } });
  try {
    const page = await ctx.newPage();
    await page.goto(h.url);
    await waitReady(page);
    await showMore(page, '#factory'); // its canvas: the factory loads on demand
    const look = () => page.evaluate(() => {
      const css = (sel, prop) => getComputedStyle(document.querySelector(sel))[prop];
      return {
        bg: css('body', 'backgroundColor'),
        ink: css('body', 'color'),
        chart: css('#roofline-canvas', 'filter'),
        factory: css('#factory-canvas', 'filter'),
      };
    });
    const screen = await look();
    assert.notEqual(screen.bg, 'rgb(255, 255, 255)', 'on screen the dark theme has a dark background');
    assert.equal(screen.chart, 'none');
    await page.emulateMedia({ media: 'print' });
    const paper = await look();
    assert.equal(paper.bg, 'rgb(255, 255, 255)');
    assert.equal(paper.ink, 'rgb(0, 0, 0)');
    assert.match(paper.chart, /invert\(1\)/, `dark-palette charts print inverted: ${paper.chart}`);
    assert.equal(paper.factory, 'none', 'the factory is drawn light, so it prints as drawn');
    await page.screenshot({ path: path.join(OUT_DIR, 'print-dark-theme.png') });
  } finally {
    await h.closeContext(ctx);
  }
});

test('360 px wide: no horizontal scrolling anywhere on the page', async () => {
  const page = await h.open('', { viewport: { width: 360, height: 740 } });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `page is ${overflow}px wider than 360px`);
  const wide = await page.evaluate(() => [...document.querySelectorAll('body *')]
    .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1 && !e.closest('.table-scroll, .kernels'))
    .slice(0, 5).map((e) => `${e.tagName}.${e.className}`));
  assert.deepEqual(wide, [], `elements past the right edge: ${wide}`);
});
