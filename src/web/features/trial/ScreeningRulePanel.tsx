/**
 * The screening exclusion rules in force (issue 27), for coordinators on the trial's management:
 * which reading of "no trauma, or a BDI-II total of 13 or lower" excludes, and the thresholds.
 * The server applies the same defaults (src/domain/instruments/exclusions.ts), so this shows
 * exactly what decides.
 */
import { useTranslation } from 'react-i18next';
import { SCREENING_EXCLUSION_DEFAULTS } from '../../../domain/instruments';

export function ScreeningRulePanel() {
  const { t } = useTranslation();
  const rule = SCREENING_EXCLUSION_DEFAULTS;
  return (
    <section className="trial-panel" aria-labelledby="screening-rule-title">
      <h2 id="screening-rule-title">{t('trialRules.screening.title')}</h2>
      <dl className="facts">
        <dt>{t('trialRules.screening.traumaRule')}</dt>
        <dd>{t(`trialRules.screening.${rule.lowScoreRule}`, { atMost: rule.bdiExcludeAtMost })}</dd>
        <dt>{t('trialRules.screening.highScore')}</dt>
        <dd>{t('trialRules.screening.atLeast', { atLeast: rule.bdiExcludeAtLeast })}</dd>
        <dt>{t('trialRules.screening.age')}</dt>
        <dd>{t('trialRules.screening.minimumAge', { age: rule.minimumAge })}</dd>
      </dl>
      <p className="muted">{t('trialRules.screening.why')}</p>
    </section>
  );
}
