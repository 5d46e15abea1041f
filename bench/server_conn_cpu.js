'use strict';
// Where a new connection + 1 RPC costs the server: the shared harness's
// rate scenario (issue 12; `../shared/peers/run_server_perf.sh` part b) with
// per-run CPU and context-switch counts, for a plain gRPC C++ server and one
// or more `xdsfed serve` builds side by side in one run.
//
//   node bench/server_conn_cpu.js OUT K REPS SECONDS NAME=CMD [NAME=CMD ...]
//
// NAME "plain" is the harness's `peer_server --plain` (grpc::ServerBuilder,
// callback Health service); any other NAME runs `exec CMD` with HOST, PORT
// and GRPC_XDS_BOOTSTRAP set, and must reach SERVING on a Listener with K
// filter chains (the harness's shape: K-1 chains on 10.a.b.0/24 sources, the
// last on 127.0.0.1/32) from the harness's control plane. Each rep runs the
// harness's `conn_bench --mode rate --threads 4` for SECONDS against every
// server in turn (order reversed every other rep), and prints per server:
// connections + RPC per second, the server's CPU per connection
// (/proc/PID/stat), the machine's busy CPU per connection (/proc/stat), and
// the server's context switches per connection (with PER_THREAD=1, split by
// thread name). The summary line gives medians and the median of per-rep
// ratios to the first server. Needs `../shared/peers/build.sh` run first
// (PEERS_DIR overrides the path). Example (bench/RESULTS.md, session 10):
//
//   node bench/server_conn_cpu.js /tmp/conn 1000 9 3 plain=x \
//     "xdsfed=build/bin/xdsfed serve --listen \$HOST:\$PORT --seconds 3000"
const fs = require('fs');
const path = require('path');

const PEERS_DIR = path.resolve(process.env.PEERS_DIR || path.join(__dirname, '../../shared/peers'));
const P = require(path.join(PEERS_DIR, 'tools/proc'));
const R = require(path.join(PEERS_DIR, 'tools/resources'));
const PEER_SERVER = path.join(PEERS_DIR, 'grpc-cpp/build/peer_server');
const CONN_BENCH = path.join(PEERS_DIR, 'grpc-cpp/build/conn_bench');
const LO = '127.0.0.1';
const CP_PORT = 18351;
const PORT_BASE = 19451;
const TICKS_PER_S = 100;  // USER_HZ

const [OUT, K, REPS, SECONDS, ...SPECS] = process.argv.slice(2);
if (!SPECS.length) {
  process.stderr.write('usage: node bench/server_conn_cpu.js OUT K REPS SECONDS NAME=CMD...\n');
  process.exit(2);
}

