// Benchmark helper (not a test): one Lighthouse run (mobile preset) on a build,
// with the long tasks it charged (its `long-tasks` audit: start and duration as
// simulated at 4x CPU), TBT, TTI and the score, to see which tasks set TTI.
//
//   node tests/e2e/lh-tasks.mjs [--root DIR] [--runs N]
import path from 'node:path';
import { DEFAULT_ROOT } from './helpers.mjs';
import { lighthouseOn } from './lighthouse.mjs';

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(name);
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : dflt;
};
const ROOT = path.resolve(opt('--root', DEFAULT_ROOT));
const RUNS = Math.max(1, Number(opt('--runs', '1')) | 0);
for (let i = 0; i < RUNS; i++) {
  const lhr = await lighthouseOn(ROOT);
  const a = (id) => lhr.audits[id].numericValue;
  console.log(`run ${i + 1}: performance ${Math.round(lhr.categories.performance.score * 100)}, TBT ${a('total-blocking-time').toFixed(0)} ms, TTI ${(a('interactive') / 1000).toFixed(2)} s, FCP ${(a('first-contentful-paint') / 1000).toFixed(2)} s, LCP ${(a('largest-contentful-paint') / 1000).toFixed(2)} s, SI ${(a('speed-index') / 1000).toFixed(2)} s`);
  const items = lhr.audits['long-tasks']?.details?.items || [];
  console.log(`  long tasks (start ms, duration ms, url): ${items.map((t) => `${t.startTime.toFixed(0)}+${t.duration.toFixed(0)} ${String(t.url).split('/').pop().slice(0, 24)}`).join(', ')}`);
  const req = lhr.audits['network-requests']?.details?.items || [];
  console.log(`  requests (start-end ms, KB, url): ${req.map((r) => `${(r.networkRequestTime ?? r.startTime ?? 0).toFixed(0)}-${(r.networkEndTime ?? r.endTime ?? 0).toFixed(0)} ${((r.transferSize || 0) / 1024).toFixed(0)} ${String(r.url).split('/').pop().slice(0, 28)}`).join(', ')}`);
}
