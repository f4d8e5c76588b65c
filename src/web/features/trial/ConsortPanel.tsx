/**
 * The CONSORT flow of the whole trial for coordinators: the diagram (SVG, downloadable) and the
 * same numbers as a table. The counts come from /api/trial/consort, which counts the rows of the
 * participants export; the export is offered here too.
 */
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { FOLLOW_UPS, type ConsortFlow, type LossReason } from '../../../domain/consort';
import { ApiError } from '../../api/client';
import { useQuery } from '@tanstack/react-query';
import { asApiError } from '../../api/query';
import { consortQuery, downloadFile, saveBlob } from './api';
import { armName } from './arm-name';
import { TrialError } from './TrialError';

const LOSSES: LossReason[] = ['dropout', 'excluded', 'pending', 'missing'];
const WIDTH = 760;
const LINE = 17;

interface Box {
  x: number;
  y: number;
  w: number;
  lines: string[];
  side?: boolean;
}

function boxHeight(lines: string[]): number {
  return lines.length * LINE + 14;
}

/** Lays the boxes out top to bottom: the main column, side boxes for those who leave, one column per arm. */
function layout(flow: ConsortFlow, t: (key: string, options?: Record<string, unknown>) => string): { boxes: Box[]; arrows: [number, number, number, number][]; height: number } {
  const boxes: Box[] = [];
  const arrows: [number, number, number, number][] = [];
  const mainX = 40;
  const mainW = 330;
  const sideX = 410;
  const sideW = 330;
  let y = 20;
  const reasons = (counts: Record<string, number>) => Object.entries(counts).map(([reason, n]) => `• ${t(`trial.reasons.${reason}`, { defaultValue: reason })}: ${n}`);
  const step = (main: string[], side?: string[]) => {
    const h = Math.max(boxHeight(main), side ? boxHeight(side) : 0);
    boxes.push({ x: mainX, y, w: mainW, lines: main });
    if (side) {
      boxes.push({ x: sideX, y, w: sideW, lines: side, side: true });
      arrows.push([mainX + mainW, y + boxHeight(main) / 2, sideX, y + boxHeight(main) / 2]);
    }
    const top = y;
    y += h + 28;
    arrows.push([mainX + mainW / 2, top + boxHeight(main), mainX + mainW / 2, y]);
  };
  step([t('trial.consort.registered', { n: flow.registered })], [t('trial.consort.notScreened', { n: flow.notScreened })]);
  step([t('trial.consort.screened', { n: flow.screened })], [t('trial.consort.excluded', { n: flow.excluded }), ...reasons(flow.exclusionReasons)]);
  step(
    [t('trial.consort.interviewed', { n: flow.interviewed })],
    [
      t('trial.consort.rejected', { n: flow.rejected }),
      ...reasons(flow.rejectionReasons),
      t('trial.consort.referred', { n: flow.referred }),
      t('trial.consort.later', { n: flow.later }),
    ],
  );
  step([t('trial.consort.accepted', { n: flow.accepted })], [t('trial.consort.awaiting', { n: flow.awaitingRandomization })]);
  // Issue 31: those who withdrew consent (any level), randomized or not, under the randomized box.
  const randomizedLines = [t('trial.consort.randomized', { n: flow.randomized })];
  if (flow.withdrewConsent > 0) randomizedLines.push(t('withdrawal.consort', { n: flow.withdrewConsent }));
  boxes.push({ x: mainX, y, w: mainW, lines: randomizedLines });
  const randomizedBottom = y + boxHeight(randomizedLines);
  y = randomizedBottom + 30;
  const arms = flow.arms.length > 0 ? flow.arms : [];
  const columnW = arms.length > 0 ? Math.min(340, (WIDTH - 40 - 20 * (arms.length - 1)) / arms.length) : 0;
  let bottom = y;
  arms.forEach((arm, index) => {
    const x = 20 + index * (columnW + 20);
    let ay = y;
    arrows.push([mainX + mainW / 2, randomizedBottom, x + columnW / 2, ay]);
    const stack = (lines: string[]) => {
      boxes.push({ x, y: ay, w: columnW, lines });
      const top = ay;
      ay += boxHeight(lines) + 24;
      arrows.push([x + columnW / 2, top + boxHeight(lines), x + columnW / 2, ay]);
    };
    stack([
      t('trial.consort.allocated', { arm: t(`careTeam.arms.${arm.arm}`, { defaultValue: arm.arm }), n: arm.randomized }),
      t('trial.consort.received', { n: arm.receivedIntervention }),
      t('trial.consort.notReceived', { n: arm.didNotReceive }),
    ]);
    for (const time of FOLLOW_UPS) {
      stack([
        t(`trial.consort.completed.${time}`, { n: arm.completed[time] }),
        ...LOSSES.filter((l) => arm.lost[time][l] > 0).map((l) => `• ${t(`trial.consort.lost.${l}`, { n: arm.lost[time][l] })}`),
      ]);
    }
    boxes.push({ x, y: ay, w: columnW, lines: [t('trial.consort.analysed', { n: arm.analysed }), t('trial.consort.excludedFromAnalysis', { n: arm.excludedFromAnalysis })] });
    ay += boxHeight(['', '']) + 20;
    bottom = Math.max(bottom, ay);
  });
  return { boxes, arrows, height: Math.max(bottom, y) + 10 };
}

