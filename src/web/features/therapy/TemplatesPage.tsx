/**
 * /admin/templates (coordinators): every content template (pages, letters, messages, mails) by
 * type, code, language, treatment code and genders. Editing shows a live preview; saving keeps
 * the previous text as a version, and any version can be restored after a confirmation. The text
 * is edited in the template's own direction (Arabic right-to-left). The database refuses unknown
 * placeholders in letter and message templates with a message naming them.
 */
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { asPlaceholder, LETTER_PLACEHOLDERS, unknownPlaceholders } from '../../../domain/letter-templates';
import { isWordingCode } from '../../../domain/wording-file';
import { asApiError } from '../../api/query';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { useConfirm } from '../../ui/confirm';
import { Alert, Page, SelectField, Spinner, TextArea, TextField } from '../../ui/ui';
import { Markdown } from '../content/markdown';
import { contentTemplatesQuery, refetchAfterTemplate, restoreVersion, saveTemplate, saveWordingText, templateVersionsQuery, type ContentTemplate, type TemplateDraft } from './api';
import { useClock } from '../../ui/useClock';
import { WordingEditor } from './WordingEditor';
import './therapy.css';

const TYPES = ['PAGE', 'LETTER', 'MESSAGE', 'MAIL'];
/** Not a template type: questionnaire wording is edited per instrument (WordingEditor). */
const WORDING = 'WORDING';
const EMPTY: TemplateDraft = { type: 'LETTER', code: '', languageCode: 'ar', title: '', subject: '', content: '', treatmentCode: '', readerGender: '', writerGender: '' };

function draftOf(x: ContentTemplate): TemplateDraft {
  return {
    type: x.type, code: x.code, languageCode: x.languageCode, title: x.title, subject: x.subject ?? '', content: x.content,
    treatmentCode: x.treatmentCode ?? '', readerGender: x.readerGender ?? '', writerGender: x.writerGender ?? '',
  };
}

export function TemplatesPage() {
  const { t } = useTranslation();
  const list = useQuery(contentTemplatesQuery());
  const [type, setType] = useState('LETTER');
  const [open, setOpen] = useState<{ id: string | null } | null>(null);
  const shown = list.data?.filter((x) => x.type === type) ?? [];
  const current = open?.id ? list.data?.find((x) => x.id === open.id) : undefined;
  return (
    <Page title={t('therapy.templatesTitle')}>
      <div className="therapy-templates">
        <div className="therapy-templates__list">
          <SelectField
            label={t('therapy.templateType')}
            value={type}
            onChange={(e) => setType(e.target.value)}
            options={[...TYPES.map((x) => ({ value: x, label: t(`therapy.type.${x}`) })), { value: WORDING, label: t('wording.type') }]}
          />
          {type === WORDING ? null : (
            <>
          <button type="button" className="button button--small" onClick={() => setOpen({ id: null })}>
            {t('therapy.newTemplate')}
          </button>
          {list.error ? <ErrorAlert error={asApiError(list.error)} /> : list.isPending ? <Spinner /> : null}
          <ul className="therapy-entries">
            {shown.map((x) => (
              <li key={x.id}>
                <button type="button" className="therapy-link" aria-current={open?.id === x.id || undefined} onClick={() => setOpen({ id: x.id })}>
                  {x.code} · {x.languageCode.toUpperCase()}
                  {x.treatmentCode ? ` · ${x.treatmentCode}` : ''}
                  {x.readerGender ? ` · ${t('therapy.reader')}: ${t(`therapy.gender.${x.readerGender}`)}` : ''}
                  {x.writerGender ? ` · ${t('therapy.writer')}: ${t(`therapy.gender.${x.writerGender}`)}` : ''}
                </button>
              </li>
            ))}
          </ul>
            </>
          )}
        </div>
        {type === WORDING ? <WordingEditor /> : null}
        {open && type !== WORDING ? (
          <TemplateEditor key={open.id ?? 'new'} template={current} defaultType={type} onSaved={(id) => setOpen({ id })} onOpenWording={() => { setType(WORDING); setOpen(null); }} />
        ) : null}
      </div>
    </Page>
  );
}

/**
 * Questionnaire wording (`instr-…` page texts) is saved through the server's wording check
 * (PUT /api/wording/text), never the ordinary mutation, which the database refuses for it.
 */
const wordingOf = (draft: TemplateDraft) => (draft.type === 'PAGE' && isWordingCode(draft.code) ? { code: draft.code, locale: draft.languageCode } : null);

