/**
 * The trial's allocation for coordinators: configure it once (arms and ratio; permuted blocks,
 * minimization or an uploaded table; stratification factors), then see what was configured and
 * the balance of the draws per stratum and arm. The sequence itself is never shown: it stays in
 * the database (app_private).
 */
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { ALLOCATION_FACTORS, ALLOCATION_METHODS, GENDER_SOURCES, type AllocationFactor, type AllocationMethod, type GenderSource } from '../../../domain/randomization';
import type { TFunction } from 'i18next';
import { ApiError } from '../../api/client';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { asApiError } from '../../api/query';
import { Alert, Checkbox, SelectField, TextArea, TextField } from '../../ui/ui';
import { allocationQuery, configureAllocation, refetchAfterTrialChange, type AllocationSummary, type BalanceRow } from './api';
import { TrialError } from './TrialError';

/** A stratum key ("gender=FEMALE;problem=ptsd") in words: each factor and level translated. */
function stratumText(t: TFunction, stratum: string): string {
  if (stratum === '*') return t('careTeam.stratum.all');
  return stratum
    .split(';')
    .map((part) => {
      const [factor = '', level = ''] = part.split('=');
      const levelText = factor === 'gender' ? t(`gender.${level}`, { defaultValue: level }) : t(`careTeam.stratum.problems.${level}`, { defaultValue: level });
      return `${t(`trial.factors.${factor}`, { defaultValue: factor })}: ${levelText}`;
    })
    .join(', ');
}

interface ArmDraft {
  code: string;
  ratio: string;
}

