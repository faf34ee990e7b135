// Engine defect, standalone: after one thread grows a shared Wasm memory and then publishes
// something in the new pages with an atomic store, another thread that reads the publication
// with an atomic load and then loads from the new pages traps with "memory access out of
// bounds". The grow happens before the publication, so by the threads proposal's memory model
// the load is in bounds. V8 refreshes the size another thread's instance checks against only
// when that thread next handles an interrupt; a memory.grow(0) on the reading thread refreshes
// it at once (the 'synced' reader below never traps).
//
// The module (text form):
//   (module
//     (import "env" "mem" (memory 1 65536 shared))
//     (func (export "grow") (param $k i32)               ;; grower, k = 1, 2, 3, ...
//       (drop (memory.grow (i32.const 1)))               ;; page k now exists
//       (i32.store (i32.shl (local.get $k) (i32.const 16)) (local.get $k))
//       (i32.atomic.store (i32.const 0) (local.get $k)))  ;; publish k
//     (func (export "read") (param $k i32) (result i32)  ;; reader
//       (loop $spin (br_if $spin (i32.lt_u (i32.atomic.load (i32.const 0)) (local.get $k))))
//       (i32.atomic.load (i32.shl (local.get $k) (i32.const 16))))
//     (func (export "readSynced") (param $k i32) (result i32)
//       (loop $spin (br_if $spin (i32.lt_u (i32.atomic.load (i32.const 0)) (local.get $k))))
//       (drop (memory.grow (i32.const 0)))                ;; refreshes this instance's bounds
//       (i32.atomic.load (i32.shl (local.get $k) (i32.const 16)))))
//
// Each trial: a fresh memory, one worker growing it page by page (999 pages), one worker reading
// each page as soon as it is published. Prints one line per reader and exits 1 when the plain
// reader trapped in any trial, 2 when the synced one did. Run: node grow-bounds.mjs [trials],
// deno run -A grow-bounds.mjs, bun grow-bounds.mjs. Results are in README.md beside this file.
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

const BYTES = new Uint8Array([0,97,115,109,1,0,0,0,1,10,2,96,1,127,0,96,1,127,1,127,2,15,1,3,101,110,118,3,109,101,109,2,3,1,128,128,4,3,4,3,0,1,1,7,28,3,4,103,114,111,119,0,0,4,114,101,97,100,0,1,10,114,101,97,100,83,121,110,99,101,100,0,2,10,84,3,25,0,65,1,64,0,26,32,0,65,16,116,32,0,54,2,0,65,0,32,0,254,23,2,0,11,25,0,3,64,65,0,254,16,2,0,32,0,73,13,0,11,32,0,65,16,116,254,16,2,0,11,30,0,3,64,65,0,254,16,2,0,32,0,73,13,0,11,65,0,64,0,26,32,0,65,16,116,254,16,2,0,11]);
const PAGES = 1000;

if (isMainThread) {
  const trials = Number(process.argv[2] ?? 20);
  const module = new WebAssembly.Module(BYTES);
  const trapped = { read: 0, readSynced: 0 };
  for (const reader of ['read', 'readSynced']) {
    for (let t = 0; t < trials; t++) {
      const mem = new WebAssembly.Memory({ initial: 1, maximum: 65536, shared: true });
      const run = (role) => new Promise((resolve) => {
        const w = new Worker(new URL(import.meta.url), { workerData: { role, module, mem } });
        w.once('message', (m) => { resolve(m); void w.terminate(); });
      });
      const [r] = await Promise.all([run(reader), run('grow')]);
      if (r !== 'ok') trapped[reader]++;
    }
    console.log(`grow-bounds: ${reader}: ${trapped[reader]} of ${trials} trials trapped`);
  }
  process.exitCode = trapped.readSynced !== 0 ? 2 : trapped.read !== 0 ? 1 : 0;
} else {
  const { role, module, mem } = workerData;
  const { exports } = new WebAssembly.Instance(module, { env: { mem } });
  try {
    for (let k = 1; k < PAGES; k++) {
      if (role === 'grow') exports.grow(k);
      else if (exports[role](k) !== k) throw new Error(`page ${k}: wrong value`);
    }
    parentPort.postMessage('ok');
  } catch (e) {
    parentPort.postMessage(String(e));
  }
}
