// Builds a model-checking variant of the TypeScript twin (bindings/core/ts/, with the runtime's
// protocol modules that use no other runtime file, bindings/runtime/memory/joinword.ts, forksleep.ts
// and parkspin.ts): the same source,
// compiled so that a controlled scheduler can stop a simulated thread at every shared access.
//
// Every function declaration becomes a generator and every call between twin functions a
// `yield*`; every `Atomics.op(...)` becomes `yield ['op', ...]` and every plain element access
// on a view (`i32[x]`, `m.f64[x] = v`, `i32[x] += v`) becomes `yield ['ld', view, x]` or
// `yield ['st', view, x, v]`. A parameter typed as a function (a callback, such as forkSleep's
// `look`) is a generator function in the model: its calls become `yield*` too. The scheduler (explore.mjs) performs the operation when it lets the
// thread go on. The twin's source stays as it is: the production hot path has no hook at all.
//
// A variant may also shrink layout constants (a 4-slot ring, as tokio's loom build does) and
// apply seeded bugs: exact text replacements in the source, each of which must match.
// Test code only.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TWIN = path.join(ROOT, 'bindings/core/ts');
const LAYOUT = path.join(ROOT, 'assembly/shared/layout.ts');
const CORE = path.join(ROOT, 'bindings/core/core.ts');
const OUT = path.join(ROOT, 'node_modules/.cache/stealwork-model');
const VIEWS = new Set(['i32', 'f64', 'i64', 'u8']);
const TWIN_FILES = fs.readdirSync(TWIN).filter((f) => f.endsWith('.ts') && f !== 'index.ts');
/** Runtime protocol modules the models drive beside the twin (no other runtime imports). */
const RUNTIME = path.join(ROOT, 'bindings/runtime');
/** Each file by its path under bindings/runtime/; the variant holds them flat, by file name. */
const RUNTIME_FILES = ['memory/joinword.ts', 'tasks/forksleep.ts', 'sleep/parkspin.ts'];

/** Is e a view on the shared memory, by the twin's naming (`i32`, `m.f64`, ...)? */
function isView(e) {
  return (ts.isIdentifier(e) && VIEWS.has(e.text)) || (ts.isPropertyAccessExpression(e) && VIEWS.has(e.name.text));
}

const COMPOUND = new Map([
  [ts.SyntaxKind.PlusEqualsToken, ts.SyntaxKind.PlusToken],
  [ts.SyntaxKind.MinusEqualsToken, ts.SyntaxKind.MinusToken],
  [ts.SyntaxKind.BarEqualsToken, ts.SyntaxKind.BarToken],
  [ts.SyntaxKind.AmpersandEqualsToken, ts.SyntaxKind.AmpersandToken],
]);

/** Throws unless evaluating e twice is the same as once (a compound assignment's index). */
function checkPure(e, file) {
  const walk = (n) => {
    if (ts.isCallExpression(n) && !(ts.isIdentifier(n.expression) && /^[pm]Word$|^pCounters$|^pOps$/.test(n.expression.text))) {
      throw new Error(`model transform: ${file}: impure index ${n.getText()}`);
    }
    if (ts.isPrefixUnaryExpression(n) || ts.isPostfixUnaryExpression(n)) {
      if (n.operator === ts.SyntaxKind.PlusPlusToken || n.operator === ts.SyntaxKind.MinusMinusToken) {
        throw new Error(`model transform: ${file}: impure index ${n.getText()}`);
      }
    }
    ts.forEachChild(n, walk);
  };
  walk(e);
}

