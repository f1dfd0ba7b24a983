// Embeds that size themselves, and the explorer on a phone (issue 10):
// - every widget's copied embed snippet has a height that fits the widget at 720 px
//   wide in its default state (so a widget that grows fails here, and its height in
//   its src/state/widgets/ file must follow);
// - an embed posts {type: "brrr:height", id, height} to the page around it, on load
//   and whenever its height changes, and docs/contract.md's host-page snippet (run here as
//   written) makes the iframe follow it: no scrollbar inside, no empty space below;
// - at 390 × 844 the explorer's roofline stays on screen, unobstructed, while any of
//   its sliders is scrolled to and moved; on a wide screen it sits beside them.
// Screenshots go to tests/e2e/out/embed/.

import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { useHarness, WIDGET_IDS, ON_DEMAND_IDS, OUT_DIR, REPO_ROOT, settle, pollUntil, frame, waitReady, drawnPast, READY_TIMEOUT_MS, showMore } from './helpers.mjs';

const SHOTS = path.join(OUT_DIR, 'embed');

/** The contract's host-page snippet: the ```html block that handles "brrr:height". */
function readmeSnippet() {
  const md = fs.readFileSync(path.join(REPO_ROOT, 'docs', 'contract.md'), 'utf8');
  const blocks = [...md.matchAll(/```html\n([\s\S]*?)```/g)].map((m) => m[1]);
  const snippet = blocks.find((b) => b.includes('brrr:height'));
  if (!snippet) throw new Error('docs/contract.md has no ```html block handling "brrr:height"');
  return snippet;
}

// A course page embedding a widget, served by the test server next to the app.
// Its own listener records every message; the contract's snippet does the resizing.
const HOST = `<!doctype html>
<html><head><meta charset="utf-8"><title>A course page</title>
<link rel="icon" href="data:,">
<style>body { margin: 0; padding: 8px; font-family: sans-serif; } iframe { display: block; }</style>
</head><body>
<p>Some course text above the widget.</p>
<script>
  window.__messages = [];
  addEventListener("message", (e) => window.__messages.push({ data: e.data, origin: e.origin }));
</script>
${readmeSnippet()}
<iframe id="w" src="./?embed=fusion&amp;theme=light" title="brrr: fusion" width="100%" height="150" style="border:0"></iframe>
<p id="after">Text below the widget.</p>
</body></html>`;

before(() => {
  fs.rmSync(SHOTS, { recursive: true, force: true });
  fs.mkdirSync(SHOTS, { recursive: true });
});
// A course page with a copied embed code pasted into it as is (passed in the
// address's hash; document.write runs its script as a pasted one would run).
const PASTE = `<!doctype html>
<html><head><meta charset="utf-8"><title>A course page</title>
<link rel="icon" href="data:,">
<style>body { margin: 0; padding: 8px; font-family: sans-serif; } iframe { display: block; }</style>
</head><body>
<p>Some course text above the widget.</p>
<script>document.write(decodeURIComponent(location.hash.slice(1)));</script>
<p id="after">Text below the widget.</p>
</body></html>`;

/** docs/contract.md's resize script (its generated region `embed-resize`). */
function resizeScript() {
  const md = fs.readFileSync(path.join(REPO_ROOT, 'docs', 'contract.md'), 'utf8');
  const m = /<!-- generated: embed-resize -->\n```html\n(.*)\n```\n<!-- end: embed-resize -->/.exec(md);
  if (!m) throw new Error('docs/contract.md has no embed-resize region');
  return m[1];
}

const h = useHarness({ files: { 'embed-host.html': HOST, 'embed-paste.html': PASTE } });

