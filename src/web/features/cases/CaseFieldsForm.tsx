import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { stageOptions } from '../../../domain/case-stages';
import { ApiError } from '../../api/client';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { useDiscardPrompt } from '../../ui/useDiscardPrompt';
import { Alert, Checkbox, SelectField, TextArea, TextField } from '../../ui/ui';
import { StageName } from './labels';
import { updateCase, type CaseFields } from './api';

/**
 * The exclusion and dropout fields are not edited here: the database lets only
 * app_hidden.exclude_case write them (a reason, an audit row, the open tasks ended), which the
 * trial section of the case offers. The form shows them and links there.
 */
type ExclusionKey = 'isDropout' | 'dropoutReason' | 'excludeFromAnalysis' | 'reasonForExclusion';
type Editable = Omit<CaseFields, ExclusionKey>;

/** The form's values: text fields as strings ('' stands for empty), flags as booleans. */
type FormValues = { [K in keyof Editable]: Editable[K] extends boolean ? boolean : string };

const TEXT_KEYS = ['title', 'description', 'diagnosis', 'emergencyContact'] as const;

function valuesOf(fields: CaseFields): FormValues {
  return {
    title: fields.title ?? '',
    description: fields.description ?? '',
    diagnosis: fields.diagnosis ?? '',
    emergencyContact: fields.emergencyContact ?? '',
    stage: fields.stage,
    askForPostIfDroppedOut: fields.askForPostIfDroppedOut,
  };
}

/** Only what changed is sent, so two coordinators editing different fields do not overwrite each other. */
function patchOf(values: FormValues, saved: FormValues): Partial<CaseFields> {
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(values) as (keyof FormValues)[]) {
    if (values[key] === saved[key]) continue;
    const value = values[key];
    patch[key] = (TEXT_KEYS as readonly string[]).includes(key) && typeof value === 'string' ? value.trim() || null : value;
  }
  return patch as Partial<CaseFields>;
}

/** A coordinator edits the case fields (spec §3 Case; the database lets only coordinators). */
export function CaseFieldsForm({ caseId, fields }: { caseId: string; fields: CaseFields }) {
  const { t } = useTranslation();
  const [saved, setSaved] = useState(() => valuesOf(fields));
  const [values, setValues] = useState(saved);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [done, setDone] = useState(false);
  const patch = patchOf(values, saved);
  const dirty = Object.keys(patch).length > 0;
  useDiscardPrompt(dirty);

  const set = <K extends keyof FormValues>(key: K, value: FormValues[K]) => {
    setDone(false);
    setValues((v) => ({ ...v, [key]: value }));
  };

  const save = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      // The typed values stay in the form whatever happens; only the saved state moves.
      const next = valuesOf(await updateCase(caseId, patch));
      setSaved(next);
      setValues(next);
      setDone(true);
    } catch (caught) {
      setError(caught instanceof ApiError ? caught : new ApiError(0, 'unknown', String(caught)));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="form" onSubmit={(e) => void save(e)} noValidate>
      {done && !dirty ? <Alert kind="success">{t('cases.saved')}</Alert> : null}
      <ErrorAlert error={error} focusOnShow />
      <TextField label={t('cases.fields.title')} name="title" dir="auto" maxLength={200} value={values.title} onChange={(e) => set('title', e.target.value)} />
      <SelectField
        label={t('cases.stage')}
        name="stage"
        value={values.stage}
        onChange={(e) => set('stage', e.target.value)}
        options={stageOptions(values.stage).map((stage) => ({ value: stage, label: t(`caseStages.${stage}`, { defaultValue: stage }) }))}
      />
      <TextArea label={t('cases.fields.description')} name="description" maxLength={10000} value={values.description} onChange={(e) => set('description', e.target.value)} />
      <TextArea label={t('cases.fields.diagnosis')} name="diagnosis" rows={3} maxLength={2000} value={values.diagnosis} onChange={(e) => set('diagnosis', e.target.value)} />
      <TextArea label={t('cases.fields.emergencyContact')} name="emergencyContact" rows={3} maxLength={2000} value={values.emergencyContact} onChange={(e) => set('emergencyContact', e.target.value)} />
      <fieldset className="form">
        <legend className="legend">{t('cases.dropout')}</legend>
        <dl className="facts">
          <Fact label={t('cases.fields.isDropout')} value={fields.isDropout ? t('cases.yes') : t('cases.no')} />
          <Fact label={t('cases.fields.dropoutReason')} value={fields.dropoutReason} />
        </dl>
        <Checkbox label={t('cases.fields.askForPostIfDroppedOut')} name="askForPostIfDroppedOut" checked={values.askForPostIfDroppedOut} onChange={(e) => set('askForPostIfDroppedOut', e.target.checked)} />
      </fieldset>
      <fieldset className="form">
        <legend className="legend">{t('cases.exclusion')}</legend>
        <dl className="facts">
          <Fact label={t('cases.fields.excludeFromAnalysis')} value={fields.excludeFromAnalysis ? t('cases.yes') : t('cases.no')} />
          <Fact label={t('cases.fields.reasonForExclusion')} value={fields.reasonForExclusion} />
        </dl>
        <p className="muted">
          {t('cases.exclusionElsewhere')} <a href="#case-trial-title">{t('cases.exclusionLink')}</a>
        </p>
      </fieldset>
      <div className="button-row">
        <button type="submit" className="button" disabled={busy || !dirty}>
          {t('common.save')}
        </button>
      </div>
    </form>
  );
}

function Fact({ label, value }: { label: string; value: string | null }) {
  const { t } = useTranslation();
  return (
    <>
      <dt>{label}</dt>
      <dd dir="auto" className="prewrap">
        {value?.trim() ? value : <span className="muted">{t('cases.empty')}</span>}
      </dd>
    </>
  );
}

/** The same fields, read-only, for staff who are not coordinators. */
export function CaseFacts({ fields }: { fields: CaseFields }) {
  const { t } = useTranslation();
  const yesNo = (value: boolean) => (value ? t('cases.yes') : t('cases.no'));
  return (
    <dl className="facts">
      <Fact label={t('cases.fields.title')} value={fields.title} />
      <dt>{t('cases.stage')}</dt>
      <dd>
        <StageName stage={fields.stage} />
      </dd>
      <Fact label={t('cases.fields.description')} value={fields.description} />
      <Fact label={t('cases.fields.diagnosis')} value={fields.diagnosis} />
      <Fact label={t('cases.fields.emergencyContact')} value={fields.emergencyContact} />
      <Fact label={t('cases.fields.isDropout')} value={yesNo(fields.isDropout)} />
      <Fact label={t('cases.fields.dropoutReason')} value={fields.dropoutReason} />
      <Fact label={t('cases.fields.askForPostIfDroppedOut')} value={yesNo(fields.askForPostIfDroppedOut)} />
      <Fact label={t('cases.fields.excludeFromAnalysis')} value={yesNo(fields.excludeFromAnalysis)} />
      <Fact label={t('cases.fields.reasonForExclusion')} value={fields.reasonForExclusion} />
    </dl>
  );
}
