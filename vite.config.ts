import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The web app lives in src/web and is built into dist/web, which the server serves.
// `npm run dev` runs this dev server with the API proxied to the Sanad server on :8080.
export default defineConfig({
  root: 'src/web',
  publicDir: 'public',
  plugins: [react()],
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