/** The transformer for one file; fns are the names of every twin function declaration. */
function transformer(fns, file) {
  return (ctx) => {
    const f = ctx.factory;
    const op = (name, args) => f.createParenthesizedExpression(
      f.createYieldExpression(undefined, f.createArrayLiteralExpression([f.createStringLiteral(name), ...args])));
    let callbacks = new Set(); // the enclosing declaration's function-typed parameters
    const visit = (node) => {
      if (ts.isFunctionDeclaration(node) && node.body) {
        const outer = callbacks;
        callbacks = new Set(node.parameters.filter((q) => q.type && ts.isFunctionTypeNode(q.type) && ts.isIdentifier(q.name))
          .map((q) => q.name.text));
        const body = ts.visitEachChild(node.body, visit, ctx);
        callbacks = outer;
        return f.updateFunctionDeclaration(node, node.modifiers, f.createToken(ts.SyntaxKind.AsteriskToken),
          node.name, node.typeParameters, node.parameters, node.type, body);
      }
      if (ts.isArrowFunction(node) || ts.isFunctionExpression(node) || ts.isClassDeclaration(node)) {
        // Left alone: they must not touch shared memory through a view (checked here).
        const scan = (n) => {
          if (ts.isElementAccessExpression(n) && isView(n.expression)) {
            throw new Error(`model transform: ${file}: shared access inside a closure or class: ${n.getText()}`);
          }
          ts.forEachChild(n, scan);
        };
        scan(node);
        return node;
      }
      if (ts.isBinaryExpression(node) && ts.isElementAccessExpression(node.left) && isView(node.left.expression)
        && node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && node.operatorToken.kind <= ts.SyntaxKind.LastAssignment) {
        const kind = node.operatorToken.kind;
        const view = visit(node.left.expression);
        const index = visit(node.left.argumentExpression);
        const rhs = visit(node.right);
        if (kind === ts.SyntaxKind.EqualsToken) return op('st', [view, index, rhs]);
        const bin = COMPOUND.get(kind);
        if (bin === undefined) throw new Error(`model transform: ${file}: unsupported ${node.getText()}`);
        checkPure(node.left.argumentExpression, file);
        return op('st', [view, index, f.createBinaryExpression(op('ld', [view, index]), bin, f.createParenthesizedExpression(rhs))]);
      }
      if ((ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) && ts.isElementAccessExpression(node.operand) && isView(node.operand.expression)) {
        throw new Error(`model transform: ${file}: unsupported ${node.getText()}`);
      }
      if (ts.isElementAccessExpression(node) && isView(node.expression)) {
        return op('ld', [visit(node.expression), visit(node.argumentExpression)]);
      }
      if (ts.isCallExpression(node)) {
        const callee = node.expression;
        const args = node.arguments.map((a) => visit(a));
        if (ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) && callee.expression.text === 'Atomics') {
          return op(callee.name.text, args);
        }
        if (ts.isPropertyAccessExpression(callee) && isView(callee.expression) && callee.name.text === 'fill') {
          return op('fill', [visit(callee.expression), ...args]);
        }
        if (ts.isIdentifier(callee) && (fns.has(callee.text) || callbacks.has(callee.text))) {
          return f.createParenthesizedExpression(f.createYieldExpression(f.createToken(ts.SyntaxKind.AsteriskToken),
            f.updateCallExpression(node, callee, node.typeArguments, args)));
        }
      }
      return ts.visitEachChild(node, visit, ctx);
    };
    return (sf) => ts.visitNode(sf, visit);
  };
}

/** Rewrites the twin's imports to the variant's own copies of layout.js and core.js. */
function relink(js) {
  return js
    .replaceAll("'../../../assembly/shared/layout.js'", "'./layout.js'")
    .replaceAll("'../../assembly/shared/layout.js'", "'./layout.js'")
    .replaceAll("'../core.js'", "'./core.js'")
    .replace(/'\.\.\/(?:memory|tasks|sleep)\/([a-z-]+\.js)'/g, "'./$1'"); // runtime files, held flat
}

/** Applies `export const NAME = value;` overrides to layout.ts's text; each must match once. */
function shrinkLayout(src, consts) {
  for (const [name, value] of Object.entries(consts)) {
    const re = new RegExp(`^export const ${name} = [^;]+;`, 'm');
    if (!re.test(src)) throw new Error(`model transform: no layout constant ${name}`);
    src = src.replace(re, `export const ${name} = ${value};`);
  }
  return src;
}

/**
 * Builds variant `name` of the twin and imports it: { modules: file -> namespace, layout }.
 * consts: layout overrides; bugs: [{ file, from, to }] text replacements, each matching exactly
 * once (`all: true`: at least once, every occurrence).
 */
export async function buildVariant(name, consts, bugs = []) {
  const dir = path.join(OUT, name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const opts = { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext } };
  const sources = new Map([
    ...TWIN_FILES.map((file) => [file, fs.readFileSync(path.join(TWIN, file), 'utf8')]),
    ...RUNTIME_FILES.map((file) => [path.basename(file), fs.readFileSync(path.join(RUNTIME, file), 'utf8')]),
  ]);
  for (const bug of bugs) {
    const src = sources.get(bug.file);
    if (src === undefined) throw new Error(`model transform: no twin file ${bug.file}`);
    const n = src.split(bug.from).length - 1;
    if (bug.all ? n < 1 : n !== 1) throw new Error(`model transform: bug '${name}' matches ${n} times in ${bug.file}: ${bug.from}`);
    sources.set(bug.file, src.replaceAll(bug.from, bug.to));
  }
  const fns = new Set();
  for (const [file, src] of sources) {
    const sf = ts.createSourceFile(file, src, ts.ScriptTarget.ES2022, true);
    for (const st of sf.statements) if (ts.isFunctionDeclaration(st) && st.name) fns.add(st.name.text);
  }
  for (const [file, src] of sources) {
    const out = ts.transpileModule(src, { ...opts, fileName: file, transformers: { before: [transformer(fns, file)] } });
    fs.writeFileSync(path.join(dir, file.replace(/\.ts$/, '.js')), relink(out.outputText));
  }
  const layoutSrc = shrinkLayout(fs.readFileSync(LAYOUT, 'utf8'), consts);
  fs.writeFileSync(path.join(dir, 'layout.js'), ts.transpileModule(layoutSrc, opts).outputText);
  fs.writeFileSync(path.join(dir, 'core.js'), ts.transpileModule(fs.readFileSync(CORE, 'utf8'), opts).outputText);
  const modules = {};
  for (const file of [...TWIN_FILES, ...RUNTIME_FILES.map((f) => path.basename(f))]) {
    const base = file.replace(/\.ts$/, '');
    modules[base] = await import(pathToFileURL(path.join(dir, `${base}.js`)).href);
  }
  const layout = await import(pathToFileURL(path.join(dir, 'layout.js')).href);
  return { modules, layout };
}
