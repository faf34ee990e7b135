// The declarations of a CommonJS entry whose module.exports is a class (dist/piscina.cjs, as
// piscina's own package): rollup.config.mjs calls exportEquals on the bundled ESM declarations
// (dist/piscina.d.ts) and writes the result as dist/piscina.d.cts.
//
// Why not a copy of the .d.ts: its `export { Piscina as default }` tells TypeScript that a
// require() gives a namespace with a `default` member, where it gives the class itself; code
// typed by it (`require('stealwork/piscina').default`, or a default import compiled without
// esModuleInterop) type-checks and fails at run time. @arethetypeswrong/cli reports it as
// "Incorrect default export" under node16 from CommonJS (scripts/package-lint.mjs runs it).
//
// What it writes instead: the same declarations, then `export = Piscina` and a namespace merged
// with the class that carries the exported types, so `import Piscina from`, `import Piscina =
// require()`, `import { move, type Options } from` all type as they run. Every value the ESM
// declarations export must be a static of the class under the same name (the only way it
// reaches a require()); one that is not fails the build, naming it.

import ts from 'typescript';

/** The top-level name a statement declares, or null. */
function declaredName(st) {
  if (ts.isVariableStatement(st)) return null; // values only: never aliased as types
  return st.name && ts.isIdentifier(st.name) ? st.name.text : null;
}

/** Does a top-level declaration carry a type (so the namespace can alias it)? */
function isType(st) {
  return ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st) || ts.isClassDeclaration(st) || ts.isEnumDeclaration(st);
}

/**
 * Rewrites bundled ESM declarations (`export { ..., C as default }` and `export type { ... }` at
 * the end, as rollup-plugin-dts writes them) into the declarations of a CommonJS module whose
 * module.exports is class `className`. Throws naming what cannot be expressed. Build time only.
 */
export function exportEquals(text, className, file = 'declarations') {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const decls = new Map();
  const exported = [];
  const cut = [];
  for (const st of sf.statements) {
    if (ts.isExportDeclaration(st) && !st.moduleSpecifier && st.exportClause && ts.isNamedExports(st.exportClause)) {
      cut.push(st);
      for (const el of st.exportClause.elements) {
        exported.push({ local: (el.propertyName ?? el.name).text, name: el.name.text, typeOnly: st.isTypeOnly || el.isTypeOnly });
      }
      continue;
    }
    if (ts.isExportAssignment(st) || ts.isExportDeclaration(st) || ts.getCombinedModifierFlags(st) & ts.ModifierFlags.Export) {
      throw new Error(`${file}: an export exportEquals does not handle: ${st.getText(sf).slice(0, 80)}`);
    }
    const name = declaredName(st);
    if (name !== null && isType(st)) decls.set(name, st);
  }
  const def = exported.find((e) => e.name === 'default');
  if (def?.local !== className) throw new Error(`${file}: the default export is ${def?.local ?? 'absent'}, not ${className}`);
  const cls = decls.get(className);
  if (!cls || !ts.isClassDeclaration(cls)) throw new Error(`${file}: no class ${className}`);
  const statics = new Set(cls.members
    .filter((m) => ts.getCombinedModifierFlags(m) & ts.ModifierFlags.Static && m.name && ts.isIdentifier(m.name))
    .map((m) => m.name.text));
  const missing = exported.filter((e) => !e.typeOnly && e.name !== 'default' && !statics.has(e.name)).map((e) => e.name);
  if (missing.length) {
    throw new Error(`${file}: ${missing.join(', ')} exported but not a static of ${className}, so a require() would lack it`);
  }

  // The namespace's own members shadow the outer names inside it, so each type goes through a
  // top-level alias with a name of its own.
  const aliases = [];
  const members = [];
  for (const e of exported) {
    const st = e.name === 'default' ? null : decls.get(e.local);
    if (!st) continue; // a value only (a const, a function): the class's static carries it
    const params = st.typeParameters ?? [];
    const decl = params.length ? `<${params.map((p) => p.getText(sf)).join(', ')}>` : '';
    const args = params.length ? `<${params.map((p) => p.name.text).join(', ')}>` : '';
    aliases.push(`type CJS_${e.name}${decl} = ${e.local}${args};`);
    members.push(`    export type ${e.name}${decl} = CJS_${e.name}${args};`);
  }
  let body = text;
  for (const st of [...cut].reverse()) body = body.slice(0, st.getStart(sf)) + body.slice(st.getEnd());
  return `${body.trimEnd()}\n\n${aliases.join('\n')}\ndeclare namespace ${className} {\n${members.join('\n')}\n}\n\nexport = ${className};\n`;
}
