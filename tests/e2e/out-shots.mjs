import { createHarness, waitReady, showMore, settle } from './helpers.mjs';
const h = await createHarness({ root: process.env.ROOT });
const { browser } = h;
const ctx = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
const page = await ctx.newPage();
const Q = 'hw=h100-sxm&llm_model=llama3-70b&llm_tp=2&llm_link=nvlink4&llm_wdtype=fp8&llm_kvdtype=fp8&serve_isl=5000&serve_osl=500&serve_c=25';
const shots = [
  ['serve', `?${Q}#serve`, '#serve', true],
  ['serve0', `?${Q}&serve_graphs=0#serve`, '#serve', true],
  ['shapes', '?hw=h100-sxm&mm_m=8192&mm_n=50257&mm_k=768#shapes', '#shapes', true],
  ['b128', '?batch=128', '#roofline-explorer', false],
  ['b1', '?batch=1', '#roofline-explorer', false],
  ['fusion1', '?batch=1#fusion', '#fusion', false],
];
for (const [name, q, sel, more] of shots) {
  await page.goto(h.url + q);
  await waitReady(page);
  if (more) await showMore(page, sel); else { await page.locator(sel).scrollIntoViewIfNeeded(); await settle(page); }
  await page.locator(sel).screenshot({ path: `/tmp/shots/${name}.png` });
  const t = await page.locator(sel).innerText();
  console.log(`==== ${name}\n${t.slice(0, 2500)}`);
}
await h.close();
