// dependency-cruiser configuration, used by `npm run depcheck` (scripts/check-dependencies.mjs), which adds the
// check between the top-level folders of src/; `npx depcruise src` alone runs the file-level rules below.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'A file reaches itself through its imports. Under CommonJS one side of such a cycle sees the other half-initialised ' +
        '(undefined classes in Nest providers and decorators): move the shared piece to a file both can import.',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    // Record the imports of packages, do not cruise into them.
    doNotFollow: { path: 'node_modules' },
    // Count `import type` and imports used only as types: a cycle of types is still a cycle of design,
    // and one `import type` turned into a value import makes it a runtime cycle.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Resolve packages' "exports" as Node does (@electric-sql/pglite/contrib/* is only reachable through them).
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
