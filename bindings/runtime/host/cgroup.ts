// The CPU limit from cgroups: how many CPUs' worth of time per period the kernel lets this
// process use (cgroup v2 `cpu.max`, v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us`), and the
// default procs it implies, Go 1.25's container-aware GOMAXPROCS (runtime/cgroup_linux.go,
// internal/runtime/cgroup). DESIGN.md "Default procs" says what is read and why.
//
// Every file goes through a CgroupReader, so tests run the whole walk on fake trees; only
// machineCPULimit reads the real files, on Linux under Node, synchronously, and never throws: a
// missing or unreadable file reads as null, and any text that does not parse makes the reading
// give up (no limit found), so the caller falls back to the CPU count.

import { availableParallelism, isNode, nodeModule } from './platform.js';

/** Reads a whole file: its text, or null when it is missing or cannot be read. */
export type CgroupReader = (path: string) => string | null;

/** A CPU bandwidth limit: `quota` microseconds of CPU time every `period` microseconds. */
export interface CPULimit {
  /** quota / period, in CPUs: 1.5 is 150 ms of CPU time every 100 ms. */
  cpus: number;
  quota: number;
  period: number;
  /** The file that set it: the tightest level of the walk (e.g. /sys/fs/cgroup/cpu.max). */
  file: string;
}

/** Where the procs a scheduler runs came from. 'cgroup' and 'cpus' are the default's two cases.
 *  @inline */
export type ProcsSource = 'option' | 'cgroup' | 'cpus';

/** The default procs and how it was chosen. */
export interface ProcsDefault {
  procs: number;
  /** 'cgroup' when the CPU limit lowered it below the CPU count; else 'cpus'. */
  source: 'cgroup' | 'cpus';
  /** The CPU count it started from (availableParallelism()). */
  ncpu: number;
  /** The limit found, lower than the CPU count or not; null: none found. */
  limit: CPULimit | null;
}

/** A parse failure inside the walk; cpuLimit turns it into "no limit". Never escapes. */
class Malformed extends Error {}

/**
 * The default procs: the CPU count, lowered to the CPU limit when there is one, as Go 1.25's
 * defaultGOMAXPROCS does: min(ncpu, max(2, ceil(limit))). A fractional limit rounds up (1.5
 * CPUs -> 2): the quota is CPU time per period, not a CPU count, so 2 threads use all of 1.5
 * CPUs' time and 1 thread could use only 1. A limit below 2 still gives 2 when there are 2 CPUs
 * (0.5 -> 2): with one P nothing is stolen and one long task holds every queued one until the
 * monitor lends the spare; the kernel's throttling keeps the process within its quota either
 * way. At least 1. Any caller.
 */
export function defaultProcs(ncpu: number, limit: CPULimit | null): ProcsDefault {
  const cpus = Math.max(1, Math.floor(ncpu));
  if (limit !== null) {
    // Exact: quota and period are safe integers, so a quotient with a fraction (at least
    // 1/period) is never rounded to a whole number.
    const procs = Math.max(2, Math.ceil(limit.quota / limit.period));
    if (procs < cpus) return { procs, source: 'cgroup', ncpu: cpus, limit };
  }
  return { procs: cpus, source: 'cpus', ncpu: cpus, limit };
}

/** This machine's default procs: defaultProcs over availableParallelism() and machineCPULimit(). */
export function procsDefault(): ProcsDefault {
  return defaultProcs(availableParallelism(), machineCPULimit());
}

/**
 * This process's CPU limit, read from the real cgroup files; null when there is none, when the
 * files are missing or do not parse, and off Linux or off Node (Deno, Bun, browsers: the CPU
 * count stands). Reads a few small files each call (no cache: procs is fixed at start, and a
 * limit changed since, e.g. by a pod resize, is read by the next scheduler). Any caller.
 */
export function machineCPULimit(): CPULimit | null {
  const p = (globalThis as { process?: { platform?: string; versions?: { bun?: string } } }).process;
  if (!isNode || p?.versions?.bun !== undefined || p?.platform !== 'linux') return null;
  try {
    const fs = nodeModule<typeof import('node:fs')>('node:fs');
    return cpuLimit((path) => {
      try {
        return fs.readFileSync(path, 'utf8');
      } catch {
        return null; // missing (ENOENT), not permitted, gone since
      }
    });
  } catch {
    return null; // no process.getBuiltinModule, or a bug in the walk: the CPU count stands
  }
}

