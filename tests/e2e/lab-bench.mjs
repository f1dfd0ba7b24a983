// Benchmark (not a test): run the WebGPU lab at full size in headless Chromium and
// report, per repeat, the fused kernel's achieved bandwidth as a fraction of the
// copy kernel's, with the adapter it ran on. Writes the report to
// docs/lab-bench.md (or --out FILE) and prints it.
//
//   node tests/e2e/lab-bench.mjs            # full size (256 MiB buffers where allowed)
//   node tests/e2e/lab-bench.mjs --small    # the small test size, for a quick look
//
// In this repository's CI and dev machine Chromium only has SwiftShader (a CPU
// implementation of WebGPU), so the figures describe that CPU; on a machine with a
// GPU, launch Chromium with a hardware adapter (CHROMIUM_PATH, and drop
// --use-webgpu-adapter=swiftshader from LAUNCH_ARGS in helpers.mjs) to measure it.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execSync } from 'node:child_process';
import { createHarness, metric, median, REPO_ROOT, OUT_DIR, ensureOutDir } from './helpers.mjs';

const args = process.argv.slice(2);
const small = args.includes('--small');
const outIdx = args.indexOf('--out');
const OUT = outIdx >= 0 ? path.resolve(args[outIdx + 1]) : path.join(REPO_ROOT, 'docs', 'lab-bench.md');
const TIMEOUT_MS = Number(process.env.LAB_BENCH_TIMEOUT_MS || 45 * 60_000);

