// One Lighthouse run (its default, mobile preset) on a build served gzipped, in
// the system Chromium (CHROME_PATH, default /usr/bin/chromium): the report
// (`lhr`). Shared by lh-ab.mjs and lh-tasks.mjs; tools, not tests.
import path from 'node:path';
import { startServer } from './server.mjs';

const { default: lighthouse } = await import('lighthouse');
const chromeLauncher = await import('chrome-launcher');

export async function lighthouseOn(root, categories = ['performance']) {
  const server = await startServer({ root: path.resolve(root), gzip: true });
  const chrome = await chromeLauncher.launch({
    chromePath: process.env.CHROME_PATH || '/usr/bin/chromium',
    chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const { lhr } = await lighthouse(server.url, { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: categories });
    return lhr;
  } finally {
    await chrome.kill();
    await server.close();
  }
}
