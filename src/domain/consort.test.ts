import { describe, expect, it } from 'vitest';
import { consortFlow, lossReason, participantCells, PARTICIPANT_COLUMNS, type Participant } from './consort';

const base: Participant = {
  caseId: 'c', registeredAt: '2026-01-01T00:00:00Z', stage: 'screening', screened: false, excluded: false, exclusionReasons: [],
  interviewed: false, interviewOutcome: null, rejectionReason: null, treatment: null, randomizedAt: null, receivedIntervention: false,
  preCompleted: false, postCompleted: false, fu1Completed: false, fu2Completed: false, trialActive: true, isDropout: false,
  dropoutReason: null, excludeFromAnalysis: false, reasonForExclusion: null,
};
const p = (over: Partial<Participant>): Participant => ({ ...base, ...over });

describe('CONSORT flow', () => {
  it('counts each box', () => {
    const flow = consortFlow(
      [
        p({}),
        p({ screened: true, excluded: true, exclusionReasons: ['excluded_for_minor_age', 'excluded_for_lack_of_email'] }),
        p({ screened: true, interviewed: true, interviewOutcome: 'rejected', rejectionReason: 'other_reasons' }),
        p({ screened: true, interviewed: true, interviewOutcome: 'counseling' }),
        p({ screened: true, interviewed: true, interviewOutcome: 'later' }),
        p({ screened: true, interviewed: true, interviewOutcome: 'ptsd' }),
        p({ screened: true, interviewed: true, interviewOutcome: 'ptsd', treatment: 'b', receivedIntervention: true, postCompleted: true, stage: 'fu1' }),
        p({ screened: true, interviewed: true, interviewOutcome: 'depression', treatment: 'a', isDropout: true, excludeFromAnalysis: true, trialActive: false }),
      ],
      ['a', 'b'],
    );
    expect(flow).toMatchObject({
      registered: 8, screened: 7, notScreened: 1, excluded: 1, exclusionReasons: { excluded_for_minor_age: 1, excluded_for_lack_of_email: 1 },
      interviewed: 6, accepted: 3, rejected: 1, rejectionReasons: { other_reasons: 1 }, referred: 1, later: 1, awaitingRandomization: 1, randomized: 2,
    });
    expect(flow.arms.map((a) => a.arm)).toEqual(['a', 'b']);
    expect(flow.arms[0]).toMatchObject({ randomized: 1, didNotReceive: 1, excludedFromAnalysis: 1, analysed: 0, lost: { post: { dropout: 1 } } });
    expect(flow.arms[1]).toMatchObject({ randomized: 1, receivedIntervention: 1, completed: { post: 1, fu1: 0, fu2: 0 }, lost: { fu1: { pending: 1 }, fu2: { pending: 1 } } });
  });

  it('gives the reason of a loss: dropout, excluded, not yet due, missing', () => {
    expect(lossReason(p({ isDropout: true, excluded: true }), 'post')).toBe('dropout');
    expect(lossReason(p({ excluded: true }), 'post')).toBe('excluded');
    expect(lossReason(p({ stage: 'treatment' }), 'post')).toBe('pending');
    expect(lossReason(p({ stage: 'post' }), 'post')).toBe('pending');
    expect(lossReason(p({ stage: 'fu1' }), 'post')).toBe('missing');
    expect(lossReason(p({ stage: 'post' }), 'fu1')).toBe('pending');
    expect(lossReason(p({ stage: 'treatment', trialActive: false }), 'post')).toBe('missing');
  });

  it('writes one cell per export column', () => {
    expect(participantCells(base)).toHaveLength(PARTICIPANT_COLUMNS.length);
  });
});
