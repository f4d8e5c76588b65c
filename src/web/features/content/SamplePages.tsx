/**
 * Reference pages for designers and developers (spec §2: layout-sample, pages/sample,
 * pages/sample2, check/all-images): every building block of the design system in the current
 * language and direction, so a change can be checked at a glance in all three layouts.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConfirm } from '../../ui/confirm';
import { Alert, Checkbox, Page, SelectField, Spinner, TextField } from '../../ui/ui';

function Typography() {
  const { t } = useTranslation();
  return (
    <section className="card">
      <h2>{t('samples.typography')}</h2>
      <h3>{t('samples.headingThree')}</h3>
      <p>{t('samples.paragraph')}</p>
      <ul>
        <li>{t('samples.listItem', { n: 1 })}</li>
        <li>{t('samples.listItem', { n: 2 })}</li>
      </ul>
      <p className="muted">{t('samples.muted')}</p>
    </section>
  );
}

function Buttons() {
  const { t } = useTranslation();
  const confirm = useConfirm();
  const [answer, setAnswer] = useState<string>('');
  return (
    <section className="card">
      <h2>{t('samples.buttons')}</h2>
      <div className="button-row">
        <button type="button" className="button">
          {t('samples.primary')}
        </button>
        <button type="button" className="button button--secondary">
          {t('samples.secondary')}
        </button>
        <button
          type="button"
          className="button button--danger"
          onClick={() =>
            void confirm({ title: t('confirmPrompts.discardTitle'), message: t('confirmPrompts.discardMessage'), danger: true }).then((yes) =>
              setAnswer(yes ? t('common.confirm') : t('common.cancel')),
            )
          }
        >
          {t('samples.openDialog')}
        </button>
      </div>
      {answer ? <p role="status">{t('samples.dialogAnswer', { answer })}</p> : null}
    </section>
  );
}

function Feedback() {
  const { t } = useTranslation();
  return (
    <section className="card">
      <h2>{t('samples.feedback')}</h2>
      <Alert kind="info">{t('samples.info')}</Alert>
      <Alert kind="success">{t('samples.success')}</Alert>
      <Alert kind="warning">{t('samples.warning')}</Alert>
      <Alert kind="error">{t('samples.error')}</Alert>
      <Spinner />
    </section>
  );
}

function FormControls() {
  const { t } = useTranslation();
  const [checked, setChecked] = useState(false);
  return (
    <section className="card">
      <h2>{t('samples.forms')}</h2>
      <form className="form" onSubmit={(e) => e.preventDefault()}>
        <TextField label={t('samples.textField')} hint={t('samples.textHint')} />
        <TextField label={t('samples.invalidField')} defaultValue="x" errors={[{ code: 'password_too_short', message: '' }]} />
        <SelectField label={t('samples.select')} options={[1, 2, 3].map((n) => ({ value: String(n), label: t('samples.option', { n }) }))} />
        <Checkbox label={t('samples.checkbox')} checked={checked} onChange={(e) => setChecked(e.target.checked)} />
      </form>
    </section>
  );
}

function Colours() {
  const { t } = useTranslation();
  const swatches = ['--primary', '--primary-soft', '--bg', '--surface', '--danger', '--success', '--warning', '--focus'];
  return (
    <section className="card">
      <h2>{t('samples.colours')}</h2>
      <div className="sample-swatches">
        {swatches.map((name) => (
          <div key={name} className="swatch" style={{ background: `var(${name})` }} title={name} role="img" aria-label={name} />
        ))}
      </div>
    </section>
  );
}

export function LayoutSamplePage() {
  const { t } = useTranslation();
  return (
    <Page title={t('samples.layoutTitle')}>
      <p>{t('samples.layoutIntro')}</p>
      <Typography />
      <Buttons />
    </Page>
  );
}

export function SamplePage() {
  const { t } = useTranslation();
  return (
    <Page title={t('samples.sampleTitle')}>
      <Typography />
      <Colours />
      <Buttons />
    </Page>
  );
}

export function SamplePage2() {
  const { t } = useTranslation();
  return (
    <Page title={t('samples.sample2Title')}>
      <FormControls />
      <Feedback />
    </Page>
  );
}

/** Every image the web app ships, with its text alternative, to check they all load. */
export const IMAGES = [{ src: '/favicon.svg', key: 'favicon' }] as const;

export function AllImagesPage() {
  const { t } = useTranslation();
  return (
    <Page title={t('samples.imagesTitle')}>
      <div className="image-grid">
        {IMAGES.map((image) => (
          <figure key={image.src} className="card card--flat">
            <img src={image.src} alt={t(`samples.images.${image.key}`)} />
            <figcaption dir="ltr">{image.src}</figcaption>
          </figure>
        ))}
      </div>
    </Page>
  );
}