// utime + stime of a process, or of each of its threads by name.
function cpuUs(statText) {
  const f = statText.slice(statText.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 1e6 / TICKS_PER_S;
}
function switches(statusText) {
  let n = 0;
  for (const m of statusText.matchAll(/ctxt_switches:\s+(\d+)/g)) n += Number(m[1]);
  return n;
}
function sample(pid) {
  const threads = {};
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const status = fs.readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
      threads[tid] = {
        name: status.match(/Name:\s+(\S+)/)[1],
        sw: switches(status),
        cpu: cpuUs(fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')),
      };
    } catch (e) { /* the thread ended */ }
  }
  return { cpu: cpuUs(fs.readFileSync(`/proc/${pid}/stat`, 'utf8')), threads };
}
function machineBusyUs() {
  const v = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].split(/\s+/).slice(1).map(Number);
  const idle = v[3] + v[4];
  return (v.reduce((a, b) => a + b, 0) - idle) * 1e6 / TICKS_PER_S;
}
const median = (a) => {
  const s = [...a].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

(async () => {
  fs.mkdirSync(path.join(OUT, 'proc'), { recursive: true });
  const servers = SPECS.map((spec, i) => {
    const eq = spec.indexOf('=');
    return { name: spec.slice(0, eq), cmd: spec.slice(eq + 1), port: PORT_BASE + i };
  });
  const listeners = {};
  for (const s of servers) {
    if (s.name === 'plain') continue;
    const name = R.serverListenerName(LO, s.port);
    listeners[name] = R.filterChainListener(name, LO, s.port, { k: Number(K), family: 'v4', rawBuffer: true });
  }
  const cp = new P.ControlPlane({ dir: OUT, port: CP_PORT, label: 'conn', maxRuntime: 3000 });
  await cp.start({ [R.T.LDS]: listeners });
  for (const s of servers) {
    const out = path.join(OUT, 'proc', `${s.name}.jsonl`);
    if (s.name === 'plain') {
      s.proc = P.start(s.name, PEER_SERVER, [String(s.port), '--plain', '--host', LO, '--seconds', '3000'], { out });
      continue;
    }
    const bootstrap = P.bootstrap(path.join(OUT, `bootstrap_${s.name}.json`), { cpPort: CP_PORT, nodeId: `conn/${s.name}` });
    s.proc = P.start(s.name, 'bash', ['-c', `exec ${s.cmd}`], {
      out, env: { GRPC_XDS_BOOTSTRAP: bootstrap, HOST: LO, PORT: String(s.port) },
    });
    const serving = await P.waitFor(() => s.proc.lines.find((l) => l.event === 'serving' && l.serving === true), 30000, 10);
    if (!serving) throw new Error(`${s.name} did not reach SERVING`);
  }
  await P.sleep(1000);
  const rows = [];
  for (let rep = 1; rep <= Number(REPS); rep++) {
    for (const s of rep % 2 ? servers : [...servers].reverse()) {
      const before = sample(s.proc.pid);
      const busy0 = machineBusyUs();
      const bench = P.start('conn_bench', CONN_BENCH, [`ipv4:${LO}:${s.port}`, '--mode', 'rate', '--seconds', SECONDS, '--threads', '4'], {});
      await bench.done;
      const after = sample(s.proc.pid);
      const busy1 = machineBusyUs();
      const r = bench.lines.find((l) => l.event === 'result') || {};
      const n = r.ok || 1;
      let sw = 0;
      const byName = {};
      for (const [tid, t] of Object.entries(after.threads)) {
        const t0 = before.threads[tid] || { sw: 0, cpu: 0 };
        sw += t.sw - t0.sw;
        const b = byName[t.name] = byName[t.name] || { threads: 0, sw: 0, cpu: 0 };
        b.threads++; b.sw += t.sw - t0.sw; b.cpu += t.cpu - t0.cpu;
      }
      const row = { rep, name: s.name, ok: r.ok, fail: r.fail, ok_per_s: r.ok_per_s,
        server_cpu_us: (after.cpu - before.cpu) / n, machine_cpu_us: (busy1 - busy0) / n, switches: sw / n };
      rows.push(row);
      process.stdout.write(`${rep} ${s.name.padEnd(12)} ${String(Math.round(r.ok_per_s)).padStart(5)}/s fail ${r.fail} ` +
        `server ${row.server_cpu_us.toFixed(1)} us machine ${row.machine_cpu_us.toFixed(1)} us switches ${row.switches.toFixed(2)}\n`);
      if (process.env.PER_THREAD) {
        for (const [name, b] of Object.entries(byName)) {
          process.stdout.write(`    ${name.padEnd(16)} x${b.threads} switches ${(b.sw / n).toFixed(2)} cpu ${(b.cpu / n).toFixed(1)} us\n`);
        }
      }
    }
  }
  fs.writeFileSync(path.join(OUT, 'rows.json'), JSON.stringify(rows));
  const first = servers[0].name;
  for (const s of servers) {
    const rs = rows.filter((r) => r.name === s.name);
    const ratios = rs.map((r) => r.ok_per_s / rows.find((x) => x.rep === r.rep && x.name === first).ok_per_s);
    process.stdout.write(`${s.name.padEnd(12)} ${median(rs.map((r) => r.ok_per_s)).toFixed(0)}/s ` +
      `ratio to ${first} ${median(ratios).toFixed(3)} server ${median(rs.map((r) => r.server_cpu_us)).toFixed(1)} us ` +
      `machine ${median(rs.map((r) => r.machine_cpu_us)).toFixed(1)} us switches ${median(rs.map((r) => r.switches)).toFixed(2)} ` +
      `failed ${rs.reduce((a, r) => a + (r.fail || 0), 0)}\n`);
  }
  for (const s of servers) await P.stop(s.proc);
  await cp.stop();
})().catch((e) => { process.stderr.write(`${e.stack}\n`); process.exit(1); });
