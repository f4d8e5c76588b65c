/**
 * The maintenance screen of spec §1. It speaks every language at once (Arabic and German as
 * the spec asks, and English), because during maintenance nothing else can be loaded.
 */
const MESSAGES = [
  {
    lang: 'ar',
    dir: 'rtl',
    title: 'الموقع مغلق مؤقتًا للصيانة',
    body: 'نقوم بأعمال صيانة لبضع ساعات. بياناتك في أمان. يرجى العودة لاحقًا.',
  },
  {
    lang: 'de',
    dir: 'ltr',
    title: 'Die Seite ist wegen Wartungsarbeiten geschlossen',
    body: 'Wir führen für einige Stunden Wartungsarbeiten durch. Ihre Daten sind sicher. Bitte schauen Sie später wieder vorbei.',
  },
  {
    lang: 'en',
    dir: 'ltr',
    title: 'The site is closed for maintenance',
    body: 'We are carrying out maintenance for a few hours. Your data is safe. Please come back later.',
  },
] as const;

export function MaintenanceScreen() {
  return (
    <div className="app-shell layout-blue">
      <header className="app-header">
        <div className="app-header__bar">
          <span className="brand">Sanad · سند</span>
        </div>
      </header>
      <main id="main" className="app-main app-main--reading maintenance">
        {MESSAGES.map((m) => (
          <section key={m.lang} lang={m.lang} dir={m.dir} className="card">
            <h1>{m.title}</h1>
            <p>{m.body}</p>
          </section>
        ))}
      </main>
    </div>
  );
}
