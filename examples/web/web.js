// web.js - draws the page's match (zerolag.js, the module) on three canvases
// and forwards keys, sliders and switches to it. The simulation is all C.
'use strict';
var Module = { onRuntimeInitialized: start };
var zl = { ready: false };
const Q16 = 65536, VIEW_INTS = 7, IMPACT_INTS = 14, IMPACTS = 8, GRAPH_INTS = 15;
const ARENA = 1060, COLORS = ['#ffd24a', '#4ad2ff', '#ff6ad5', '#8aff6a'];
const keys = new Set();

function ints(ptr, n) { return Array.from(HEAP32.subarray(ptr >> 2, (ptr >> 2) + n)); }

function start() {
  const slots = Module._web_slots();
  zl.buf = Module._malloc(4096);
  zl.slots = slots;
  zl.walls = [];
  for (let i = 0; i < Module._web_walls(); i++) {
    Module._web_wall(i, zl.buf);
    zl.walls.push(ints(zl.buf, 6).map(v => v / Q16));
  }
  const params = new URLSearchParams(location.search);
  zl.seed = Number(params.get('seed') || 1);
  Module._web_start(zl.seed, 1);
  for (const id of ['rtt', 'jitter', 'loss', 'burst']) document.getElementById(id).oninput = link;
  ['prediction', 'reconciliation', 'interpolation', 'lagcomp'].forEach((id, i) => {
    document.getElementById(id).onchange = e => Module._web_switch(i, e.target.checked ? 1 : 0);
  });
  link();
  zl.last = performance.now();
  zl.ready = true;
  requestAnimationFrame(frame);
}

function link() {
  const v = id => Number(document.getElementById(id).value);
  for (const id of ['rtt', 'jitter', 'loss', 'burst']) document.getElementById(id + '_v').textContent = v(id);
  Module._web_link(v('rtt'), v('jitter'), v('loss'), v('burst'));
}

function input() {
  const k = c => keys.has(c) ? 1 : 0;
  const forward = 127 * (k('KeyW') - k('KeyS')), side = 127 * (k('KeyA') - k('KeyD'));
  const turn = 700 * (k('ArrowLeft') - k('ArrowRight'));
  const buttons = (k('KeyF') || k('ControlLeft') ? 1 : 0) | (k('Space') ? 2 : 0) | (k('KeyC') ? 4 : 0);
  Module._web_input(forward, side, turn, buttons);
}

function frame(t) {
  // Real time drives the simulated clock, at most 100 ms a frame.
  const ms = Math.min(100, Math.max(0, Math.round(t - zl.last)));
  zl.last += ms;
  input();
  if (ms > 0) Module._web_step(ms);
  ['person', 'server', 'other'].forEach((id, view) => draw(id, view));
  graph();
  requestAnimationFrame(frame);
}

