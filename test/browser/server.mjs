// A static file server for the browser example and its test, on the loopback interface only.
// Every response is cross-origin isolated (COOP same-origin, COEP require-corp) unless the
// request says otherwise with `?headers=`: `none`, `coop` (only COOP), `coep` (only COEP) or
// `unsafe-coep` (COEP with a value that does not isolate), so the test can also load the page
// without isolation.
//
//   node test/browser/server.mjs [--port 8080]   then open the printed URL
//
// It serves the repository root, so the example page finds the built bundle at /dist/index.js.

import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.cjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
};

export const COOP = ['Cross-Origin-Opener-Policy', 'same-origin'];
export const COEP = ['Cross-Origin-Embedder-Policy', 'require-corp'];

/** The isolation headers a request asks for. */
function isolationHeaders(search) {
  const which = new URLSearchParams(search).get('headers') ?? 'both';
  if (which === 'none') return [];
  if (which === 'coop') return [COOP];
  if (which === 'coep') return [COEP];
  if (which === 'unsafe-coep') return [COOP, ['Cross-Origin-Embedder-Policy', 'unsafe-none']];
  return [COOP, COEP];
}

/**
 * Starts the server; resolves with its base URL (`http://127.0.0.1:PORT/`) and a close function.
 * `port` 0 picks a free port.
 */
export function startServer({ root = repoRoot, port = 0, host = '127.0.0.1' } = {}) {
  const base = normalize(root.endsWith(sep) ? root : root + sep);
  const server = createServer(async (req, res) => {
    const send = (status, body, headers = {}) => {
      res.writeHead(status, { 'Cache-Control': 'no-store', ...headers });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'method not allowed\n', { Allow: 'GET, HEAD' });
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      let path = decodeURIComponent(url.pathname);
      if (path.endsWith('/')) path += 'index.html';
      const file = normalize(join(base, path));
      if (!file.startsWith(base)) return send(403, 'outside the served folder\n');
      if (!(await stat(file)).isFile()) return send(404, 'not found\n');
      const body = await readFile(file);
      const headers = {
        'Content-Type': types[extname(file)] ?? 'application/octet-stream',
        'Cross-Origin-Resource-Policy': 'same-origin',
      };
      for (const [k, v] of isolationHeaders(url.search)) headers[k] = v;
      return send(200, body, headers);
    } catch {
      return send(404, 'not found\n');
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const { port: p } = server.address();
      resolve({
        url: `http://${host}:${p}/`,
        close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(() => r()); }),
      });
    });
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const i = process.argv.indexOf('--port');
  const { url } = await startServer({ port: i > 0 ? Number(process.argv[i + 1]) : 8080 });
  console.log(`stealwork browser example: ${url}examples/browser/`);
  console.log(`without isolation:          ${url}examples/browser/?headers=none`);
}
