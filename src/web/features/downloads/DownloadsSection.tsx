/**
 * The document list under the /downloads information page, in the reader's language; for
 * coordinators also the upload form (any language) and a delete button that asks first (spec §8).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiError } from '../../api/client';
import { useSession } from '../../session/session';
import { useConfirm } from '../../ui/confirm';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { Alert, SelectField, Spinner, TextField } from '../../ui/ui';
import { deleteDocument, downloadsQuery, refetchAfterDocumentChange, saveDocument, uploadDocument, type DownloadDocument } from './api';

const LOCALES = ['ar', 'de', 'en'] as const;
/** The codes the upload route answers with that this screen explains itself. */
const OWN_ERRORS = ['file_too_large', 'file_type_refused', 'locale_unknown', 'title_invalid', 'file_name_invalid', 'file_empty', 'document_not_found'];

function DownloadError({ error }: { error: ApiError | null }) {
  const { t } = useTranslation();
  if (!error) return null;
  if (OWN_ERRORS.includes(error.code)) return <Alert kind="error">{t(`downloads.errors.${error.code}`)}</Alert>;
  return <ErrorAlert error={error} />;
}

export function DownloadsSection() {
  const { t, i18n } = useTranslation();
  const { user } = useSession();
  const coordinator = Boolean(user?.is_coordinator_account);
  const locale = i18n.language;
  const { data, error, isPending } = useQuery({ ...downloadsQuery(locale), enabled: Boolean(user) });

  if (!user) return <p className="muted">{t('downloads.signInToDownload')}</p>;
  return (
    <section aria-labelledby="downloads-heading" className="downloads">
      <h2 id="downloads-heading">{t('downloads.heading')}</h2>
      <ErrorAlert error={error} />
      {isPending ? <Spinner /> : data && data.length > 0 ? <DocumentList documents={data} coordinator={coordinator} /> : <p className="muted">{t('downloads.empty')}</p>}
      {coordinator ? <UploadForm /> : null}
    </section>
  );
}

function formatSize(bytes: number, locale: string): string {
  const kb = bytes / 1024;
  const format = new Intl.NumberFormat(locale, { maximumFractionDigits: 1 });
  return kb < 1024 ? `${format.format(Math.max(kb, 0.1))} KB` : `${format.format(kb / 1024)} MB`;
}

/** Unicode isolation (FSI … PDI): "0.1 KB" keeps its order inside Arabic text. */
const isolate = (text: string) => `\u2068${text}\u2069`;

const TYPE_LABELS: Record<string, string> = { 'application/pdf': 'PDF', 'image/png': 'PNG', 'image/jpeg': 'JPEG', 'image/webp': 'WebP' };

function DocumentList({ documents, coordinator }: { documents: DownloadDocument[]; coordinator: boolean }) {
  const { t, i18n } = useTranslation();
  const client = useQueryClient();
  const confirm = useConfirm();
  const save = useMutation({ mutationFn: saveDocument });
  const remove = useMutation({ mutationFn: deleteDocument, onSettled: () => refetchAfterDocumentChange(client) });
  const askAndDelete = async (document: DownloadDocument) => {
    const sure = await confirm({
      title: t('downloads.confirmDeleteTitle'),
      message: t('downloads.confirmDeleteMessage', { title: document.title }),
      confirmLabel: t('downloads.delete'),
      danger: true,
    });
    if (sure) remove.mutate(document.id);
  };
  return (
    <>
      <DownloadError error={save.error ?? remove.error} />
      <ul className="downloads__list">
        {documents.map((document) => (
          <li key={document.id} className="card downloads__item">
            <div className="downloads__text">
              <strong dir="auto">{document.title}</strong>
              <span className="muted">
                {t('downloads.meta', { type: isolate(TYPE_LABELS[document.contentType] ?? document.contentType), size: isolate(formatSize(document.sizeBytes, i18n.language)) })}
              </span>
            </div>
            <div className="button-row">
              <button type="button" className="button" onClick={() => save.mutate(document)} disabled={save.isPending} aria-label={t('downloads.downloadNamed', { title: document.title })}>
                {t('downloads.download')}
              </button>
              {coordinator ? (
                <button
                  type="button"
                  className="button button--danger"
                  onClick={() => void askAndDelete(document)}
                  disabled={remove.isPending}
                  aria-label={t('downloads.deleteNamed', { title: document.title })}
                >
                  {t('downloads.delete')}
                </button>
              ) : null}
            </div>
          </li>
        ))}
      </ul>
    </>
  );
}

function UploadForm() {
  const { t, i18n } = useTranslation();
  const client = useQueryClient();
  const fileInput = useRef<HTMLInputElement>(null);
  const [locale, setLocale] = useState(i18n.language);
  const [title, setTitle] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [done, setDone] = useState(false);
  const upload = useMutation({
    mutationFn: uploadDocument,
    onSuccess: () => {
      setTitle('');
      setFile(null);
      if (fileInput.current) fileInput.current.value = '';
      setDone(true);
    },
    onSettled: () => refetchAfterDocumentChange(client),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setDone(false);
    if (!file || title.trim() === '') return;
    upload.mutate({ locale, title: title.trim(), file });
  };
  return (
    <form className="card downloads__upload" onSubmit={submit} aria-labelledby="downloads-upload-heading">
      <h3 id="downloads-upload-heading">{t('downloads.uploadHeading')}</h3>
      <p className="muted">{t('downloads.uploadHint')}</p>
      <SelectField
        label={t('downloads.language')}
        name="locale"
        value={locale}
        onChange={(e) => setLocale(e.target.value)}
        options={LOCALES.map((l) => ({ value: l, label: t(`downloads.languages.${l}`) }))}
      />
      <TextField label={t('downloads.title')} name="title" value={title} onChange={(e) => setTitle(e.target.value)} required maxLength={200} dir="auto" />
      <div className="field">
        <label htmlFor="downloads-file">{t('downloads.file')}</label>
        <input
          ref={fileInput}
          id="downloads-file"
          name="file"
          className="input"
          type="file"
          required
          accept="application/pdf,image/png,image/jpeg,image/webp,.pdf,.png,.jpg,.jpeg,.webp"
          onChange={(e) => setFile(e.target.files?.[0] ?? null)}
        />
      </div>
      <DownloadError error={upload.error} />
      {done ? <Alert kind="success">{t('downloads.uploaded')}</Alert> : null}
      <div className="button-row">
        <button type="submit" className="button" disabled={upload.isPending}>
          {t('downloads.upload')}
        </button>
      </div>
    </form>
  );
}