function draw(id, view) {
  const canvas = document.getElementById(id), g = canvas.getContext('2d');
  const s = canvas.width / (2 * ARENA);
  const X = x => (x + ARENA) * s, Y = y => (ARENA - y) * s;
  g.fillStyle = '#1b1e24';
  g.fillRect(0, 0, canvas.width, canvas.height);
  for (const w of zl.walls) {
    if (w[5] <= 0 || w[2] >= 512) continue; // floor, ceiling
    g.fillStyle = w[5] >= 512 ? '#556' : '#8a7a5a';
    g.fillRect(X(w[0]), Y(w[4]), (w[3] - w[0]) * s, (w[4] - w[1]) * s);
  }
  Module._web_view(view, zl.buf);
  const p = ints(zl.buf, zl.slots * VIEW_INTS);
  if (view === 0) zl.person = p;
  for (let slot = 0; slot < zl.slots; slot++) {
    const o = p.slice(slot * VIEW_INTS, (slot + 1) * VIEW_INTS);
    if (!o[0]) continue;
    const x = X(o[1] / Q16), y = Y(o[2] / Q16), yaw = o[4] / 65536 * 2 * Math.PI;
    const dead = (o[6] & 4) !== 0;
    g.fillStyle = dead ? '#555' : COLORS[slot % COLORS.length];
    g.beginPath(); g.arc(x, y, 16 * s + 3, 0, 2 * Math.PI); g.fill();
    g.strokeStyle = g.fillStyle;
    g.beginPath(); g.moveTo(x, y); g.lineTo(x + 14 * Math.cos(yaw), y - 14 * Math.sin(yaw)); g.stroke();
    g.fillStyle = '#ddd';
    g.fillText(slot === zl.graph?.slot ? `you ${o[5]}` : String(o[5]), x + 8, y - 8);
  }
  if (view === 2) return;
  const n = Module._web_impacts(zl.buf), im = ints(zl.buf, IMPACTS * IMPACT_INTS);
  // The target now, then the rewound box thick, the drawn one thin inside
  // it: where lag compensation rebuilt the shooter's view, both show.
  [[2, '#4f4', 1], [1, '#48f', 3], [0, '#f44', 1]].forEach(([b, color, width]) => {
    g.strokeStyle = color;
    g.lineWidth = width;
    for (let i = 0; i < n; i++) {
      const q = im.slice(i * IMPACT_INTS + 2 + 4 * b, i * IMPACT_INTS + 6 + 4 * b).map(v => v / Q16);
      if (q[0] === 0 && q[2] === 0) continue; // no box
      g.strokeRect(X(q[0]), Y(q[3]), (q[2] - q[0]) * s, (q[3] - q[1]) * s);
    }
  });
  g.lineWidth = 1;
}

function graph() {
  Module._web_graph(zl.buf);
  const r = ints(zl.buf, GRAPH_INTS);
  zl.graph = {
    ping: r[0], jitter: r[1], lossIn: r[2], lossOut: r[3], lerp: r[4], snapshotBytes: r[5],
    snapshots: r[6], mispredicted: r[7], shots: r[8], judged: r[9], agree: r[10],
    serverHits: r[11], timeMs: r[12], connected: r[13], slot: r[14]
  };
  const G = zl.graph, agree = G.judged ? (100 * G.agree / G.judged).toFixed(1) : '-';
  document.getElementById('graph').textContent =
    `net graph (your client)\nping ${G.ping} ms  jitter ${G.jitter} ms\n` +
    `loss in ${G.lossIn} / out ${G.lossOut} permille\nlerp ${G.lerp} ms\n` +
    `snapshot ${G.snapshotBytes} bytes (${G.snapshots} so far)\nmispredictions ${G.mispredicted}\n` +
    `hits: ${G.agree} of ${G.judged} judged shots agree (${agree}%)\n` +
    `client frame ${Module._web_frame_ns()} ns, server ${Module._web_tick_ns()} ns a tick (means)`;
}

addEventListener('keydown', e => { keys.add(e.code); if (e.code.startsWith('Arrow') || e.code === 'Space') e.preventDefault(); });
addEventListener('keyup', e => keys.delete(e.code));

// A bot-only match of `seconds` on the simulated clock, run at once: its
// match hash (the same as the native build's) and the mean client frame
// and server time per tick in this browser. The page's own match starts again after.
function botMatch(seed, seconds) {
  Module._web_start(seed, 0);
  Module._web_step(seconds * 1000);
  const out = {
    hash: (Module._web_hash() >>> 0).toString(16).padStart(8, '0'),
    frameNs: Module._web_frame_ns(), tickNs: Module._web_tick_ns(),
    frames: Module._web_frames(), ticks: Module._web_ticks()
  };
  Module._web_start(zl.seed, 1);
  link();
  ['prediction', 'reconciliation', 'interpolation', 'lagcomp'].forEach((id, i) =>
    Module._web_switch(i, document.getElementById(id).checked ? 1 : 0));
  return out;
}
