// Checks what `npm publish` would ship, without publishing or reaching a registry:
//
//   npm run pack:check        (after npm run build)
//
// - the file list is exactly SHIPPED (no sources, maps, tarballs or tsc output);
// - every relative link and image of README.md points at a file the package ships, and every
//   link of a shipped Markdown file at a file of the repository;
// - package.json has no runtime dependencies, and the bundles import nothing but their own
//   files (and node: built-ins, loaded at run time through process.getBuiltinModule);
// - each entry carries both flavours of the Wasm core (the worker and the piscina entry's ESM
//   wrapper none), each a valid module and, when
//   build/ holds the asc output, byte for byte the files asc wrote;
// - prints the size, packed and unpacked, and the file count.
//
// What publint and @arethetypeswrong/cli check on the tarball (package.json's fields against the
// files they name, each file's module format, the types each entry point resolves to) is
// scripts/package-lint.mjs's (npm run pack:lint); nothing here repeats it.

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { posix } from 'node:path';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Exactly what the tarball holds (npm adds package.json and README.md by itself). The files the
 *  README links to ship with it, so its links and pictures work wherever the tarball's README is
 *  read (a registry page, an unpacked package, a CDN's file view). */
export const SHIPPED = [
  'CHANGELOG.md', 'LICENSE', 'README.md', 'package.json',
  'dist/index.cjs', 'dist/index.d.cts', 'dist/index.d.ts', 'dist/index.js', 'dist/worker.js',
  'dist/piscina.cjs', 'dist/piscina.d.cts', 'dist/piscina.d.ts', 'dist/piscina.js',
  'docs/DESIGN.md', 'docs/guide.md', 'docs/piscina.md', 'docs/performance.md', 'docs/trace-viewer.png',
  'bench/results/chart.svg', 'bench/results/wasm-vs-ts.svg', 'bench/results/speedup.svg', 'bench/results/scale.svg',
  'bench/results/latest.txt', 'bench/results/queue.txt', 'bench/results/workloads.txt', 'bench/results/scale.txt',
];

/** The relative link and image targets of a Markdown file (anchors and absolute URLs left out). */
export function relativeLinks(markdown) {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1].split('#')[0])
    .filter((t) => t !== '' && !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

/** The bundles that embed the Wasm core, and the asc output each embedded string must equal.
 *  (dist/piscina.js is a wrapper over dist/piscina.cjs, which embeds it.) */
const EMBEDDERS = ['dist/index.js', 'dist/index.cjs', 'dist/piscina.cjs'];
const FLAVOURS = [['RELEASE_WASM_BASE64', 'build/stealwork.wasm'], ['DEBUG_WASM_BASE64', 'build/stealwork.debug.wasm']];

function kB(n) {
  return `${(n / 1000).toFixed(1)} kB`;
}

/** Runs every check; returns the lines of the summary, throws on the first problem. */
export function packCheck() {
  const problems = [];
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' });
  const pack = JSON.parse(out.slice(out.indexOf('[')))[0];
  const files = pack.files.map((f) => f.path).sort();
  const want = [...SHIPPED].sort();
  const stray = files.filter((f) => !want.includes(f));
  const absent = want.filter((f) => !files.includes(f));
  if (stray.length) problems.push(`stray files in the package: ${stray.join(', ')}`);
  if (absent.length) problems.push(`files missing from the package (run npm run build): ${absent.join(', ')}`);

  for (const target of relativeLinks(readFileSync(`${root}README.md`, 'utf8'))) {
    if (!files.includes(target)) problems.push(`README.md links to ${target}, which the package does not ship`);
  }
  // The shipped docs may link into the repository (a test, a bench script): every link must
  // name a file that exists there.
  for (const doc of files.filter((f) => f.endsWith('.md'))) {
    for (const target of relativeLinks(readFileSync(`${root}${doc}`, 'utf8'))) {
      const path = posix.normalize(posix.join(posix.dirname(doc), target));
      if (!existsSync(`${root}${path}`)) problems.push(`${doc} links to ${target}, which does not exist (${path})`);
    }
  }

  const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies', 'bundleDependencies']) {
    if (pkg[field] && Object.keys(pkg[field]).length) problems.push(`package.json has ${field}: the package must have no runtime dependencies`);
  }

  const lines = [];
  for (const file of files.filter((f) => /\.(c?js)$/.test(f))) {
    const text = readFileSync(`${root}${file}`, 'utf8');
    const specifiers = [
      ...text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]/gm),
      ...text.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm),
      ...text.matchAll(/\brequire\(\s*['"]([^'"]+)['"]\s*\)/g),
    ].map((m) => m[1]);
    const outside = specifiers.filter((s) => !s.startsWith('./'));
    if (outside.length) problems.push(`${file} imports from outside the package: ${outside.join(', ')}`);
    if (/\/\/# sourceMappingURL=/.test(text)) problems.push(`${file} points at a source map that is not shipped`);
    if (!EMBEDDERS.includes(file)) {
      if (/_WASM_BASE64\b/.test(text)) problems.push(`${file} carries the embedded Wasm core, which only the entries need`);
      continue;
    }
    for (const [name, built] of FLAVOURS) {
      const m = new RegExp(`\\b${name}\\s*=\\s*'([A-Za-z0-9+/=]+)'`).exec(text);
      if (!m) { problems.push(`${file} does not embed ${name}`); continue; }
      const bytes = Buffer.from(m[1], 'base64');
      if (!WebAssembly.validate(bytes)) { problems.push(`${file}: ${name} is not a valid WebAssembly module`); continue; }
      if (existsSync(`${root}${built}`) && !bytes.equals(readFileSync(`${root}${built}`))) {
        problems.push(`${file}: ${name} differs from ${built} (rebuild: npm run build)`);
      }
      lines.push(`  ${file}: ${name.startsWith('DEBUG') ? 'debug' : 'release'} Wasm core embedded, ${bytes.length} bytes, valid`);
    }
  }
  if (problems.length) throw new Error(`pack:check failed:\n  ${problems.join('\n  ')}`);
  return [
    `${pack.name}@${pack.version}: ${pack.entryCount} files, ${kB(pack.size)} packed, ${kB(pack.unpackedSize)} unpacked`,
    ...pack.files.map((f) => `  ${f.path.padEnd(24)} ${kB(f.size).padStart(9)}`),
    ...lines,
  ];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    for (const line of packCheck()) console.log(line);
    console.log('pack:check: ok');
  } catch (e) {
    console.error(e.message);
    process.exit(1);
  }
}