/** Wait until a widget has settled: its charts drawn, the lab's probe done. */
async function settleWidget(page, id) {
  if (id === 'lab') {
    await page.waitForSelector('.lab[data-lab-gpu=ready], .lab[data-lab-gpu=missing]', { timeout: 15_000 });
  }
  if (ON_DEMAND_IDS.includes(id)) {
    // their module is imported once the widget is on screen (at once in an embed)
    await page.waitForSelector(`#${id} .more-app > *`, { timeout: 60_000 });
  }
  if (id === 'trace') {
    // its example is parsed by a worker once the widget is on screen
    await page.waitForSelector('[data-trace-state=example], [data-trace-state=error]', { timeout: 60_000 });
  }
  // every chart drawn at least once: each canvas's own count
  // (a canvas in a closed fold is not rendered, so never drawn: not waited for)
  await page.waitForFunction(() => [...document.querySelectorAll('canvas[data-frame]')].filter((c) => !c.closest('details:not([open])')).every((c) => Number(c.dataset.frame) >= 1), null, {
    timeout: READY_TIMEOUT_MS,
  });
  await settle(page);
}

test("every widget fits its copied embed snippet's height at 720 px wide", async () => {
  const report = [];
  for (const id of WIDGET_IDS) {
    // the snippet's height, as the page's own Copy embed code gives it (read from
    // the embed itself: not every widget is framed on the full page)
    const probe = await h.open(`?embed=${id}`, { viewport: { width: 720, height: 800 } });
    await probe.locator(`section.widget#${id} [data-share="embed"]`).click();
    const code = await probe.locator(`section.widget#${id} .share-text`).inputValue();
    const m = code.match(/ height="(\d+)"/);
    assert.ok(m, `${id}: no height in ${code}`);
    const height = Number(m[1]);
    assert.equal(height, Number(await probe.locator(`section.widget#${id}`).getAttribute('data-embed-height')), id);
    await h.closePage(probe);

    // a page the size of the snippet's iframe at 720 px wide
    const page = await h.open(`?embed=${id}`, { viewport: { width: 720, height } });
    await settleWidget(page, id).catch((e) => {
      throw new Error(`${id}: ${e.message}`);
    });
    const got = await page.evaluate(() => ({
      content: document.documentElement.getBoundingClientRect().height,
      scroll: document.documentElement.scrollHeight,
      inner: window.innerHeight,
      wide: document.documentElement.scrollWidth - window.innerWidth,
    }));
    report.push(`${id} ${Math.ceil(got.content)}/${height}`);
    assert.ok(got.content <= height, `${id}: ${Math.ceil(got.content)} px of content in a ${height} px snippet (raise embed_height in its src/state/widgets/ file)`);
    assert.ok(got.scroll <= got.inner, `${id}: the embed scrolls (${got.scroll} > ${got.inner})`);
    assert.ok(got.wide <= 0, `${id}: ${got.wide} px wider than 720`);
    // and not needlessly tall either: at most a quarter (or 200 px) left empty
    assert.ok(height - got.content <= Math.max(200, 0.25 * height), `${id}: ${height} px for ${Math.ceil(got.content)} px of content`);
    if (id === 'fusion') await page.screenshot({ path: path.join(SHOTS, 'fusion-720.png') });
    await h.closePage(page);
  }
  console.log(`# content/snippet height at 720 px: ${report.join(', ')}`);
});