/**
 * The process's CPU limit through `read`: find its CPU cgroup (findCPU), then walk from it up to
 * the root of the cgroup mount, reading the limit at each level; the tightest level is the
 * limit (a child cannot use more than its parent's quota). Null when no level has a limit, or
 * when a file needed does not parse; it throws only what `read` throws, or a bug (which the
 * tests should see; machineCPULimit catches both). Go 1.25 reads only the leaf (its comment
 * says a parent's tighter limit is missed); the walk costs a read per level and misses nothing
 * the mount shows. Any caller.
 */
export function cpuLimit(read: CgroupReader): CPULimit | null {
  try {
    const cg = findCPU(read);
    if (cg === null) return null;
    let best: CPULimit | null = null;
    for (const dir of levels(cg.mountPoint, cg.rel)) {
      const l = cg.version === 2 ? readV2Limit(read, dir) : readV1Limit(read, dir);
      if (l !== null && (best === null || l.cpus < best.cpus)) best = l;
    }
    return best;
  } catch (e) {
    if (e instanceof Malformed) return null;
    throw e; // a bug here, not a bad file
  }
}

/** The process's CPU cgroup: its hierarchy's version, the mount point, and its path below it. */
interface CPUCgroup {
  version: 1 | 2;
  mountPoint: string;
  /** '' for the mount's root, else '/a/b'. */
  rel: string;
}

/**
 * Finds the CPU cgroup: the path from /proc/self/cgroup, under the mount from
 * /proc/self/mountinfo whose root holds it (of several, the one with the shortest root). A v1
 * hierarchy with the cpu controller wins over v2 (the controller is on one hierarchy only, as
 * Go reasons). A path outside every such mount (a cgroup namespace shows '/..' for a cgroup
 * above its root) has no limit visible here.
 */
function findCPU(read: CgroupReader): CPUCgroup | null {
  const cgroupText = read('/proc/self/cgroup');
  if (cgroupText === null) return null;
  const own = parseCPURelativePath(cgroupText);
  if (own === null) return null;
  const mountText = read('/proc/self/mountinfo');
  if (mountText === null) return null;
  let found: { root: string; point: string } | null = null;
  for (const m of parseCPUMounts(mountText)) {
    if (m.version !== own.version || !isUnder(own.path, m.root)) continue;
    // Two mounts of one hierarchy show the same files; the one with the shortest root shows
    // the most ancestors to walk.
    if (found === null || m.root.length < found.root.length) found = m;
  }
  if (found === null) return null;
  const rel = found.root === '/' ? own.path : own.path.slice(found.root.length);
  return { version: own.version, mountPoint: found.point, rel: rel === '/' ? '' : rel };
}

/**
 * The process's cgroup path for the CPU controller, from /proc/self/cgroup's lines
 * `hierarchy-ID:controller-list:path`: v2 is `0::/path`; a v1 line whose controllers include
 * `cpu` (`cpu`, `cpu,cpuacct`) takes precedence.
 */
export function parseCPURelativePath(text: string): { version: 1 | 2; path: string } | null {
  let v2: string | null = null;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const a = line.indexOf(':');
    const b = a < 0 ? -1 : line.indexOf(':', a + 1);
    if (b < 0) throw new Malformed(`/proc/self/cgroup: no two colons in ${JSON.stringify(line)}`);
    const path = line.slice(b + 1);
    if (line.slice(0, a) === '0') v2 = path;
    else if (containsCPU(line.slice(a + 1, b))) return { version: 1, path: checkPath(path) };
  }
  return v2 === null ? null : { version: 2, path: checkPath(v2) };
}

/**
 * The cgroup mounts that can hold the CPU controller, from /proc/self/mountinfo's lines
 * `id parent major:minor root mount-point options [optional...] - type source super-options`:
 * every cgroup2 mount, and every cgroup (v1) mount whose super options include `cpu`. `root` is
 * the cgroup at the mount point ('/' unless the mount shows a subtree, as a bind mount of a
 * container's own cgroup does).
 */
