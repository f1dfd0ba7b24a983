// Issue 22, item 3: at 390 px every table that is wider than its box says so
// (a shadow on the hidden side: the scroll cue), keeps its key column (row
// headers) in place while it scrolls, and shows its whole caption. Every wait
// is on what the page signals (data-ready; each table scrolled into view).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useHarness, show } from './helpers.mjs';

const h = useHarness();

test('390 px: wide tables show a scroll cue, keep their key column and their caption', async () => {
  const page = await h.open('', { viewport: { width: 390, height: 844 } });
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
