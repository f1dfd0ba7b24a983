// Issue 22, item 3: at 390 px every table that is wider than its box says so
// (a shadow on the hidden side: the scroll cue), keeps its key column (row
// headers) in place while it scrolls, and shows its whole caption. Every wait
// is on what the page signals (data-ready; each table scrolled into view).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useHarness, show, settle, pollUntil, showMore } from './helpers.mjs';

const h = useHarness();

test('390 px: wide tables show a scroll cue, keep their key column and their caption', async () => {
  const page = await h.open('', { viewport: { width: 390, height: 844 } });
  // the hardware table loads on demand: its module mounted, its table is there
  await showMore(page, '#hardware');
  const n = await page.locator('.table-scroll').count();
  assert.ok(n >= 5, `tables: ${n}`);
  let wide = 0;
  for (let i = 0; i < n; i++) {
    const box = page.locator('.table-scroll').nth(i);
    if (!(await box.isVisible())) continue;
    await show(box);
    const g = await box.evaluate((el) => {
      const cs = getComputedStyle(el);
      const cap = el.querySelector('caption');
      // the caption's text (its box is as wide as the table)
      const r = cap && document.createRange();
      if (r) r.selectNodeContents(cap);
      const c = r && r.getBoundingClientRect();
      const head = el.querySelector('tbody th[scope="row"]');
      return {
        label: el.getAttribute('aria-label'),
        wide: el.scrollWidth > el.clientWidth + 1,
        cue: cs.backgroundImage,
        cap: c && { left: c.left, right: c.right },
        box: el.getBoundingClientRect().right,
        head: head && getComputedStyle(head).position,
      };
    });
    if (!g.wide) continue;
    wide++;
    assert.match(g.cue, /radial-gradient/, `${g.label}: no scroll cue`);
    if (g.cap) assert.ok(g.cap.right <= g.box + 1, `${g.label}: caption cut (${g.cap.right.toFixed(0)} > ${g.box.toFixed(0)})`);
    if (g.head) assert.equal(g.head, 'sticky', `${g.label}: the key column scrolls away`);
  }
  assert.ok(wide >= 2, `wide tables at 390 px: ${wide}`);
  await h.closePage(page);
});

// Issue 51, item 8: on a 390 px phone, while a widget's slider is dragged with a
// real pointer, its headline readout stays on screen (the llm widget's batch
// slider sits ~800 px above its time per step), uncovered, and shows the new
// value; released, it goes back to its place. Each wait is on the page: its
// frames, the slider's value, the readout's text.
test('390 px: dragging a slider keeps its widget\'s headline readout on screen', async () => {
  const page = await h.open('', { viewport: { width: 390, height: 844 } });
  // the dit widget's module, loaded on demand, mounted first: its slider then exists
  await showMore(page, '#dit');
  const cases = [
    ['llm_batch-slider', 'llm_step_s'],
    ['dit_res-slider', 'dit_step_s'],
    ['mb_elems-slider', 'crossover_repeat'],
    ['bert_batch-slider', null], // its headline: the bars, FLOPs against time
  ];
  for (const [slider, name] of cases) {
    const s = page.locator(`#${slider}`);
    // scrolled to the middle of the screen, again until the widgets around it
    // have laid out (its box still between two frames)
    const place = async () => {
      await s.evaluate((el) => el.scrollIntoView({ block: 'center' }));
      await settle(page);
      return s.boundingBox();
    };
    let box = await place();
    for (let prev = null; !prev || Math.abs(prev.y - box.y) > 1; ) [prev, box] = [box, await place()];
    assert.ok(box.y > 100 && box.y < 744, `${slider}: at ${box.y} px`);
    const y = box.y + box.height / 2;
    const start = await s.inputValue();
    await page.mouse.move(box.x + box.width * 0.3, y);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.6, y, { steps: 6 });
    await pollUntil(page, () => s.inputValue(), (v) => v !== start);
    await settle(page);
    const g = await s.evaluate((el, name) => {
      const w = el.closest('.widget');
      const r = name ? w.querySelector(`[data-metric="${name}"]`) : w.querySelector('.headline');
      const b = r.getBoundingClientRect();
      const hit = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);
      return { top: b.top, bottom: b.bottom, vh: innerHeight, seen: r === hit || r.contains(hit), text: r.innerText, scrollY };
    }, name);
    assert.ok(g.top >= 0 && g.bottom <= g.vh, `${slider}: its headline is at ${g.top.toFixed(0)}…${g.bottom.toFixed(0)} of ${g.vh} px while dragged`);
    assert.ok(g.seen, `${slider}: the headline is covered while dragged`);
    await page.mouse.up();
    await settle(page);
    const after = await s.evaluate((el, name) => {
      const w = el.closest('.widget');
      const r = name ? w.querySelector(`[data-metric="${name}"]`) : w.querySelector('.headline');
      return { pinned: !!w.querySelector('.pin'), text: r.innerText };
    }, name);
    assert.ok(!after.pinned, `${slider}: still pinned after release`);
    assert.equal(after.text, g.text, `${slider}: the pinned readout showed the dragged value`);
  }
  await page.screenshot({ path: 'tests/e2e/out/phone-drag.png' }).catch(() => {});
  await h.closePage(page);
});
