/** Boots the web app: server status (maintenance, locales), the language, then React. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { initI18n, setSupportedLocales } from './i18n/i18n';
import './styles/app.css';

interface Status {
  maintenance: boolean;
  locales: string[];
}

async function fetchStatus(): Promise<Status> {
  try {
    const response = await fetch('/api/status', { headers: { accept: 'application/json' } });
    const body = (await response.json()) as Partial<Status>;
    return { maintenance: response.status === 503 && body.maintenance === true, locales: body.locales ?? [] };
  } catch {
    return { maintenance: false, locales: [] };
  }
}

async function boot(): Promise<void> {
  // Start fetching the first screens' section while the status and the language load.
  void import('./sections/main').catch(() => undefined);
  const status = await fetchStatus();
  setSupportedLocales(status.locales);
  await initI18n();
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <App maintenance={status.maintenance} />
    </StrictMode>,
  );
}

void boot();
