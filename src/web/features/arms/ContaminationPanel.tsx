/**
 * The coordinators' contamination report (issue 27 item 3): per treatment arm, its randomized
 * cases and how often content of another arm was sent to them (worksheets, letters), each send
 * with the reason its therapist recorded. Shown in the trial area beside CONSORT.
 */
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { asApiError } from '../../api/query';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { Spinner } from '../../ui/ui';
import { armName } from '../trial/arm-name';
import { contaminationQuery } from './api';

export function ContaminationPanel() {
  const { t } = useTranslation();
  const query = useQuery(contaminationQuery());
  return (
    <section className="card" aria-labelledby="arms-contamination">
      <h2 id="arms-contamination">{t('arms.contaminationTitle')}</h2>
      <p>{t('arms.contaminationIntro')}</p>
      {query.error ? (
        <ErrorAlert error={asApiError(query.error)} />
      ) : query.isPending ? (
        <Spinner />
      ) : query.data.length === 0 ? (
        <p>{t('arms.noArms')}</p>
      ) : (
        <div className="table-scroll" tabIndex={0} role="region" aria-label={t('arms.contaminationTitle')}>
          <table className="data-table">
            <caption className="visually-hidden">{t('arms.contaminationTitle')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('arms.arm')}</th>
                <th scope="col">{t('arms.randomized')}</th>
                <th scope="col">{t('arms.sends')}</th>
                <th scope="col">{t('arms.cases')}</th>
                <th scope="col">{t('arms.worksheets')}</th>
                <th scope="col">{t('arms.letters')}</th>
              </tr>
            </thead>
            <tbody>
              {query.data.map((row) => (
                <tr key={row.arm}>
                  <th scope="row">{armName(t, row.arm)}</th>
                  <td>{row.randomized}</td>
                  <td>{row.sends}</td>
                  <td>{row.cases}</td>
                  <td>{row.worksheets}</td>
                  <td>{row.letters}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