test('an embed posts its height, and the contract\'s host snippet sizes the iframe to it', async () => {
  const page = await h.open('', { label: 'embed host page', viewport: { width: 736, height: 700 } });
  await page.goto(h.url + 'embed-host.html', { waitUntil: 'load' });
  const iframe = page.locator('#w');
  const frameOf = async () => (await iframe.elementHandle()).contentFrame();
  const fr = await frameOf();
  await waitReady(fr);
  const heightMessages = () => page.evaluate(() => window.__messages.filter((m) => m.data && m.data.type === 'brrr:height'));
  const posted = (n) =>
    page.waitForFunction((n) => window.__messages.filter((m) => m.data && m.data.type === 'brrr:height').length > n, n, { timeout: READY_TIMEOUT_MS });
  await posted(0);
  const first = await heightMessages();
  assert.ok(first.length > 0, 'no brrr:height message arrived');
  const msg = first.at(-1);
  assert.deepEqual(Object.keys(msg.data).sort(), ['height', 'id', 'type'], 'the documented shape');
  assert.equal(msg.data.id, 'fusion');
  assert.equal(msg.origin, h.origin, 'sent by the embed');
  assert.ok(Number.isInteger(msg.data.height) && msg.data.height > 300, `height ${msg.data.height}`);

  // the snippet set the iframe to the posted height: the widget shows whole, no
  // scrollbar inside and no empty band below it
  const fits = async () => {
    const ms = await heightMessages();
    const posted = ms.at(-1).data.height;
    const box = await iframe.boundingBox();
    const inner = await fr.evaluate(() => ({
      content: Math.ceil(document.documentElement.getBoundingClientRect().height),
      scroll: document.documentElement.scrollHeight,
      client: document.documentElement.clientHeight,
      width: window.innerWidth,
    }));
    return { posted, frame: box.height, width: box.width, count: ms.length, ...inner };
  };
  let f = await pollUntil(page, fits, (x) => Math.round(x.frame) === x.posted);
  assert.equal(Math.round(f.frame), f.posted, `iframe ${f.frame} px, posted ${f.posted}`);
  assert.equal(f.posted, f.content, 'the posted height is the content height');
  assert.ok(f.scroll <= f.client, `the iframe scrolls: ${f.scroll} > ${f.client}`);
  await page.screenshot({ path: path.join(SHOTS, 'host-720.png'), fullPage: true });

  // a narrower host page: the widget wraps, grows, says so, and the iframe follows
  await page.setViewportSize({ width: 390, height: 844 });
  await posted(f.count); // the page's next brrr:height message
  const narrow = await pollUntil(page, fits, (x) => Math.round(x.frame) === x.posted && x.posted === x.content);
  assert.ok(narrow.count > f.count, 'no new message after the width changed');
  assert.ok(narrow.posted > f.posted, `narrower should be taller: ${narrow.posted} vs ${f.posted}`);
  assert.equal(Math.round(narrow.frame), narrow.posted);
  assert.equal(narrow.posted, narrow.content);
  assert.ok(narrow.scroll <= narrow.client, `the iframe scrolls: ${narrow.scroll} > ${narrow.client}`);
  await page.screenshot({ path: path.join(SHOTS, 'host-390.png'), fullPage: true });

  // a change inside the embedded page (not of its width) is posted too
  f = narrow;
  await fr.evaluate(() => {
    document.querySelector('.embed-foot').style.paddingBottom = '120px';
  });
  await posted(f.count); // the page's next brrr:height message
  const grown = await pollUntil(page, fits, (x) => Math.round(x.frame) === x.posted && x.posted === x.content);
  assert.ok(grown.count > f.count && grown.posted === f.posted + 120, `no message after the content changed (${f.posted} → ${grown.posted})`);
  assert.equal(Math.round(grown.frame), grown.content);

  // the full page (not framed) posts nothing to itself
  const top = await h.open('?embed=fusion');
  const own = await top.evaluate(async () => {
    const got = [];
    addEventListener('message', (e) => got.push(e.data));
    document.body.style.paddingBottom = '300px'; // a height change
    await new Promise((r) => setTimeout(r, 300)); // checks that nothing happens: no message posted
    return got;
  });
  assert.deepEqual(own, []);
});

