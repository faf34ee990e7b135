// Where a process's peak resident memory is: samples RSS while a workload runs and, at each new
// peak, reads /proc/self/smaps (Linux) and sorts the resident bytes by what holds them. The
// question it answers (bench/async.mjs --memory): is a peak made of memory the program still
// uses, or of memory the C allocator keeps after the program freed it?
//
// glibc's malloc gives each thread an arena; an arena other than the main one lives in heaps
// that are reserved 64 MiB at a time and aligned to 64 MiB, so a private anonymous mapping that
// starts on a 64 MiB boundary is such a heap (or its front part). Freed chunks stay resident in
// them until the heap's top is trimmed. glibc also raises its mmap threshold to the size of the
// largest mmapped block freed (up to 32 MiB): after the first 16 MB buffer is freed, later ones
// come from the arenas, not from mappings of their own.
//
// Main thread only; Linux only (elsewhere `breakdown` is null).

import { readFileSync } from 'node:fs';
import process from 'node:process';

const ARENA_ALIGN = 64 * 2 ** 20;

/** The resident bytes of this process by kind: { arenas, otherAnon, file, total }, or null. */
export function breakdown() {
  let text;
  try {
    text = readFileSync('/proc/self/smaps', 'utf8');
  } catch {
    return null;
  }
  const out = { arenas: 0, otherAnon: 0, file: 0, total: 0 };
  let kind = 'otherAnon';
  for (const line of text.split('\n')) {
    const head = /^([0-9a-f]+)-[0-9a-f]+ (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      const start = parseInt(head[1], 16);
      const name = head[3];
      kind = name.startsWith('/') ? 'file'
        : name === '' && head[2] === 'rw-p' && start % ARENA_ALIGN === 0 ? 'arenas'
          : 'otherAnon';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) {
      const b = Number(rss[1]) * 1024;
      out[kind] += b;
      out.total += b;
    }
  }
  return out;
}

/** Samples RSS every `ms` until stop(); stop() returns { peak, atPeak } (the breakdown taken
 *  at the highest sample, null off Linux). A breakdown is read only when a sample tops the
 *  last one read by 4 MiB, so the sampling stays cheap. */
export function sampleRss(ms = 10) {
  let peak = 0;
  let read = 0;
  let atPeak = null;
  const look = () => {
    const rss = process.memoryUsage.rss();
    if (rss <= peak) return;
    peak = rss;
    if (rss - read < 4 * 2 ** 20) return;
    read = rss;
    atPeak = breakdown() ?? atPeak;
  };
  const timer = setInterval(look, ms);
  return {
    stop() {
      clearInterval(timer);
      look();
      return { peak, atPeak };
    },
  };
}
