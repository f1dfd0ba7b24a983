// Benchmark helper (not a test): Lighthouse on two builds, alternately.
//
// The project machine's speed drifts with its host's load (the same build has
// scored Lighthouse TBT 109 and 483 ms an hour apart), so a change is judged
// against the build before it measured in the same minutes: this runs
// Lighthouse's mobile preset on `--base DIR` and on dist/ (or $BRRR_DIST) in
// turn, each served gzipped, and prints every run and the medians.
//
//   git stash && trunk build --release --offline --dist dist-base && git stash pop
//   trunk build --release --offline
//   node tests/e2e/lh-ab.mjs --base dist-base [--runs 4]

import { DEFAULT_ROOT } from './helpers.mjs';
import { lighthouseOn } from './lighthouse.mjs';

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(name);
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : dflt;
};
const BASE = opt('--base', null);
const RUNS = Math.max(1, Number(opt('--runs', '4')) | 0);
if (!BASE) {
  console.error('usage: node tests/e2e/lh-ab.mjs --base DIR [--runs N]');
  process.exit(2);
}

async function once(root) {
  const lhr = await lighthouseOn(root);
  const a = (id) => lhr.audits[id].numericValue;
  return { perf: Math.round(lhr.categories.performance.score * 100), tbt: a('total-blocking-time'), si: a('speed-index'), lcp: a('largest-contentful-paint'), cls: a('cumulative-layout-shift') };
}

const builds = [['base', BASE], ['this', DEFAULT_ROOT]];
const got = { base: [], this: [] };
for (let i = 0; i < RUNS; i++) {
  for (const [name, root] of builds) {
    const r = await once(root);
    got[name].push(r);
    console.log(`${name.padEnd(4)} run ${i + 1}: performance ${r.perf}, TBT ${r.tbt.toFixed(0)} ms, SI ${(r.si / 1000).toFixed(2)} s, LCP ${(r.lcp / 1000).toFixed(2)} s, CLS ${r.cls.toFixed(3)}`);
  }
}
const med = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
for (const [name, root] of builds) {
  const rs = got[name];
  console.log(`${name} (${root}): median performance ${med(rs.map((r) => r.perf))}, TBT ${med(rs.map((r) => r.tbt)).toFixed(0)} ms, SI ${(med(rs.map((r) => r.si)) / 1000).toFixed(2)} s`);
}