test('phone (390 × 844): the roofline stays on screen, unobstructed, while each explorer slider is scrolled to and moved', async () => {
  const page = await h.open('', { viewport: { width: 390, height: 844 } });
  const sliders = await page.$$eval('#roofline-explorer .controls input[type=range]', (els) => els.map((e) => e.id));
  assert.ok(sliders.length >= 5, `sliders: ${sliders}`);
  let shot = false;
  for (const id of sliders) {
    // scrolled to as a user would, and as the page asks (its scroll margin puts a
    // control below the pinned chart)
    await page.evaluate((sid) => document.getElementById(sid).scrollIntoView({ block: 'start' }), id);
    await settle(page);
    const g = await page.evaluate((sid) => {
      const s = document.getElementById(sid).getBoundingClientRect();
      const c = document.getElementById('roofline-canvas').getBoundingClientRect();
      const hit = document.elementFromPoint(s.left + s.width / 2, s.top + s.height / 2);
      const pin = document.querySelector('#roofline-explorer .explorer-chart').getBoundingClientRect();
      const line = document.querySelector('#roofline-explorer .explorer-headline');
      const lr = line.getBoundingClientRect();
      return { s: { top: s.top, bottom: s.bottom }, c: { top: c.top, bottom: c.bottom, height: c.height }, vh: innerHeight, scrollY, hit: hit && hit.id,
        pin: { top: pin.top, height: pin.height }, line: { text: line.innerText, top: lr.top, bottom: lr.bottom, h: lr.height },
        regime: document.querySelector('[data-metric="regime"]').innerText };
    }, id);
    // The contract's promise (docs/contract.md): the whole pinned block within 46 % of the screen (the
    // answer, the whole chart, its exports and legend: issue 35), and the
    // headline's answer in it (the headline itself has scrolled away)
    assert.ok(g.pin.height <= 0.46 * g.vh + 0.5, `${id}: the pinned chart is ${g.pin.height.toFixed(0)} px of ${g.vh}`);
    assert.ok(g.line.h > 0 && g.line.top >= 0 && g.line.bottom <= g.pin.top + g.pin.height, `${id}: the pinned headline is not shown (${JSON.stringify(g.line)})`);
    assert.ok(g.line.text.includes(g.regime), `${id}: pinned "${g.line.text}" vs headline "${g.regime}"`);
    assert.ok(g.scrollY > 200, `${id}: the page did not scroll (${g.scrollY})`);
    assert.ok(g.c.top >= 0 && g.c.bottom <= g.vh && g.c.height > 150, `${id}: roofline canvas at ${g.c.top.toFixed(0)}…${g.c.bottom.toFixed(0)} of ${g.vh}`);
    assert.ok(g.s.top >= g.c.bottom && g.s.bottom <= g.vh, `${id}: slider at ${g.s.top.toFixed(0)}…${g.s.bottom.toFixed(0)}, chart ends at ${g.c.bottom.toFixed(0)}`);
    assert.equal(g.hit, id, `${id}: the slider is covered (by ${g.hit})`);
    // moving it redraws the chart that is in view
    const before = await frame(page);
    await page.locator(`#${id}`).focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowLeft');
    const after = await drawnPast(page, 'canvas#roofline-canvas', before);
    assert.ok(after > before, `${id}: the roofline did not redraw`);
    if (!shot && id === 'ops-slider') {
      await page.screenshot({ path: path.join(SHOTS, 'phone-390-ops.png') });
      shot = true;
    }
  }
  // keyboard focus from above also lands below the pinned chart
  await page.evaluate(() => {
    document.activeElement.blur();
    scrollTo(0, 0);
  });
  await page.locator('#ops-slider').focus();
  await settle(page);
  const k = await page.evaluate(() => {
    const s = document.getElementById('ops-slider').getBoundingClientRect();
    const c = document.getElementById('roofline-canvas').getBoundingClientRect();
    return { st: s.top, sb: s.bottom, cb: c.bottom, ct: c.top, vh: innerHeight };
  });
  assert.ok(k.ct >= 0 && k.cb <= k.vh && k.st >= k.cb && k.sb <= k.vh, `focused slider ${k.st}…${k.sb}, chart ${k.ct}…${k.cb}`);
  await page.screenshot({ path: path.join(SHOTS, 'phone-390-focus.png') });

  // wide screens: the chart sits beside the controls, the breakdown under the chart
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.evaluate(() => scrollTo(0, 0));
  await settle(page);
  const w = await page.evaluate(() => {
    const r = (sel) => document.querySelector(sel).getBoundingClientRect();
    return { controls: r('#roofline-explorer .controls'), chart: r('#roofline-explorer .explorer-chart'), details: r('#roofline-explorer .explorer-details') };
  });
  assert.ok(w.chart.left >= w.controls.right, 'chart beside the controls');
  assert.ok(w.details.top >= w.chart.bottom && Math.abs(w.details.left - w.chart.left) < 1, 'breakdown under the chart');
  assert.ok(w.details.top - w.chart.bottom < 40, `gap between chart and breakdown ${w.details.top - w.chart.bottom}`);
  await page.screenshot({ path: path.join(SHOTS, 'explorer-1280.png') });
});