export function parseCPUMounts(text: string): Array<{ version: 1 | 2; root: string; point: string }> {
  const out: Array<{ version: 1 | 2; root: string; point: string }> = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const f = line.split(' ');
    const sep = f.indexOf('-', 6);
    if (f.length < 6 || sep < 0 || sep + 1 >= f.length) throw new Malformed(`/proc/self/mountinfo: ${JSON.stringify(line)}`);
    const type = f[sep + 1];
    if (type === 'cgroup2') out.push({ version: 2, root: unescapePath(f[3]), point: unescapePath(f[4]) });
    else if (type === 'cgroup' && containsCPU(f[sep + 3] ?? '')) out.push({ version: 1, root: unescapePath(f[3]), point: unescapePath(f[4]) });
  }
  return out;
}

/** True if the comma-separated list holds `cpu` itself (not `cpuacct` or `cpuset` alone). */
function containsCPU(list: string): boolean {
  return list.split(',').includes('cpu');
}

/** Undoes mountinfo's octal escapes (`\040` for a space, `\011`, `\012`, `\134`). */
function unescapePath(s: string): string {
  const out = s.replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(parseInt(oct, 8)));
  if (out.includes('\\')) throw new Malformed(`/proc/self/mountinfo: bad escape in ${JSON.stringify(s)}`);
  return checkPath(out);
}

/** An absolute path with no '..' segment (the walk only ever goes up by cutting segments). */
function checkPath(p: string): string {
  if (!p.startsWith('/') || p.split('/').includes('..')) throw new Malformed(`cgroup path ${JSON.stringify(p)}`);
  return p;
}

/** True if `path` is `root` or below it, by whole segments. */
function isUnder(path: string, root: string): boolean {
  return root === '/' || path === root || path.startsWith(root + '/');
}

/** The directories from the process's cgroup up to the mount point, leaf first. */
function levels(mountPoint: string, rel: string): string[] {
  const base = mountPoint === '/' ? '' : mountPoint.replace(/\/+$/, '');
  const segs = rel.split('/').filter((s) => s !== '');
  const out: string[] = [];
  for (let n = segs.length; n >= 0; n--) out.push(base + (n === 0 ? '' : '/' + segs.slice(0, n).join('/')) || '/');
  return out;
}

/** cgroup v2 `cpu.max`: "max 100000" (no limit) or "150000 100000". Missing: no limit here. */
function readV2Limit(read: CgroupReader, dir: string): CPULimit | null {
  const file = join(dir, 'cpu.max');
  const text = read(file);
  if (text === null) return null;
  const m = /^(max|\d+) (\d+)\n?$/.exec(text);
  if (m === null) throw new Malformed(`${file}: ${JSON.stringify(text)}`);
  if (m[1] === 'max') return null;
  return limitOf(Number(m[1]), Number(m[2]), file);
}

/** cgroup v1 `cpu.cfs_quota_us` (-1: no limit) over `cpu.cfs_period_us`. Missing: no limit here. */
function readV1Limit(read: CgroupReader, dir: string): CPULimit | null {
  const file = join(dir, 'cpu.cfs_quota_us');
  const quota = read(file);
  if (quota === null) return null;
  const q = parseV1Number(quota, file);
  if (q === -1) return null;
  const pfile = join(dir, 'cpu.cfs_period_us');
  const period = read(pfile);
  if (period === null) throw new Malformed(`${pfile}: missing beside ${file}`);
  return limitOf(q, parseV1Number(period, pfile), file);
}

/** One integer and an optional newline. */
function parseV1Number(text: string, file: string): number {
  if (!/^-?\d+\n?$/.test(text)) throw new Malformed(`${file}: ${JSON.stringify(text)}`);
  return Number(text.trim());
}

function limitOf(quota: number, period: number, file: string): CPULimit {
  if (!(quota > 0) || !(period > 0) || !Number.isSafeInteger(quota) || !Number.isSafeInteger(period)) {
    throw new Malformed(`${file}: quota ${quota}, period ${period}`);
  }
  return { cpus: quota / period, quota, period, file };
}

function join(dir: string, name: string): string {
  return dir === '/' ? '/' + name : dir + '/' + name;
}
