/**
 * The signature manifests of a record or a case (issue 30 item 3; 21 CFR Part 11 §11.50):
 * printed name, meaning, time (in the viewer's zone, and in UTC as signed) and the hash of the
 * signed content. Shown wherever a signed record is shown. Row-level security decides what the
 * viewer may read; nothing is shown when there is nothing they may see.
 */
import './signing.css';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useClock } from '../../ui/useClock';
import { loadSignatures, type Manifest } from './api';

export const SIGNATURES_KEY = ['signatures'] as const;

interface Props {
  by: { recordId: string } | { caseId: string };
  /** Only these acts (e.g. the withdrawal's on the withdrawal section). */
  acts?: readonly string[];
  /** Show "none yet" instead of nothing when there is no signature. */
  showEmpty?: boolean;
}

function ManifestLine({ manifest }: { manifest: Manifest }) {
  const { t } = useTranslation();
  const clock = useClock();
  const at = new Date(manifest.at);
  return (
    <li className="signature-manifest">
      <span>
        {t('signing.manifestLine', {
          name: manifest.printedName,
          meaning: t(`signing.meanings.${manifest.meaning}`, { defaultValue: t('signing.meanings.unknown') }),
          time: clock.dateTime(at),
          utc: manifest.at.slice(0, 19).replace('T', ' '),
        })}
      </span>
      <span className="signature-manifest__hash">
        {t('signing.manifestHash')}: <code dir="ltr">{manifest.contentHash}</code>
      </span>
    </li>
  );
}

export function SignatureManifests({ by, acts, showEmpty = false }: Props) {
  const { t } = useTranslation();
  const key = 'recordId' in by ? by.recordId : by.caseId;
  const { data } = useQuery({ queryKey: [...SIGNATURES_KEY, key], queryFn: () => loadSignatures(by) });
  const shown = (data?.signatures ?? []).filter((m) => !acts || acts.includes(m.act));
  if (shown.length === 0 && !showEmpty) return null;
  return (
    <section className="signature-manifests" aria-label={t('signing.manifestTitle')}>
      <h3>{t('signing.manifestTitle')}</h3>
      {shown.length === 0 ? (
        <p>{t('signing.noSignatures')}</p>
      ) : (
        <ul>
          {shown.map((m) => (
            <ManifestLine key={m.id} manifest={m} />
          ))}
        </ul>
      )}
    </section>
  );
}