test('phone (390 × 844): the pinned chart takes at most 40 % of the screen, its headline says what limits the step; wide tables show a scroll cue', async () => {
  const page = await h.open('', { viewport: { width: 390, height: 844 } });
  const pinned = async () => page.evaluate(() => {
    const c = document.querySelector('.explorer-chart').getBoundingClientRect();
    const hd = document.querySelector('.explorer-headline');
    const r = hd.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + Math.min(20, r.width / 2), r.top + r.height / 2);
    return { top: c.top, height: c.height, vh: innerHeight, h: { top: r.top, bottom: r.bottom, height: r.height }, text: hd.innerText, covered: !hd.contains(hit), scrollY };
  });
  for (const id of ['batch-slider', 'ops-slider', 'overhead-slider']) {
    await page.evaluate((sid) => document.getElementById(sid).scrollIntoView({ block: 'start' }), id);
    await settle(page);
    const p = await pinned();
    assert.ok(p.scrollY > 200, `${id}: the page did not scroll`);
    assert.ok(p.height <= 0.4 * p.vh + 0.5, `${id}: the pinned chart is ${p.height.toFixed(0)} of ${p.vh} px`);
    assert.ok(p.h.height > 8 && p.h.top >= 0 && p.h.bottom <= p.top + p.height, `${id}: headline at ${p.h.top}…${p.h.bottom}`);
    assert.ok(!p.covered, `${id}: the headline is covered`);
    // the headline is the diagnosis's answer
    const label = await page.locator('#diagnosis [data-metric="regime"]').innerText();
    assert.ok(p.text.startsWith(`The step is ${label}: `) && p.text.endsWith(' per step'), `${id}: "${p.text}" vs ${label}`);
  }
  // move the batch with the keyboard: the headline follows the new answer
  await page.locator('#batch-slider').focus();
  for (let i = 0; i < 3; i++) await page.keyboard.press('PageDown');
  await pollUntil(page, () => page.evaluate(() => location.search), (q) => q.includes('batch=1&') || q.endsWith('batch=1'));
  const label = await page.locator('#diagnosis [data-metric="regime"]').innerText();
  // at batch 1 the step is a near-tie (issue 51, item 4): the headline names the
  // regime, then says which two costs balance, before the step time
  const says = (t) => t.startsWith(`The step is ${label}: `) || t.startsWith(`The step is ${label}, barely (`);
  assert.equal(says(await pollUntil(page, async () => (await pinned()).text, says)), true);
  await page.screenshot({ path: path.join(SHOTS, 'phone-390-pinned.png') });
  // wide tables: shadows at the edges that scroll, the key column kept in view, the caption whole
  // the hardware table is loaded on demand: its table exists once it has mounted
  await showMore(page, '#hardware');
  const tables = await page.$$eval('.table-scroll', (els) => els.map((el) => {
    el.scrollIntoView();
    const cs = getComputedStyle(el);
    const th = el.querySelector('tbody th[scope=row]');
    const cap = el.querySelector('caption');
    return {
      where: el.closest('section[id]')?.id,
      over: el.scrollWidth > el.clientWidth + 1,
      bg: cs.backgroundImage,
      sticky: th ? getComputedStyle(th).position : null,
      // where the caption's text ends (its line boxes), against the visible table
      cap: cap ? (() => { const r = document.createRange(); r.selectNodeContents(cap); return r.getBoundingClientRect().right - el.getBoundingClientRect().right; })() : null,
    };
  }));
  const wide = tables.filter((t) => t.over);
  assert.ok(wide.some((t) => t.where === 'hardware') && wide.some((t) => t.where === 'generations'), `wide tables: ${wide.map((t) => t.where)}`);
  for (const t of wide) {
    assert.match(t.bg, /radial-gradient/, `${t.where}: no scroll cue`);
    if (t.sticky !== null) assert.equal(t.sticky, 'sticky', `${t.where}: the key column scrolls away`);
    if (t.cap !== null) assert.ok(t.cap <= 1, `${t.where}: the caption runs ${t.cap.toFixed(0)} px past the visible table`);
  }
  await h.closePage(page);
});