function TemplateEditor({ template, defaultType, onSaved, onOpenWording }: { template: ContentTemplate | undefined; defaultType: string; onSaved(id: string): void; onOpenWording(): void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [draft, setDraft] = useState<TemplateDraft>(() => (template ? draftOf(template) : { ...EMPTY, type: defaultType }));
  const [savedNote, setSavedNote] = useState(false);
  const set = (key: keyof TemplateDraft) => (e: { target: { value: string } }) => {
    setDraft((d) => ({ ...d, [key]: e.target.value }));
    setSavedNote(false);
  };
  const wording = wordingOf(draft);
  const save = useMutation({
    mutationFn: () => (wording ? saveWordingText({ ...wording, content: draft.content }) : saveTemplate(template?.id ?? null, draft)),
    // The list is fetched again before the editor reopens on the saved template, so it shows the
    // saved fields at once (issue 26: a just-saved new template showed empty fields until reload).
    onSuccess: async (saved) => {
      await refetchAfterTemplate(client);
      setSavedNote(true);
      onSaved(saved.id);
    },
    onError: () => refetchAfterTemplate(client),
  });
  const dir = draft.languageCode === 'ar' ? 'rtl' : 'ltr';
  const checked = draft.type === 'LETTER' || draft.type === 'MESSAGE';
  const unknown = checked ? unknownPlaceholders(`${draft.content} ${draft.subject}`) : [];
  const genders = [{ value: '', label: t('therapy.anyGender') }, ...['FEMALE', 'MALE', 'DIVERSE'].map((g) => ({ value: g, label: t(`therapy.gender.${g}`) }))];
  return (
    <form className="therapy-template-editor" onSubmit={(e) => { e.preventDefault(); save.mutate(); }}>
      <h2>{template ? `${template.code} · ${template.languageCode.toUpperCase()}` : t('therapy.newTemplate')}</h2>
      <div className="therapy-template-editor__grid">
        <SelectField label={t('therapy.templateType')} value={draft.type} disabled={!!template} onChange={set('type')} options={TYPES.map((x) => ({ value: x, label: t(`therapy.type.${x}`) }))} />
        <TextField label={t('therapy.templateCode')} value={draft.code} disabled={!!template} required pattern="[A-Za-z][A-Za-z0-9_\-]{0,63}" onChange={set('code')} />
        <SelectField label={t('therapy.templateLanguage')} value={draft.languageCode} disabled={!!template} onChange={set('languageCode')} options={['ar', 'de', 'en'].map((l) => ({ value: l, label: l.toUpperCase() }))} />
        <TextField label={t('therapy.treatmentCode')} value={draft.treatmentCode} maxLength={64} onChange={set('treatmentCode')} />
        <SelectField label={t('therapy.readerGender')} value={draft.readerGender} onChange={set('readerGender')} options={genders} />
        <SelectField label={t('therapy.writerGender')} value={draft.writerGender} onChange={set('writerGender')} options={genders} />
      </div>
      <TextField label={t('therapy.templateTitle')} value={draft.title} required maxLength={300} dir={dir} onChange={set('title')} />
      <TextField label={t('therapy.letterSubject')} value={draft.subject} maxLength={300} dir={dir} onChange={set('subject')} />
      <TextArea label={t('therapy.templateContent')} hint={checked ? t('therapy.placeholdersHint', { names: LETTER_PLACEHOLDERS.map(asPlaceholder).join(' ') }) : undefined} value={draft.content} rows={14} dir={dir} onChange={set('content')} />
      {wording ? (
        <Alert kind="info">
          {t('therapy.wordingTextHint')}{' '}
          <button type="button" className="therapy-link" onClick={onOpenWording}>
            {t('therapy.openWordingForm')}
          </button>
        </Alert>
      ) : null}
      {unknown.length ? <Alert kind="warning">{t('therapy.unknownPlaceholders', { names: unknown.map(asPlaceholder).join(', ') })}</Alert> : null}
      <section className="therapy-letter" aria-label={t('therapy.preview')} lang={draft.languageCode} dir={dir}>
        <Markdown source={draft.content} skipTitle={false} lineBreaks={checked} />
      </section>
      {save.error ? (
        <Alert kind="error">
          <span className="wording-problems">{asApiError(save.error).message}</span>
        </Alert>
      ) : null}
      {savedNote ? <p role="status">{t('therapy.templateSaved')}</p> : null}
      <button type="submit" className="button" disabled={save.isPending || unknown.length > 0 || !draft.title.trim() || !draft.code.trim()}>
        {t('common.save')}
      </button>
      {template ? (
        <Versions
          template={template}
          wording={wording}
          onRestored={(restored) => {
            setDraft(draftOf(restored));
            setSavedNote(false);
          }}
        />
      ) : null}
    </form>
  );
}

type Version = { id: string; version: number; content: string };

function Versions({ template, wording, onRestored }: { template: ContentTemplate; wording: { code: string; locale: string } | null; onRestored(template: ContentTemplate): void }) {
  const clock = useClock();
  const { t } = useTranslation();
  const client = useQueryClient();
  const confirm = useConfirm();
  const versions = useQuery(templateVersionsQuery(template.id));
  // An earlier wording text comes back through the wording check like any other save.
  const restoreOne = async (v: Version): Promise<ContentTemplate> =>
    wording ? (await saveWordingText({ ...wording, content: v.content }), { ...template, content: v.content }) : restoreVersion(v.id);
  const restore = useMutation({ mutationFn: restoreOne, onSuccess: onRestored, onSettled: () => refetchAfterTemplate(client) });
  return (
    <section aria-labelledby="template-versions">
      <h3 id="template-versions">{t('therapy.versions')}</h3>
      <ErrorAlert error={restore.error ? asApiError(restore.error) : null} />
      <ol className="therapy-versions">
        {versions.data?.map((v, i) => (
          <li key={v.id}>
            <span>
              {t('therapy.versionOf', { version: v.version, date: clock.dateTime(v.savedAt) })}
              {i === 0 ? ` · ${t('therapy.currentVersion')}` : ''}
            </span>
            {i > 0 ? (
              <button
                type="button"
                className="button button--secondary button--small"
                onClick={async () => {
                  if (await confirm({ title: t('therapy.restoreTitle'), message: t('therapy.restoreMessage', { version: v.version }), confirmLabel: t('therapy.restore') })) restore.mutate(v);
                }}
              >
                {t('therapy.restoreVersion', { version: v.version })}
              </button>
            ) : null}
          </li>
        ))}
      </ol>
    </section>
  );
}
