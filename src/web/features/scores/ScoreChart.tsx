/**
 * A small line chart of one instrument's totals over the times of measurement, on the
 * instrument's full range with its band limits as guide lines. The table beside it carries the
 * same numbers for screen readers, so the figure is labelled and the points carry titles.
 * The time axis runs in reading direction: mirrored in Arabic.
 */
import { useTranslation } from 'react-i18next';
import { INSTRUMENTS } from '../../../domain/instruments';
import { textDirection } from '../../../domain/locales';
import { currentLocale } from '../../i18n/i18n';
import { MEASUREMENT_TIMES, type Series } from './table';

const WIDTH = 320;
const HEIGHT = 170;
const PAD = { top: 12, bottom: 28, side: 34 };

export function ScoreChart({ series }: { series: Series }) {
  const { t } = useTranslation();
  const locale = currentLocale();
  const rtl = textDirection(locale) === 'rtl';
  const [low, high] = series.range;
  const plotWidth = WIDTH - 2 * PAD.side;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const x = (time: (typeof MEASUREMENT_TIMES)[number]) => {
    const offset = (MEASUREMENT_TIMES.indexOf(time) / (MEASUREMENT_TIMES.length - 1)) * plotWidth;
    return rtl ? WIDTH - PAD.side - offset : PAD.side + offset;
  };
  const y = (value: number) => PAD.top + plotHeight - ((value - low) / (high - low)) * plotHeight;
  const name = INSTRUMENTS[series.code].labels[locale];
  const titleId = `chart-${series.code}-title`;
  const valueX = rtl ? WIDTH - PAD.side + 6 : PAD.side - 6;
  const anchor = rtl ? 'start' : 'end';
  return (
    <figure className="score-chart">
      <figcaption id={titleId}>{name}</figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby={titleId} className="score-chart__svg">
        <title>{t('scores.chartLabel', { name })}</title>
        {[low, ...series.thresholds, high].map((value) => (
          <g key={value}>
            <line
              x1={PAD.side}
              x2={WIDTH - PAD.side}
              y1={y(value)}
              y2={y(value)}
              className={value === low || value === high ? 'score-chart__axis' : 'score-chart__guide'}
            />
            <text x={valueX} y={y(value) + 4} textAnchor={anchor} className="score-chart__tick">
              {value}
            </text>
          </g>
        ))}
        {MEASUREMENT_TIMES.map((time) => (
          <text key={time} x={x(time)} y={HEIGHT - 8} textAnchor="middle" className="score-chart__tick">
            {t(`scores.times.${time}`)}
          </text>
        ))}
        <polyline className="score-chart__line" points={series.points.map((p) => `${x(p.time)},${y(p.total)}`).join(' ')} />
        {series.points.map((p) => (
          <circle key={p.time} cx={x(p.time)} cy={y(p.total)} r={4.5} className="score-chart__point">
            <title>{`${t(`scores.times.${p.time}`)}: ${p.total}`}</title>
          </circle>
        ))}
      </svg>
    </figure>
  );
}