function Diagram({ flow, svgRef, rtl }: { flow: ConsortFlow; svgRef: React.RefObject<SVGSVGElement | null>; rtl: boolean }) {
  const { t } = useTranslation();
  const { boxes, arrows, height } = layout(flow, t as never);
  return (
    <svg ref={svgRef} xmlns="http://www.w3.org/2000/svg" viewBox={`0 0 ${WIDTH} ${height}`} className="consort-svg" role="img" aria-label={t('trial.consort.diagram')} direction={rtl ? 'rtl' : 'ltr'} fontFamily="system-ui, sans-serif" fontSize="13">
      <defs>
        <marker id="consort-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
          <path d="M 0 0 L 10 5 L 0 10 z" fill="#444" />
        </marker>
      </defs>
      {arrows.map(([x1, y1, x2, y2], i) => (
        <line key={i} x1={x1} y1={y1} x2={x2} y2={y2} stroke="#444" strokeWidth="1.2" markerEnd="url(#consort-arrow)" />
      ))}
      {boxes.map((box, i) => (
        <g key={i}>
          <rect x={box.x} y={box.y} width={box.w} height={boxHeight(box.lines)} rx="4" fill={box.side ? '#f6f6f6' : '#fff'} stroke="#333" />
          {box.lines.map((line, j) => (
            <text key={j} x={box.x + box.w / 2} y={box.y + 20 + j * LINE} textAnchor="middle" fill="#111">
              {line}
            </text>
          ))}
        </g>
      ))}
    </svg>
  );
}

function FlowTable({ flow }: { flow: ConsortFlow }) {
  const { t } = useTranslation();
  const rows: [string, string | number][] = [
    [t('trial.table.registered'), flow.registered],
    [t('trial.table.screened'), flow.screened],
    [t('trial.table.excluded'), flow.excluded],
    ...Object.entries(flow.exclusionReasons).map(([r, n]): [string, number] => [`— ${t(`trial.reasons.${r}`, { defaultValue: r })}`, n]),
    [t('trial.table.interviewed'), flow.interviewed],
    [t('trial.table.accepted'), flow.accepted],
    [t('trial.table.rejected'), flow.rejected],
    ...Object.entries(flow.rejectionReasons).map(([r, n]): [string, number] => [`— ${t(`trial.reasons.${r}`, { defaultValue: r })}`, n]),
    [t('trial.table.referred'), flow.referred],
    [t('trial.table.later'), flow.later],
    [t('trial.table.awaiting'), flow.awaitingRandomization],
    [t('trial.table.randomized'), flow.randomized],
  ];
  for (const arm of flow.arms) {
    rows.push([t('trial.table.arm', { arm: armName(t, arm.arm) }), arm.randomized]);
    rows.push([`— ${t('trial.table.received')}`, arm.receivedIntervention]);
    for (const time of FOLLOW_UPS) {
      rows.push([`— ${t(`trial.table.completed.${time}`)}`, arm.completed[time]]);
      for (const loss of LOSSES) if (arm.lost[time][loss] > 0) rows.push([`— — ${t(`trial.table.lost.${loss}`)}`, arm.lost[time][loss]]);
    }
    rows.push([`— ${t('trial.table.analysed')}`, arm.analysed]);
    rows.push([`— ${t('trial.table.excludedFromAnalysis')}`, arm.excludedFromAnalysis]);
  }
  return (
    <div className="table-scroll">
      <table className="data-table">
        <caption>{t('trial.consort.tableCaption')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('trial.table.step')}</th>
            <th scope="col">{t('trial.table.count')}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(([label, value], i) => (
            <tr key={i}>
              <th scope="row">{label}</th>
              <td>{value}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function ConsortPanel() {
  const { t, i18n } = useTranslation();
  const { data, error } = useQuery(consortQuery());
  const svgRef = useRef<SVGSVGElement>(null);
  const [failed, setFailed] = useState<ApiError | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const day = new Date().toISOString().slice(0, 10);

  const downloadSvg = () => {
    if (!svgRef.current) return;
    const text = `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(svgRef.current)}`;
    const name = `sanad-consort-${day}.svg`;
    saveBlob(new Blob([text], { type: 'image/svg+xml' }), name);
    setSaved(name);
  };
  const downloadParticipants = async () => {
    setFailed(null);
    try {
      setSaved(await downloadFile('/api/trial/participants.csv', `sanad-participants-${day}.csv`));
    } catch (caught) {
      setFailed(caught as ApiError);
    }
  };

  // Issue 30: the signature manifests as the research export's signatures file.
  const downloadSignatures = async () => {
    setFailed(null);
    try {
      setSaved(await downloadFile('/api/trial/signatures.csv', `sanad-signatures-${day}.csv`));
    } catch (caught) {
      setFailed(caught as ApiError);
    }
  };

  return (
    <section className="trial-panel" aria-labelledby="consort-title">
      <h2 id="consort-title">{t('trial.consort.title')}</h2>
      <p className="muted">{t('trial.consort.hint')}</p>
      <TrialError error={error ? asApiError(error) : failed} />
      {data ? (
        <>
          <div className="consort-scroll" dir="ltr" tabIndex={0} role="region" aria-label={t('trial.consort.scroll')}>
            <Diagram flow={data} svgRef={svgRef} rtl={i18n.dir() === 'rtl'} />
          </div>
          <div className="button-row">
            <button type="button" className="button button--secondary" onClick={downloadSvg}>
              {t('trial.consort.downloadSvg')}
            </button>
            <button type="button" className="button button--secondary" onClick={() => void downloadParticipants()}>
              {t('trial.consort.downloadParticipants')}
            </button>
            <button type="button" className="button button--secondary" onClick={() => void downloadSignatures()}>
              {t('signing.downloadSignatures')}
            </button>
          </div>
          <p role="status">
            {saved ? (
              <>
                {t('trial.saved')} <bdi dir="ltr">{saved}</bdi>
              </>
            ) : null}
          </p>
          <FlowTable flow={data} />
        </>
      ) : null}
    </section>
  );
}
