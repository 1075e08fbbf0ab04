// web-test.js URL NATIVE_HASH NATIVE_FRAME_NS NATIVE_TICK_NS SEED SECONDS OUT_DIR
// Plays the page in Debian's chromium (headless, through playwright-core)
// and checks what a person would see; ends with "N passed, N failed".
'use strict';
const { chromium } = require('playwright-core');
const fs = require('fs');
const os = require('os');
const path = require('path');

const [url, nativeHash, nativeFrameNs, nativeTickNs, seed, seconds, outDir] = process.argv.slice(2);
let passed = 0, failed = 0;
function check(name, ok, detail) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}: ${detail}`);
  if (ok) passed++; else failed++;
}
const sleep = ms => new Promise(r => setTimeout(r, ms));

async function main() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'zl-chromium-'));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
    viewport: { width: 1140, height: 640 }
  });
  try {
    const page = browser.pages()[0] || await browser.newPage();
    const errors = [];
    page.on('pageerror', e => errors.push(String(e)));
    await page.goto(url);
    await page.waitForFunction(() => window.zl && zl.ready && zl.graph, null, { timeout: 60000 });
    check('page loads', errors.length === 0, errors.length ? errors.join('; ') : 'module started, no script errors');

    await page.waitForFunction(() => zl.graph.connected && zl.graph.snapshots > 20, null, { timeout: 30000 });
    const t0 = await page.evaluate(() => zl.graph.timeMs);
    await sleep(1000);
    const g1 = await page.evaluate(() => zl.graph);
    check('the match runs', g1.timeMs > t0 && g1.snapshots > 20,
      `simulated clock ${t0} -> ${g1.timeMs} ms, ${g1.snapshots} snapshots, slot ${g1.slot}`);

    // Keys move the player: W held, then the arrows turn it.
    const own = () => page.evaluate(() => zl.person.slice(zl.graph.slot * 7, zl.graph.slot * 7 + 7));
    await page.waitForFunction(() => zl.person && zl.person[zl.graph.slot * 7] === 1 &&
      !(zl.person[zl.graph.slot * 7 + 6] & 4), null, { timeout: 30000 });
    const a = await own();
    await page.keyboard.down('KeyW'); await sleep(1200); await page.keyboard.up('KeyW');
    await page.keyboard.down('ArrowLeft'); await sleep(500); await page.keyboard.up('ArrowLeft');
    const b = await own();
    const moved = Math.hypot(b[1] - a[1], b[2] - a[2]) / 65536;
    check('keys move the player', moved > 32 && b[4] !== a[4],
      `moved ${moved.toFixed(1)} units, yaw ${a[4]} -> ${b[4]}`);

    // A slider change shows in the net graph.
    const pingBefore = await page.evaluate(() => zl.graph.ping);
    await page.evaluate(() => { const s = document.getElementById('rtt'); s.value = '300'; s.dispatchEvent(new Event('input')); });
    await page.waitForFunction(() => zl.graph.ping >= 250, null, { timeout: 15000 }).catch(() => {});
    const pingAfter = await page.evaluate(() => zl.graph.ping);
    const shown = await page.evaluate(() => document.getElementById('graph').textContent.includes(`ping ${zl.graph.ping} ms`));
    check('the round trip slider shows in the net graph', pingAfter >= 250 && pingBefore < 200 && shown,
      `ping ${pingBefore} ms -> ${pingAfter} ms after 300 ms`);

    // Shots judged: hit agreement and mispredictions on the page.
    await page.waitForFunction(() => zl.graph.judged >= 20, null, { timeout: 30000 }).catch(() => {});
    const g2 = await page.evaluate(() => zl.graph);
    const text = await page.evaluate(() => document.getElementById('graph').textContent);
    check('the page reports hit agreement and mispredictions',
      g2.judged >= 20 && g2.agree > 0 && /agree \(\d+(\.\d)?%\)/.test(text) && /mispredictions \d+/.test(text),
      `${g2.agree} of ${g2.judged} judged shots agree, ${g2.serverHits} server hits, ${g2.mispredicted} mispredictions`);

    // The canvases are drawn: distinct colours and pixels off the background.
    const drawn = await page.evaluate(() => ['person', 'server', 'other'].map(id => {
      const c = document.getElementById(id), d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      const colours = new Set(); let lit = 0;
      for (let i = 0; i < d.length; i += 4) {
        colours.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
        if (d[i] !== 0x1b || d[i + 1] !== 0x1e || d[i + 2] !== 0x24) lit++;
      }
      return { id, colours: colours.size, lit };
    }));
    check('the canvases are drawn', drawn.every(v => v.colours >= 5 && v.lit >= 2000),
      drawn.map(v => `${v.id} ${v.colours} colours, ${v.lit} pixels drawn`).join('; '));
    const shot = path.join(outDir, 'page.png');
    await page.screenshot({ path: shot });
    for (const id of ['person', 'server', 'other'])
      await page.locator('#' + id).screenshot({ path: path.join(outDir, `${id}.png`) });
    check('screenshots kept', fs.statSync(shot).size > 10000, `${shot} (${fs.statSync(shot).size} bytes) and one per canvas`);

    // The bot-only match: the same hash as the native build's.
    const m = await page.evaluate(([s, n]) => botMatch(s, n), [Number(seed), Number(seconds)]);
    check('bot-only match hash equals the native build\'s', m.hash === nativeHash.replace(/^0x/, ''),
      `seed ${seed}, ${seconds} s: page 0x${m.hash}, native ${nativeHash}`);
    console.log(`frame cost (means, same bot-only match): client frame ${m.frameNs} ns in the browser, ` +
      `${nativeFrameNs} ns native (x${(m.frameNs / nativeFrameNs).toFixed(2)}); server ${m.tickNs} ns a tick ` +
      `in the browser, ${nativeTickNs} ns native (x${(m.tickNs / nativeTickNs).toFixed(2)}); ` +
      `${m.frames} frames, ${m.ticks} ticks`);
    check('no script errors while playing', errors.length === 0, errors.length ? errors.join('; ') : 'none');
  } finally {
    await browser.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

main().catch(e => { console.log(`FAIL ${e.message}`); failed++; })
  .finally(() => { console.log(`${passed} passed, ${failed} failed`); process.exit(failed ? 1 : 0); });
