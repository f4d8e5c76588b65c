import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

/**
 * Writes .br and .gz beside every text asset once the build is done, so the server sends
 * compressed files (patients are mostly on phones, often on slow connections) without
 * compressing on every request.
 */
function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'sanad-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    closeBundle() {
      const walk = (dir: string) => {
        for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
          const file = path.join(dir, entry.name);
          if (entry.isDirectory()) walk(file);
          else if (/\.(js|css|html|svg|json)$/.test(entry.name) && fs.statSync(file).size > 512) {
            const content = fs.readFileSync(file);
            fs.writeFileSync(`${file}.gz`, zlib.gzipSync(content, { level: 9 }));
            fs.writeFileSync(`${file}.br`, zlib.brotliCompressSync(content, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }));
          }
        }
      };
      walk(outDir);
    },
  };
}

// The web app lives in src/web and is built into dist/web, which the server serves.
// `npm run dev` runs this dev server with the API proxied to the Sanad server on :8080.
export default defineConfig({
  root: 'src/web',
  publicDir: 'public',
  plugins: [react(), precompress()],
  build: {
    outDir: '../../dist/web',
    emptyOutDir: true,
    sourcemap: true,
    target: 'es2022',
    reportCompressedSize: false,
  },
  server: {
    port: Number(process.env.WEB_PORT ?? 5173),
    proxy: {
      '/api': `http://localhost:${process.env.PORT ?? 8080}`,
      '/healthz': `http://localhost:${process.env.PORT ?? 8080}`,
    },
  },
});
