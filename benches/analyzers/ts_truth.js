#!/usr/bin/env node
// Ground truth from the TypeScript language service for one project directory: every
// declaration in the project's .ts/.tsx/.js/.mjs/.cjs files (classes, interfaces, enums,
// type aliases, functions, top-level variables, methods, properties, accessors,
// constructor parameter properties, enum members, and the CommonJS forms
// `exports.x = ...`, `X.prototype.m = ...`, `obj.m = function ...`,
// `module.exports = { ... }`), each with the lines where `findReferences` finds it used.
// A `require` binding is an import, not a declaration (as an ES `import` is not).
//
// Output (stdout): JSON {definitions: [{path, line, column, name, kind, refs: ["path:line",
// ...]}], outside_names: [member names used from outside the project]},
// 1-based lines and byte columns. `kind` is "member" (methods, properties, accessors,
// parameter properties), "variant" (enum members) or "top" (everything else).
//
// Only references in the reference group whose definition is the declaration itself (or
// another declaration of the same symbol: an overload) and in the groups of its
// import/export aliases count: a call through an interface is a
// reference of the interface member, as rust-analyzer reports a call through a trait as
// one of the trait method.
//
// Usage: node ts_truth.js PROJECT_DIR   (needs `typescript` resolvable: NODE_PATH)
'use strict';
const ts = require('typescript');
const fs = require('fs');
const path = require('path');

const root = path.resolve(process.argv[2]);
const SOURCE = /\.(ts|tsx|js|jsx|mjs|cjs|mts|cts)$/;
const files = [];
(function walk(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full);
    else if (entry.isFile() && SOURCE.test(entry.name)) files.push(full);
  }
})(root);
files.sort();

const options = {
  allowJs: true,
  checkJs: false,
  noEmit: true,
  target: ts.ScriptTarget.ES2020,
  module: ts.ModuleKind.CommonJS,
  moduleResolution: ts.ModuleResolutionKind.Node10,
  jsx: ts.JsxEmit.Preserve,
  strict: false,
  skipLibCheck: true,
  lib: ['lib.es2020.d.ts', 'lib.dom.d.ts'],
};
const texts = new Map(files.map((f) => [f, fs.readFileSync(f, 'utf8')]));
const host = {
  getScriptFileNames: () => files,
  getScriptVersion: () => '1',
  getScriptSnapshot: (f) => {
    if (texts.has(f)) return ts.ScriptSnapshot.fromString(texts.get(f));
    if (!fs.existsSync(f)) return undefined;
    return ts.ScriptSnapshot.fromString(fs.readFileSync(f, 'utf8'));
  },
  getCurrentDirectory: () => root,
  getCompilationSettings: () => options,
  getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
  fileExists: ts.sys.fileExists,
  readFile: ts.sys.readFile,
  readDirectory: ts.sys.readDirectory,
  directoryExists: ts.sys.directoryExists,
  getDirectories: ts.sys.getDirectories,
};
const service = ts.createLanguageService(host, ts.createDocumentRegistry());
const program = service.getProgram();

function lineCol(sf, pos) {
  const lc = sf.getLineAndCharacterOfPosition(pos);
  const lineText = sf.text.slice(sf.getPositionOfLineAndCharacter(lc.line, 0), pos);
  return { line: lc.line + 1, column: Buffer.byteLength(lineText, 'utf8') + 1 };
}

function isRequire(init) {
  while (init && ts.isPropertyAccessExpression(init)) init = init.expression;
  return !!init && ts.isCallExpression(init) && ts.isIdentifier(init.expression) && init.expression.text === 'require';
}

// The language service also finds names in JSDoc (`{@link map}`, `@return {Observable}`);
// those are documentation, not uses in code, and mcursor does not read comments: a
// position is left out when its line is a comment line (`*`, `/*`) or a `//` precedes it.
function inComment(text, pos) {
  const lineStart = text.lastIndexOf('\n', pos - 1) + 1;
  const before = text.slice(lineStart, pos);
  const trimmed = before.trimStart();
  return trimmed.startsWith('*') || trimmed.startsWith('/*') || before.includes('//');
}

const declarations = [];
const checker = program.getTypeChecker();
function add(sf, nameNode, kind) {
  if (!nameNode || !(ts.isIdentifier(nameNode) || ts.isPrivateIdentifier(nameNode) || ts.isStringLiteral(nameNode))) return;
  // Every declaration of the same symbol (the signatures of an overload set): the
  // language service files the references under one of them.
  const symbol = checker.getSymbolAtLocation(nameNode);
  const same = new Set(
    ((symbol && symbol.declarations) || [])
      .map((decl) => decl.name)
      .filter((n) => n)
      .map((n) => `${n.getSourceFile().fileName}:${n.getStart()}`)
  );
  declarations.push({ sf, pos: nameNode.getStart(sf), name: nameNode.text, kind, same });
}

