import { builtinModules } from 'node:module';
import { defineConfig } from 'vite';

/**
 * The compiled server (`npm run build`, issue 28): the server and the operations CLI bundled
 * by Vite's server build into dist/server, so production runs `node dist/server/main.js`
 * without tsx compiling TypeScript at start. Chunks stay beside main.js: the server finds the
 * web build as ../web from its own folder (src/server/paths.ts). Packages stay imports of node_modules (not
 * bundled): PGlite, argon2 and PostGraphile load files of their own at run time.
 */
export default defineConfig({
  publicDir: false,
  define: { __SANAD_COMPILED__: 'true' },
  logLevel: 'warn',
  build: {
    ssr: true,
    outDir: 'dist/server',
    emptyOutDir: true,
    sourcemap: true,
    target: 'node24',
    minify: false,
    reportCompressedSize: false,
    rollupOptions: {
      input: { main: 'src/server/main.ts', cli: 'src/server/cli/main.ts' },
      output: {
        format: 'es',
        entryFileNames: '[name].js',
        chunkFileNames: '[name]-[hash].js',
        // env-defaults sets GRAPHILE_ENV before Grafast loads: as a chunk of its own, imported
        // first by each entry, it runs before the chunks that import PostGraphile.
        codeSplitting: { groups: [{ name: 'env-defaults', test: /env-defaults/ }] },
      },
      external: [...builtinModules, /^node:/],
    },
  },
  ssr: { target: 'node' },
});
