// The native peers of the real workloads (bench/peers/): building them offline and timing one
// run. Go (`golang-go`) and Rust with rayon (Debian's `librust-rayon-dev`, which
// `.cargo/config.toml` points cargo at); a peer whose toolchain is missing or whose build fails
// is skipped with a note, so the suite still runs where only Node is installed. Main thread only.

import process from 'node:process';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { check } from './guard.mjs';

const PEERS = fileURLToPath(new URL('../peers/', import.meta.url));

/** The build of each peer: the command, and the binary it leaves. */
const BUILDS = {
  Go: { dir: 'go-workloads', cmd: ['go', ['build', '-o', 'go-workloads', '.']], bin: 'go-workloads', env: { GOFLAGS: '-mod=mod', GOPROXY: 'off' } },
  rayon: { dir: 'rayon-workloads', cmd: ['cargo', ['build', '--release', '--offline', '--quiet']], bin: 'target/release/rayon-workloads', env: {} },
};

/**
 * Builds the peer `name` ('Go' or 'rayon'): { bin, note }, bin null (with a printed note saying
 * why) where the toolchain is absent or the build fails.
 */
export function buildPeer(name) {
  const b = BUILDS[name];
  const dir = `${PEERS}${b.dir}/`;
  const [cmd, args] = b.cmd;
  const r = spawnSync(cmd, args, { cwd: dir, encoding: 'utf8', env: { ...process.env, ...b.env } });
  const bin = `${dir}${b.bin}`;
  if (r.error || r.status !== 0 || !existsSync(bin)) {
    const why = r.error ? r.error.message : (r.stderr || '').trim().split('\n').slice(-1)[0];
    console.log(`note: the ${name} peers are skipped (${cmd} build: ${why})`);
    return { bin: null, note: `${name} peers skipped: ${why}` };
  }
  return { bin, note: null };
}

/**
 * One timed run of a peer program (after its own untimed warm-up run): { ms, result }. Both
 * peers take `<workload> <size...> <mode> <threads> <reps>` and print "ms <time>" and
 * "result <...>".
 */
export function runPeer(bin, args, mode, threads) {
  const r = spawnSync(bin, [...args.map(String), mode, String(threads), '1'], { encoding: 'utf8', maxBuffer: 1 << 20 });
  const name = bin.split('/').pop();
  if (r.status !== 0) throw new Error(`${name} ${args.join(' ')} ${mode}: exit ${r.status}: ${(r.stderr || '').slice(0, 300)}`);
  const ms = Number(/ms ([\d.]+)/.exec(r.stdout)?.[1]);
  const result = /result (.*)/.exec(r.stdout)?.[1];
  check(Number.isFinite(ms) && result !== undefined, `${name} printed ${JSON.stringify(r.stdout)}`);
  return { ms, result };
}
