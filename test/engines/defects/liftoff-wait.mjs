// Engine defect, standalone: after memory.atomic.wait32 with constant operands, code compiled by
// V8 11's baseline Wasm compiler (Liftoff) reads the function's last local as 0.
//
// The module (text form):
//   (module
//     (import "env" "mem" (memory 1 1 shared))
//     (func (export "waitThenReturn") (param $p i32) (result i32)
//       (drop (memory.atomic.wait32 (i32.const 8) (i32.const 0) (i64.const 1000)))  ;; 1 us, never notified
//       (local.get $p)))
// waitThenReturn(p) must return p. Single-threaded and deterministic; prints one line and exits
// 1 when the engine returns anything else. Run: node liftoff-wait.mjs (also --liftoff-only,
// --no-liftoff), deno run liftoff-wait.mjs, bun liftoff-wait.mjs.
const BYTES = new Uint8Array([0,97,115,109,1,0,0,0,1,6,1,96,1,127,1,127,2,13,1,3,101,110,118,3,109,101,109,2,3,1,1,3,2,1,0,7,18,1,14,119,97,105,116,84,104,101,110,82,101,116,117,114,110,0,0,10,18,1,16,0,65,8,65,0,66,232,7,254,1,2,0,26,32,0,11]);

const mem = new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true });
const { exports } = new WebAssembly.Instance(new WebAssembly.Module(BYTES), { env: { mem } });
const got = exports.waitThenReturn(42);
console.log(`liftoff-wait: waitThenReturn(42) returned ${got}${got === 42 ? '' : ' (defect)'}`);
if (got !== 42) process.exitCode = 1;
