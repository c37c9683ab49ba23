#!/usr/bin/env node
// npm run depcheck: the import graph of src/ may not go in circles, between files nor between top-level folders,
// and a folder imports only the folders FOLDERS in .dependency-cruiser.cjs allows it (its rules); docs/architecture.md
// shows FOLDERS as a table, which `npm run depcheck -- --write` writes and `npm run depcheck` checks.
//
// 1. Between files: the rules of .dependency-cruiser.cjs (no-circular, type-only imports included), each violation
//    with its whole cycle, as `npx depcruise src` would report them.
// 2. Between the top-level folders of src/ (src/auth, src/users, ...): every module is collapsed to its folder, and
//    every cycle of folders is reported with one example import for each step, e.g.
//      src/auth <-> src/users
//        src/auth/auth.service.ts -> src/users/users.service.ts
//        src/users/users.controller.ts -> src/auth/auth.guard.ts
//    A file directly in src/ (main.ts, app.module.ts: the composition root) is a unit of its own.
//
// Why a script for 2: dependency-cruiser's own `scope: 'folder'` rules with `to.circular` group modules by their
// directory and point each import at the directory of the imported file, so an import of src/users/sub/x.ts from
// src/auth and one of src/auth from src/users/y.ts make no cycle for it; and its `collapse` option only changes how
// the graph is drawn, after the rules ran. Here modules are collapsed to their top-level folder before looking for
// cycles, so that case counts.
//
// Exits 1 when anything is found, 2 when the cruise itself fails.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import process from 'node:process';
import { cruise } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

const CONFIG = './.dependency-cruiser.cjs';
const ROOT = 'src';
// Enough to show any tangle; past it the output would stop being read.
const MAX_CYCLES = 100;

process.chdir(path.join(import.meta.dirname, '..'));

const ARCHITECTURE = 'docs/architecture.md';
const TABLE_START = '<!-- folders: written by `npm run depcheck -- --write` from FOLDERS in .dependency-cruiser.cjs -->';
const TABLE_END = '<!-- folders: end -->';

/** FOLDERS as the table docs/architecture.md shows, between its markers. */
function foldersTable() {
  const { FOLDERS } = createRequire(import.meta.url)(path.resolve(CONFIG));
  const rows = Object.entries(FOLDERS).map(
    ([folder, { uses, why }]) => `| \`${folder}/\` | ${uses.length ? uses.map((used) => `\`${used}\``).join(', ') : '(none)'} | ${why} |`,
  );
  return [TABLE_START, '| folder | may import | why |', '|---|---|---|', ...rows, TABLE_END].join('\n');
}

/** Writes the table into the page (`--write`), or answers whether the page shows it as it is. */
function architecturePageMatches(write) {
  const page = readFileSync(ARCHITECTURE, 'utf8');
  const start = page.indexOf(TABLE_START);
  const end = page.indexOf(TABLE_END);
  if (start === -1 || end === -1) {
    console.log(`${ARCHITECTURE} has no table of the folders' allowed imports (its markers are missing)`);
    return false;
  }
  const updated = page.slice(0, start) + foldersTable() + page.slice(end + TABLE_END.length);
  if (write) writeFileSync(ARCHITECTURE, updated);
  return write || updated === page;
}

/** The unit a module counts in: its top-level folder under src/, or itself for a file directly in src/. */
function unitOf(source) {
  const [top, first, ...rest] = source.split('/');
  if (top !== ROOT || first === undefined) return null;
  return rest.length > 0 ? `${top}/${first}` : source;
}

/** Whether an import disappears from the compiled JavaScript (it still counts: see .dependency-cruiser.cjs). */
function isTypeOnly(dependencyTypes = []) {
  return dependencyTypes.some((type) => type === 'type-only' || type === 'pre-compilation-only');
}

/** Strongly connected components (Tarjan), as a Map from node to component id. */
function components(nodes, edges) {
  const index = new Map();
  const low = new Map();
  const component = new Map();
  const stack = [];
  let counter = 0;
  const visit = (node) => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    for (const next of edges.get(node)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node), low.get(next)));
      } else if (!component.has(next)) {
        low.set(node, Math.min(low.get(node), index.get(next)));
      }
    }
    if (low.get(node) === index.get(node)) {
      let member;
      do {
        member = stack.pop();
        component.set(member, node);
      } while (member !== node);
    }
  };
  for (const node of nodes) if (!index.has(node)) visit(node);
  return component;
}