const si = (x, unit) => {
  if (!Number.isFinite(x)) return '–';
  const p = [[1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k'], [1, ''], [1e-3, 'm'], [1e-6, 'µ'], [1e-9, 'n']];
  const [s, pre] = p.find(([s]) => Math.abs(x) >= s * 0.9995) || [1e-9, 'n'];
  const v = x / s;
  return `${v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)} ${pre}${unit}`;
};
const gitHead = () => {
  try {
    return execSync('git rev-parse --short HEAD', { cwd: REPO_ROOT }).toString().trim();
  } catch {
    return 'unknown';
  }
};

const h = await createHarness();
let report;
try {
  const page = await h.open(small ? '?lab_size=small' : '', { label: 'lab bench', viewport: { width: 1280, height: 900 } });
  await page.waitForSelector('.lab[data-lab-gpu=ready], .lab[data-lab-gpu=missing]', { timeout: 30_000 });
  if ((await metric(page, 'lab_status')) === 'unsupported') {
    throw new Error(`WebGPU unavailable: ${await page.locator('#lab-fallback').innerText()}`);
  }
  const browser = h.browser.version();
  const t0 = Date.now();
  await page.click('#lab-run');
  let lastLine = '';
  // how responsive the page stays during a run: how long a frame takes to come,
  // sampled at each step of the progress (a timing, so measured here, not asserted in
  // lab.test.mjs, where a loaded machine would fail it)
  const lags = [];
  for (;;) {
    const status = await metric(page, 'lab_status');
    if (status !== 'running') break;
    if (Date.now() - t0 > TIMEOUT_MS) throw new Error(`still running after ${TIMEOUT_MS / 60000} min`);
    const line = await page.locator('[data-metric=lab_progress]').innerText();
    if (line !== lastLine) {
      process.stderr.write(`[${((Date.now() - t0) / 1000).toFixed(0)} s] ${line}\n`);
      lastLine = line;
    }
    const t = Date.now();
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
    lags.push(Date.now() - t);
    // the next sample when the run moves on: its progress line changes (or it ends)
    await page.waitForFunction(
      (last) =>
        document.querySelector('[data-metric=lab_status]')?.getAttribute('data-value') !== 'running' ||
        document.querySelector('[data-metric=lab_progress]')?.innerText !== last,
      line,
      { timeout: TIMEOUT_MS },
    );
  }
  lags.sort((a, b) => a - b);
  const p95 = lags.length ? lags[Math.min(lags.length - 1, Math.floor(lags.length * 0.95))] : NaN;
  const seconds = (Date.now() - t0) / 1000;
  const status = await metric(page, 'lab_status');
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#lab-export-json')]);
  ensureOutDir();
  const jsonFile = path.join(OUT_DIR, 'lab-bench.json');
  await dl.saveAs(jsonFile);
  const run = JSON.parse(fs.readFileSync(jsonFile, 'utf8'));
  const ms = run.measurements;
  const find = (k, op, dt, r) => ms.find((m) => m.kernel === k && m.op === op && m.dtype === dt && m.repeat === r);
  const bw = (m) => (m.kernel === 'eager' ? m.repeat : 1) * 2 * m.elements * (m.dtype === 'f16' ? 2 : 4) / median(m.times_s);
  const flops = (m) => m.elements * m.repeat / median(m.times_s);

  const a = run.adapter;
  const lines = [];
  lines.push('# Lab benchmark: fused bandwidth as a fraction of copy bandwidth', '');
  lines.push('Written by `node tests/e2e/lab-bench.mjs` (headless Chromium, the WebGPU lab at ' +
    `${run.small ? 'the small test' : 'full'} size). Re-run it to replace this file.`, '');
  lines.push('| | |', '|---|---|');
  lines.push(`| date | ${run.date} |`);
  lines.push(`| commit | ${gitHead()} |`);
  lines.push(`| browser | Chromium ${browser} (headless) |`);
  lines.push(`| machine | ${os.cpus().length} × ${os.cpus()[0]?.model || 'CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.platform()} |`);
  lines.push(`| adapter | vendor \`${a.vendor}\`, architecture \`${a.architecture}\`, description \`${a.description}\`, device \`${a.device}\`${a.fallback ? ' (software fallback adapter)' : ''} |`);
  lines.push(`| limits | max storage binding ${si(a.max_storage_binding, 'B')}, max buffer ${si(a.max_buffer, 'B')}, ${a.max_workgroups_per_dim} workgroups/dim, ${a.max_invocations} invocations/workgroup |`);
  lines.push(`| features | timestamp-query ${a.timestamps ? 'yes' : 'no'}, shader-f16 ${a.f16 ? 'yes' : 'no'}; timed with ${run.timer} |`);
  lines.push(`| run | ${status}, ${seconds.toFixed(0)} s, ${(run.elements * 4 / 2 ** 20).toFixed(0)} MiB per buffer, ${ms.length} variants, ${ms.filter((m) => m.check === 'passed').length} verified |`);
  lines.push(`| frame wait during the run | p95 ${p95} ms, max ${lags.length ? lags[lags.length - 1] : '–'} ms over ${lags.length} samples |`);
  lines.push('');
  const copy = ms.find((m) => m.kernel === 'copy' && m.dtype === 'f32' && m.check === 'passed');
  const copyBw = copy ? bw(copy) : NaN;
  const o = run.overheads;
  lines.push(`Copy kernel: **${si(copyBw, 'B/s')}** (read + write, ${copy ? copy.elements : '–'} f32). ` +
    `Per empty dispatch ${si(median(o.dispatch_s), 's')}, per \`queue.submit\` ${si(median(o.submit_s), 's')}, ` +
    `submit → done round trip ${si(median(o.roundtrip_s), 's')}. ` +
    `Readouts: compute ceiling ${si(await metric(page, 'lab_peak_flops'), 'FLOP/s')}, crossover repeat ${Number(await metric(page, 'lab_crossover_repeat')).toFixed(1)}.`, '');
  for (const dt of ['f32', 'f16']) {
    for (const op of ['mul', 'cos']) {
      if (!ms.some((m) => m.op === op && m.dtype === dt)) continue;
      lines.push(`## \`${op === 'mul' ? 'x = x · m' : 'x = cos(x)'}\`, ${dt}`, '');
      lines.push('| repeat | elements | fused time | fused bandwidth | **fused bw ÷ copy bw** | fused FLOP/s | eager bandwidth | fusion speedup |');
      lines.push('|---:|---:|---:|---:|---:|---:|---:|---:|');
      for (const r of [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]) {
        const f = find('fused', op, dt, r);
        const e = find('eager', op, dt, r);
        if (!f) continue;
        const ok = (m) => m && m.check === 'passed' && m.times_s.length > 0;
        const fs_ = ok(f) ? `${si(median(f.times_s), 's')}` : `failed: ${f.detail}`;
        const speed = ok(f) && ok(e) ? (median(e.times_s) / e.elements) / (median(f.times_s) / f.elements) : NaN;
        lines.push(`| ${r} | ${f.elements} | ${fs_} | ${ok(f) ? si(bw(f), 'B/s') : '–'} | **${ok(f) ? (bw(f) / copyBw).toFixed(3) : '–'}** | ${ok(f) ? si(flops(f), 'FLOP/s') : '–'} | ${ok(e) ? si(bw(e), 'B/s') : '–'} | ${Number.isFinite(speed) ? speed.toFixed(2) + '×' : '–'} |`);
      }
      lines.push('');
    }
  }
  if (run.notes.length || run.reason) {
    lines.push('Notes from the run:', '');
    if (run.reason) lines.push(`- ${run.reason}`);
    for (const n of run.notes) lines.push(`- ${n}`);
    lines.push('');
  }
  report = lines.join('\n');
  const problems = h.describeProblems();
  if (problems.length) report += `\nBrowser problems during the run:\n\n${problems.map((p) => `- ${p}`).join('\n')}\n`;
} finally {
  await h.close();
}
console.log(report);
fs.mkdirSync(path.dirname(OUT), { recursive: true });
fs.writeFileSync(OUT, report);
console.error(`\nwrote ${path.relative(process.cwd(), OUT)}`);