function visit(sf, node, topLevel) {
  switch (node.kind) {
    case ts.SyntaxKind.ClassDeclaration:
    case ts.SyntaxKind.InterfaceDeclaration:
    case ts.SyntaxKind.EnumDeclaration:
    case ts.SyntaxKind.TypeAliasDeclaration:
    case ts.SyntaxKind.ModuleDeclaration:
      add(sf, node.name, 'top');
      break;
    case ts.SyntaxKind.FunctionDeclaration:
      if (topLevel) add(sf, node.name, 'top');
      break;
    case ts.SyntaxKind.VariableStatement:
      // `const x = require('./x')` (and `require('./x').y`) binds an import, as an ES
      // `import` does: not a declaration of its own.
      if (topLevel) for (const d of node.declarationList.declarations) if (!isRequire(d.initializer)) add(sf, d.name, 'top');
      break;
    case ts.SyntaxKind.MethodDeclaration:
    case ts.SyntaxKind.PropertyDeclaration:
    case ts.SyntaxKind.GetAccessor:
    case ts.SyntaxKind.SetAccessor:
    case ts.SyntaxKind.MethodSignature:
    case ts.SyntaxKind.PropertySignature:
      // Object-literal methods count only where they define a module's exports.
      if (ts.isClassLike(node.parent) || ts.isInterfaceDeclaration(node.parent) || ts.isTypeLiteralNode(node.parent)) add(sf, node.name, 'member');
      break;
    case ts.SyntaxKind.Constructor:
      for (const p of node.parameters) {
        if (ts.getModifiers(p)?.some((m) => [ts.SyntaxKind.PublicKeyword, ts.SyntaxKind.PrivateKeyword, ts.SyntaxKind.ProtectedKeyword, ts.SyntaxKind.ReadonlyKeyword].includes(m.kind))) add(sf, p.name, 'member');
      }
      break;
    case ts.SyntaxKind.EnumMember:
      add(sf, node.name, 'variant');
      break;
    case ts.SyntaxKind.ExpressionStatement: {
      // CommonJS and prototype forms, at the top level of a file.
      const e = node.expression;
      if (topLevel && ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
        let left = e.left;
        let right = e.right;
        // `var app = exports = module.exports = {}` chains: take the innermost target.
        while (ts.isBinaryExpression(right) && right.operatorToken.kind === ts.SyntaxKind.EqualsToken) right = right.right;
        if (ts.isPropertyAccessExpression(left)) {
          const obj = left.expression.getText(sf);
          if (obj === 'module' && left.name.text === 'exports') {
            if (ts.isObjectLiteralExpression(right)) for (const p of right.properties) add(sf, p.name, 'top');
          } else {
            add(sf, left.name, obj === 'exports' || obj === 'module.exports' ? 'top' : 'member');
          }
        }
      }
      break;
    }
  }
  const childTop = topLevel && (node.kind === ts.SyntaxKind.SourceFile || ts.isModuleBlock(node) || node.kind === ts.SyntaxKind.ModuleDeclaration);
  ts.forEachChild(node, (child) => visit(sf, child, childTop || (topLevel && node.kind === ts.SyntaxKind.SourceFile)));
}

for (const f of files) {
  const sf = program.getSourceFile(f);
  if (sf) visit(sf, sf, true);
}

const out = [];
for (const d of declarations) {
  const rel = path.relative(root, d.sf.fileName).split(path.sep).join('/');
  const at = lineCol(d.sf, d.pos);
  const refs = new Set();
  let groups = [];
  try {
    groups = service.findReferences(d.sf.fileName, d.pos) || [];
  } catch (e) {
    groups = [];
  }
  for (const group of groups) {
    const def = group.definition;
    // The declaration's own group, and the groups of the import and export aliases of it
    // (a use in an importing file is listed under that file's import).
    const own =
      (def.fileName === d.sf.fileName && def.textSpan.start === d.pos) || d.same.has(`${def.fileName}:${def.textSpan.start}`);
    if (!own && def.kind !== ts.ScriptElementKind.alias) continue;
    for (const r of group.references) {
      if (r.isDefinition) continue;
      if (!texts.has(r.fileName)) continue;
      if (inComment(texts.get(r.fileName), r.textSpan.start)) continue;
      const sf = program.getSourceFile(r.fileName);
      const lc = lineCol(sf, r.textSpan.start);
      refs.add(`${path.relative(root, r.fileName).split(path.sep).join('/')}:${lc.line}`);
    }
  }
  refs.delete(`${rel}:${at.line}`);
  out.push({ path: rel, line: at.line, column: at.column, name: d.name, kind: d.kind, refs: [...refs].sort() });
}
// Member names the project uses from outside (`next` of an iterator, `push` of an array):
// a member sharing one of them is as ambiguous to grep as one sharing a local name.
const outside = new Set();
function collectOutside(sf, node) {
  if (ts.isPropertyAccessExpression(node)) {
    const symbol = checker.getSymbolAtLocation(node.name);
    const decls = (symbol && symbol.declarations) || [];
    if (decls.length > 0 && decls.every((d) => !texts.has(d.getSourceFile().fileName))) outside.add(node.name.text);
  }
  ts.forEachChild(node, (child) => collectOutside(sf, child));
}
for (const f of files) {
  const sf = program.getSourceFile(f);
  if (sf) collectOutside(sf, sf);
}
process.stdout.write(JSON.stringify({ definitions: out, outside_names: [...outside].sort() }));