/** Every elementary cycle, each once, starting at its smallest node (nodes sorted). */
function elementaryCycles(edges) {
  const nodes = [...edges.keys()].sort();
  const component = components(nodes, edges);
  const cycles = [];
  for (const start of nodes) {
    const path = [start];
    const onPath = new Set(path);
    const walk = (node) => {
      for (const next of [...(edges.get(node)?.keys() ?? [])].sort()) {
        if (cycles.length >= MAX_CYCLES) return;
        if (next === start) cycles.push([...path]);
        else if (next > start && !onPath.has(next) && component.get(next) === component.get(start)) {
          path.push(next);
          onPath.add(next);
          walk(next);
          path.pop();
          onPath.delete(next);
        }
      }
    };
    walk(start);
  }
  return cycles.sort((a, b) => a.length - b.length || a.join().localeCompare(b.join()));
}

let result;
try {
  const options = await extractDepcruiseOptions(CONFIG);
  const tsConfig = options.tsConfig?.fileName ? extractTSConfig(options.tsConfig.fileName) : undefined;
  const { output } = await cruise([ROOT], { ...options, outputType: 'json' }, {}, { tsConfig });
  result = typeof output === 'string' ? JSON.parse(output) : output;
} catch (error) {
  console.error('depcheck: the cruise failed:', error);
  process.exit(2);
}

// Folder -> folder -> example imports; a value import is the better example, a type-only one is marked.
const edges = new Map();
for (const mod of result.modules) {
  const from = unitOf(mod.source);
  if (from === null) continue;
  if (!edges.has(from)) edges.set(from, new Map());
  for (const dependency of mod.dependencies) {
    const to = unitOf(dependency.resolved);
    if (to === null || to === from) continue;
    const typeOnly = isTypeOnly(dependency.dependencyTypes);
    const known = edges.get(from).get(to);
    const count = (known?.count ?? 0) + 1;
    if (!known || (known.typeOnly && !typeOnly)) edges.get(from).set(to, { from: mod.source, to: dependency.resolved, typeOnly, count });
    else known.count = count;
  }
}

const cycles = elementaryCycles(edges);
const typeMark = (dependencyTypes) => (isTypeOnly(dependencyTypes) ? ' (type-only import)' : '');
const describe = ({ from, to, typeOnly, count }) =>
  `    ${from} -> ${to}${typeMark(typeOnly ? ['type-only'] : [])}${count > 1 ? ` (1 of ${count} imports this way)` : ''}`;

const fileErrors = result.summary.error;
console.log(`Between files (rules of ${CONFIG.slice(2)}):`);
if (result.summary.violations.length === 0) console.log('  none');
for (const { rule, from, to, cycle, dependencyTypes } of result.summary.violations) {
  const path = cycle
    ? [from, ...cycle.map(({ name, dependencyTypes: types }) => `${name}${typeMark(types)}`)]
    : [from, ...(to && to !== from ? [`${to}${typeMark(dependencyTypes)}`] : [])];
  console.log(`  ${rule.severity} ${rule.name}: ${path.join(' -> ')}`);
}
console.log('');
console.log(`Between the top-level folders of ${ROOT}/ (a folder may use another, not also be used by it):`);
if (cycles.length === 0) console.log('  none');
for (const cycle of cycles) {
  console.log(cycle.length === 2 ? `  ${cycle[0]} <-> ${cycle[1]}` : `  ${[...cycle, cycle[0]].join(' -> ')}`);
  cycle.forEach((unit, i) => console.log(describe(edges.get(unit).get(cycle[(i + 1) % cycle.length]))));
}
if (cycles.length >= MAX_CYCLES) console.log(`  ... stopped after ${MAX_CYCLES} cycles`);
console.log('');
console.log(
  `depcheck: ${result.summary.totalCruised} modules, ${result.summary.totalDependenciesCruised} imports cruised; ` +
    `${fileErrors} file-level error(s), ${result.summary.warn} warning(s), ` +
    `${cycles.length}${cycles.length >= MAX_CYCLES ? '+' : ''} folder cycle(s)`,
);
const pageMatches = architecturePageMatches(process.argv.includes('--write'));
console.log(
  pageMatches
    ? `${ARCHITECTURE} shows the folders' allowed imports as .dependency-cruiser.cjs declares them`
    : `${ARCHITECTURE} does not show the folders' allowed imports as .dependency-cruiser.cjs declares them: run \`npm run depcheck -- --write\``,
);
process.exit(fileErrors > 0 || cycles.length > 0 || !pageMatches ? 1 : 0);
