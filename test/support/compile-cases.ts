import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const ROOT = join(__dirname, '..', '..');

/**
 * Compiles each case as its own file beside the service's sources, with the project's tsconfig, and
 * answers each case's compiler errors: how a test proves that a type refuses what it must refuse.
 * `fixture` writes a case's file from its body and the directory it is written in (for relative imports).
 */
export function compileCases<Name extends string>(
  cases: Record<Name, string>,
  fixture: (directory: string, body: string) => string,
): Record<Name, string[]> {
  const directory = mkdtempSync(join(ROOT, 'test', 'unit', '.compile-cases-'));
  try {
    const files = Object.fromEntries(Object.keys(cases).map((name) => [name, join(directory, `${name}.ts`)])) as Record<Name, string>;
    for (const name of Object.keys(cases) as Name[]) writeFileSync(files[name], fixture(directory, cases[name]));
    const config = ts.getParsedCommandLineOfConfigFile(
      join(ROOT, 'tsconfig.json'),
      {},
      { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
    )!;
    // Declarations merged from every module (event payloads) are part of the service: every source file is in the program.
    const program = ts.createProgram([...config.fileNames.filter((file) => file.includes('/src/')), ...Object.values<string>(files)], {
      ...config.options,
      noEmit: true,
    });
    return Object.fromEntries(
      (Object.keys(cases) as Name[]).map((name) => [
        name,
        ts
          .getPreEmitDiagnostics(program, program.getSourceFile(files[name]))
          .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')),
      ]),
    ) as Record<Name, string[]>;
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