function Summary({ allocation, balance }: { allocation: AllocationSummary; balance: BalanceRow[] }) {
  const { t } = useTranslation();
  const arms = allocation.arms.map((a) => a.code);
  const strata = [...new Set(balance.map((b) => b.stratum))];
  const count = (stratum: string, arm: string) => balance.find((b) => b.stratum === stratum && b.treatment === arm)?.assignments ?? 0;
  return (
    <>
      <dl className="facts">
        <dt>{t('trial.allocation.method')}</dt>
        <dd>{t(`trial.allocation.methods.${allocation.method}`)}</dd>
        <dt>{t('trial.allocation.arms')}</dt>
        <dd dir="ltr">{allocation.arms.map((a) => `${a.code} (${a.ratio})`).join(' : ')}</dd>
        <dt>{t('trial.allocation.factors')}</dt>
        <dd>{allocation.factors.length ? allocation.factors.map((f) => t(`trial.factors.${f}`)).join(', ') : t('trial.allocation.noFactors')}</dd>
        {allocation.factors.includes('gender') ? (
          <>
            <dt>{t('careTeam.stratum.genderSource')}</dt>
            <dd>{t(`careTeam.stratum.sources.${allocation.settings.genderSource ?? 'registration'}`)}</dd>
          </>
        ) : null}
        <dt>{t('trial.allocation.draws')}</dt>
        <dd>{allocation.draws}</dd>
      </dl>
      <h3>{t('trial.allocation.balance')}</h3>
      {strata.length === 0 ? (
        <p className="muted">{t('trial.allocation.noDraws')}</p>
      ) : (
        <div className="table-scroll">
          <table className="data-table">
            <caption className="visually-hidden">{t('trial.allocation.balance')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('trial.allocation.stratum')}</th>
                {arms.map((arm) => (
                  <th scope="col" key={arm} dir="ltr">
                    {arm}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {strata.map((stratum) => (
                <tr key={stratum}>
                  <th scope="row">{stratumText(t, stratum)}</th>
                  {arms.map((arm) => (
                    <td key={arm}>{count(stratum, arm)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

function ConfigureForm({ onDone }: { onDone(): void }) {
  const { t } = useTranslation();
  const [method, setMethod] = useState<AllocationMethod>('blocks');
  const [arms, setArms] = useState<ArmDraft[]>([
    { code: 'a', ratio: '1' },
    { code: 'b', ratio: '1' },
  ]);
  const [factors, setFactors] = useState<AllocationFactor[]>([]);
  const [genderSource, setGenderSource] = useState<GenderSource>('registration');
  const [table, setTable] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setFieldErrors({});
    try {
      await configureAllocation({ method, arms: arms.map((a) => ({ code: a.code.trim(), ratio: Number(a.ratio) })), factors, ...(factors.includes('gender') ? { genderSource } : {}), ...(method === 'table' ? { table } : {}) });
      onDone();
    } catch (caught) {
      const apiError = caught as ApiError;
      setError(apiError);
      const errors = (apiError.body as { errors?: Record<string, string> } | undefined)?.errors;
      if (errors) setFieldErrors(errors);
    } finally {
      setBusy(false);
    }
  };
  const fieldError = (key: string) => (fieldErrors[key] ? [{ code: 'trial_invalid', message: t(`trial.allocation.invalid.${key.replace(/^arms\.\d+\./, 'arm.')}`, { defaultValue: fieldErrors[key] }) }] : []);

  return (
    <form onSubmit={(e) => void submit(e)} noValidate aria-labelledby="allocation-form-title">
      <h3 id="allocation-form-title">{t('trial.allocation.configure')}</h3>
      <p className="muted">{t('trial.allocation.once')}</p>
      <SelectField
        label={t('trial.allocation.method')}
        name="method"
        value={method}
        onChange={(e) => setMethod(e.target.value as AllocationMethod)}
        options={ALLOCATION_METHODS.map((m) => ({ value: m, label: t(`trial.allocation.methods.${m}`) }))}
        errors={fieldError('method')}
      />
      <fieldset className="trial-arms">
        <legend>{t('trial.allocation.arms')}</legend>
        {arms.map((arm, index) => (
          <div className="trial-arms__row" key={index}>
            <TextField
              label={t('trial.allocation.armCode', { n: index + 1 })}
              name={`arm-${index}`}
              dir="ltr"
              value={arm.code}
              onChange={(e) => setArms((all) => all.map((a, i) => (i === index ? { ...a, code: e.target.value } : a)))}
              errors={fieldError(`arms.${index}.code`)}
            />
            <TextField
              label={t('trial.allocation.ratio', { n: index + 1 })}
              name={`ratio-${index}`}
              inputMode="numeric"
              dir="ltr"
              value={arm.ratio}
              onChange={(e) => setArms((all) => all.map((a, i) => (i === index ? { ...a, ratio: e.target.value } : a)))}
              errors={fieldError(`arms.${index}.ratio`)}
            />
          </div>
        ))}
        <div className="button-row">
          {arms.length < 10 ? (
            <button type="button" className="button button--secondary button--small" onClick={() => setArms((all) => [...all, { code: '', ratio: '1' }])}>
              {t('trial.allocation.addArm')}
            </button>
          ) : null}
          {arms.length > 2 ? (
            <button type="button" className="button button--secondary button--small" onClick={() => setArms((all) => all.slice(0, -1))}>
              {t('trial.allocation.removeArm')}
            </button>
          ) : null}
        </div>
      </fieldset>
      <fieldset>
        <legend>{t(method === 'minimization' ? 'trial.allocation.minimizeBy' : 'trial.allocation.stratifyBy')}</legend>
        {(Object.keys(ALLOCATION_FACTORS) as AllocationFactor[]).map((factor) => (
          <Checkbox
            key={factor}
            label={t(`trial.factors.${factor}`)}
            name={`factor-${factor}`}
            checked={factors.includes(factor)}
            onChange={(e) => setFactors((all) => (e.target.checked ? [...all, factor] : all.filter((f) => f !== factor)))}
          />
        ))}
        {fieldErrors.factors ? <p className="field__error">{t('trial.allocation.invalid.factors')}</p> : null}
      </fieldset>
      {factors.includes('gender') ? (
        <SelectField
          label={t('careTeam.stratum.genderSource')}
          hint={t('careTeam.stratum.genderSourceHint')}
          name="genderSource"
          value={genderSource}
          onChange={(e) => setGenderSource(e.target.value as GenderSource)}
          options={GENDER_SOURCES.map((source) => ({ value: source, label: t(`careTeam.stratum.sources.${source}`) }))}
        />
      ) : null}
      {method === 'table' ? (
        <>
          <TextArea label={t('trial.allocation.table')} hint={t('trial.allocation.tableHint')} name="table" dir="ltr" rows={6} value={table} onChange={(e) => setTable(e.target.value)} errors={fieldError('table')} />
          <label className="button button--secondary button--small">
            {t('trial.allocation.upload')}
            <input type="file" accept=".csv,text/csv" className="visually-hidden" onChange={(e) => void e.target.files?.[0]?.text().then(setTable)} />
          </label>
        </>
      ) : null}
      <TrialError error={error} focusOnShow />
      <div className="button-row">
        <button type="submit" className="button" aria-disabled={busy || undefined} disabled={busy}>
          {busy ? t('trial.allocation.saving') : t('trial.allocation.save')}
        </button>
      </div>
    </form>
  );
}

export function AllocationPanel() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const { data, error, isPending } = useQuery(allocationQuery());
  const [saved, setSaved] = useState(false);
  return (
    <section className="trial-panel" aria-labelledby="allocation-title">
      <h2 id="allocation-title">{t('trial.allocation.title')}</h2>
      <TrialError error={error ? asApiError(error) : null} />
      {isPending ? <p>{t('common.loading')}</p> : null}
      {saved ? <Alert kind="success">{t('trial.allocation.saved')}</Alert> : null}
      {data?.allocation ? <Summary allocation={data.allocation} balance={data.balance} /> : null}
      {data && !data.allocation ? <Alert kind="info">{t('trial.allocation.missing')}</Alert> : null}
      {data && (!data.allocation || data.allocation.draws === 0) ? (
        <ConfigureForm
          onDone={() => {
            setSaved(true);
            void refetchAfterTrialChange(client);
          }}
        />
      ) : null}
    </section>
  );
}
