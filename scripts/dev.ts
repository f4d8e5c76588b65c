/**
 * `npm run dev`: the API server with reload on change (port 8080) and Vite's dev server with
 * hot reload (port 5173, proxying /api to the server). Open http://localhost:5173.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const bin = (name: string) => path.resolve('node_modules/.bin', name);
const env = { ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'development' };

const children: ChildProcess[] = [
  spawn(bin('tsx'), ['watch', '--clear-screen=false', 'src/server/main.ts'], { stdio: 'inherit', env: { ...env, SANAD_SKIP_WEB_BUILD: '1' } }),
  spawn(bin('vite'), ['--config', 'vite.config.ts'], { stdio: 'inherit', env }),
];

function stopAll(signal: NodeJS.Signals) {
  for (const child of children) child.kill(signal);
}
process.on('SIGINT', () => stopAll('SIGINT'));
process.on('SIGTERM', () => stopAll('SIGTERM'));
for (const child of children) {
  child.on('exit', (code) => {
    stopAll('SIGTERM');
    process.exitCode = code ?? 0;
  });
}
console.log('\nSanad dev: open http://localhost:5173 (API on :8080)\n');