// Issue 51, item 8: the copied code's src carries the GPU and only what its
// widget reads (the serving widget: not the explorer's step or peaks, not the
// fusion widget's ops), and it ends with the resize script, so pasted into a
// 360 px column it grows to the widget's real height there.
test("the serve embed's code carries only the serve widget's keys and the resize script; pasted at 360 px it fits its content", async () => {
  const page = await h.open('?batch=4096&fusion_n=8&llm_batch=64&serve_c=32', { viewport: { width: 1280, height: 900 } });
  const share = page.locator('section.widget#serve [data-share="embed"]');
  await share.scrollIntoViewIfNeeded();
  await share.click();
  const box = page.locator('section.widget#serve .share-text');
  const code = await pollUntil(page, () => box.inputValue(), (v) => v.startsWith('<iframe'));
  const src = /<iframe src="([^"]+)"/.exec(code)[1].replaceAll('&amp;', '&');
  const keys = [...new URL(src).searchParams.keys()];
  assert.deepEqual(keys, ['hw', 'llm_batch', 'serve_c', 'embed'], `serve's src: ${src}`);
  assert.ok(code.endsWith('</iframe>' + resizeScript()), `no resize script after the iframe: ${code}`);
  const snippetHeight = Number(/ height="(\d+)"/.exec(code)[1]);
  await h.closePage(page);

  const host = await h.open('', { label: 'pasted embed at 360 px', viewport: { width: 376, height: 800 }, ready: false });
  await host.goto(h.url + 'embed-paste.html#' + encodeURIComponent(code), { waitUntil: 'load' });
  const iframe = host.locator('iframe');
  const fr = await (await iframe.elementHandle()).contentFrame();
  await waitReady(fr);
  await fr.waitForSelector('#serve .more-app > *', { timeout: 60_000 });
  const fits = async () => {
    const box = await iframe.boundingBox();
    const inner = await fr.evaluate(() => ({
      content: Math.ceil(document.documentElement.getBoundingClientRect().height),
      scroll: document.documentElement.scrollHeight,
      client: document.documentElement.clientHeight,
    }));
    return { frame: Math.round(box.height), width: box.width, ...inner };
  };
  const f = await pollUntil(host, fits, (x) => x.frame === x.content && x.scroll <= x.client);
  assert.ok(f.width <= 360, `iframe ${f.width} px wide`);
  assert.equal(f.frame, f.content, `the iframe is ${f.frame} px for ${f.content} px of widget (the snippet said ${snippetHeight})`);
  assert.ok(f.scroll <= f.client, `the embed scrolls inside: ${f.scroll} > ${f.client}`);
  assert.ok(f.content > snippetHeight, `at 360 px the widget (${f.content} px) outgrows the 720 px height (${snippetHeight})`);
  console.log(`# serve pasted at ${f.width} px: ${f.content} px tall (snippet height ${snippetHeight})`);
  await host.screenshot({ path: path.join(SHOTS, 'paste-360.png') });
  await h.closePage(host);
});
