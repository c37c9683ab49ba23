#!/usr/bin/env node
// npm run format: Prettier over the whole tree (.prettierignore says what is left out).
//
//   npm run format                     rewrites every file that is not formatted
//   npm run format -- --check          writes nothing; lists the files and exits 1 when one is not formatted
//   npm run format -- --list-different writes nothing; prints the names alone and exits 1 likewise
//   npm run format -- src/app.ts       the same, on the given files or folders instead of the whole tree
//
// Why a wrapper: npm appends `-- ARGS` to the script, so a plain `prettier . --write` script would
// run `prettier . --write --check`, and Prettier 3 then WRITES the files and exits 0 while printing
// "Checking formatting...": a check that passes by changing the files. Here --write is passed only
// when no check was asked for. Options that take a value go as --option=value (a bare word is
// taken as a file or folder).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';

const args = process.argv.slice(2);
const checkFlags = new Set(['--check', '-c', '--list-different', '-l']);
const writeFlags = new Set(['--write', '-w']);
const checking = args.some((arg) => checkFlags.has(arg));
if (checking && args.some((arg) => writeFlags.has(arg))) {
  console.error('format: --write cannot go with --check or --list-different');
  process.exit(2);
}

const patterns = args.filter((arg) => !arg.startsWith('-'));
const prettierArgs = [...(patterns.length > 0 ? [] : ['.']), ...args];
if (!checking && !args.some((arg) => writeFlags.has(arg))) prettierArgs.push('--write');

const require = createRequire(import.meta.url);
const prettierPackage = require.resolve('prettier/package.json');
const prettierBin = path.join(path.dirname(prettierPackage), require(prettierPackage).bin);

const result = spawnSync(process.execPath, [prettierBin, ...prettierArgs], { stdio: 'inherit' });
if (result.error) throw result.error;
process.exit(result.status ?? 1);
