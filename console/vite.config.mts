import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

/**
 * Writes a Brotli and a gzip copy next to each text file of the build: the service sends them to
 * browsers that accept them (@fastify/static's preCompressed), so the JavaScript travels compressed
 * without compressing on every request. Written once the bundle is final: Vite fills in its chunks'
 * lazy-import helper late in generateBundle, after any plugin's.
 */
function precompress(): Plugin {
  return {
    name: 'team-inbox-precompress',
    apply: 'build',
    writeBundle(options, bundle) {
      for (const file of Object.values(bundle)) {
        if (!/\.(js|css|html|svg|json)$/.test(file.fileName)) continue;
        const bytes = Buffer.from(file.type === 'chunk' ? file.code : file.source);
        const path = join(options.dir!, file.fileName);
        writeFileSync(`${path}.br`, brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
        writeFileSync(`${path}.gz`, gzipSync(bytes, { level: 9 }));
      }
    },
  };
}

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  // Preact's JSX runtime, without a plugin: the JSX transform of Vite itself.
  plugins: [precompress()],
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  resolve: { alias: { react: 'preact/compat', 'react-dom': 'preact/compat' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // No inline scripts or styles: the Content-Security-Policy allows none.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: true,
  },
  server: { proxy: { '/api': 'http://127.0.0.1:3000' } },
});
