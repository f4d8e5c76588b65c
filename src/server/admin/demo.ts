/**
 * A demo trial: one account per role, patients with cases and a care team on each case, and
 * (seedDemoActivity) the trial started for each patient and moved to a different stage, with
 * messages, interview slots and bookings and questionnaire answers, so that every screen of
 * every demo account has something real to show on a laptop. Everything after the accounts goes
 * through the app's own HTTP routes as the person who would do it, so rules and workflow apply.
 * All accounts share a published password, which is why they must never exist in production.
 */
import { SIGNATURE_HEADER } from '../../domain/signatures';
import { totpCode } from '../signing/totp';
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { isWorksheetCode, WORKSHEETS } from '../../domain/worksheets';
import type { CaseRole } from '../../domain/roles';
import { addMember, createCase, createUser, type AccountFlag } from './accounts';

/** Published in the README and printed by the seed: anyone may know it. */
export const DEMO_PASSWORD = 'sanad-demo-password';

export interface DemoAccount {
  username: string;
  alias: string;
  flags: AccountFlag[];
  /** The role this account takes on every demo patient's case, if any. */
  caseRole?: CaseRole;
}

export const DEMO_ACCOUNTS: readonly DemoAccount[] = [
  { username: 'demo-coordinator', alias: 'Demo Coordinator', flags: ['coordinator'] },
  { username: 'demo-interviewer', alias: 'Demo Interviewer', flags: ['interviewer'], caseRole: 'interviewer' },
  { username: 'demo-therapist', alias: 'Demo Therapist', flags: ['therapist'], caseRole: 'therapist' },
  { username: 'demo-supervisor', alias: 'Demo Supervisor', flags: ['supervisor'], caseRole: 'supervisor' },
  { username: 'demo-supporter', alias: 'Demo Supporter', flags: ['supporter'], caseRole: 'supporter' },
  { username: 'demo-counselor', alias: 'Demo Counselor', flags: ['counselor'], caseRole: 'counselor' },
  { username: 'demo-patient1', alias: 'Demo Patient 1', flags: ['patient'] },
  { username: 'demo-patient2', alias: 'Demo Patient 2', flags: ['patient'] },
  { username: 'demo-patient3', alias: 'Demo Patient 3', flags: ['patient'] },
];

export interface SeededAccount {
  username: string;
  flags: AccountFlag[];
  id: string;
  /** False when the account existed already and was left as it was. */
  created: boolean;
  caseId?: string;
}

/** example.org is reserved (RFC 2606): mail to demo accounts can never reach a real person. */
function demoEmail(username: string): string {
  return `${username}@example.org`;
}

async function existingUserId(pool: pg.Pool, username: string): Promise<string | undefined> {
  const { rows } = await pool.query<{ id: string }>('select id from app_public.users where username = $1', [username]);
  return rows[0]?.id;
}

/** The patient's oldest case, which is the one registration (or the seed) made. */
async function patientCaseId(pool: pg.Pool, userId: string): Promise<string | undefined> {
  const { rows } = await pool.query<{ case_id: string }>(
    `select m.case_id from app_public.case_members m join app_public.cases c on c.id = m.case_id
      where m.user_id = $1 and m.acts_as_patient order by c.created_at, c.id limit 1`,
    [userId],
  );
  return rows[0]?.case_id;
}

/** Creates a demo account, or finds it: an existing one keeps its password and flags. */
async function ensureAccount(pool: pg.Pool, account: DemoAccount): Promise<SeededAccount> {
  const found = await existingUserId(pool, account.username);
  if (found) {
    const isPatient = account.flags.includes('patient');
    // A patient whose case was deleted gets a new one, so the team below has somewhere to go.
    const caseId = isPatient ? ((await patientCaseId(pool, found)) ?? (await createCase(pool, { patient: found }))) : undefined;
    return { username: account.username, flags: account.flags, id: found, created: false, ...(caseId ? { caseId } : {}) };
  }
  const made = await createUser(pool, {
    username: account.username,
    email: demoEmail(account.username),
    password: DEMO_PASSWORD,
    alias: account.alias,
    flags: account.flags,
  });
  return { username: account.username, flags: account.flags, id: made.id, created: true, ...(made.caseId ? { caseId: made.caseId } : {}) };
}

async function isMember(pool: pg.Pool, caseId: string, userId: string): Promise<boolean> {
  const { rows } = await pool.query('select 1 from app_public.case_members where case_id = $1 and user_id = $2', [caseId, userId]);
  return rows.length > 0;
}

/** Seeds the demo trial; safe to run again: it only adds what is missing and changes nothing else. */
export async function seedDemo(pool: pg.Pool): Promise<SeededAccount[]> {
  const seeded: SeededAccount[] = [];
  for (const account of DEMO_ACCOUNTS) seeded.push(await ensureAccount(pool, account));
  for (const { caseId } of seeded) {
    if (!caseId) continue;
    for (const [index, account] of DEMO_ACCOUNTS.entries()) {
      const member = seeded[index]!;
      if (account.caseRole && !(await isMember(pool, caseId, member.id))) {
        await addMember(pool, caseId, member.id, [account.caseRole]);
      }
    }
  }
  return seeded;
}

/** What seedDemoActivity needs of a built app: requests by inject, and one scheduler pass. */
export interface DemoApp {
  inject(request: { method: 'GET' | 'POST' | 'PUT'; url: string; headers?: Record<string, string>; payload?: unknown }): Promise<{ statusCode: number; body: string }>;
  tick(): Promise<unknown>;
}

/** The stage each demo patient's trial is moved to (index = patient number - 1). */
export const DEMO_STAGES = ['screening', 'interview', 'treatment'] as const;

const HOUR = 3_600_000;

/** The act and record a refusal asks to sign (issue 30), in the app's or Camunda's answer. */
function signatureAsked(status: number, body: string): { act: string; recordId: string } | undefined {
  if (status !== 403 || !body.includes('signature_required')) return undefined;
  const parsed = JSON.parse(body) as { act?: string; recordId?: string; details?: { act: string; recordId: string } };
  return parsed.details ?? (parsed.act && parsed.recordId ? { act: parsed.act, recordId: parsed.recordId } : undefined);
}

class DemoSession {
  private readonly tokens = new Map<string, string>();
  constructor(private readonly app: DemoApp) {}

  private async token(username: string): Promise<string> {
    const known = this.tokens.get(username);
    if (known) return known;
    const answer = await this.call('POST', '/api/auth/tokens', null, { username, password: DEMO_PASSWORD });
    const token = (answer as { encoded: string }).encoded;
    this.tokens.set(username, token);
    return token;
  }

  async call(method: 'GET' | 'POST' | 'PUT', url: string, as: string | null, payload?: unknown, headers: Record<string, string> = {}): Promise<unknown> {
    const all: Record<string, string> = { ...headers };
    if (as) all.authorization = `Bearer ${await this.token(as)}`;
    if (payload !== undefined) all['content-type'] = 'application/json';
    let response = await this.app.inject({ method, url, headers: all, ...(payload === undefined ? {} : { payload }) });
    const asked = as ? signatureAsked(response.statusCode, response.body) : undefined;
    if (as && asked) {
      // Issue 30: a signed act. The demo person signs as the web's dialog does (password, and
      // a recovery code of their second factor when their role requires one), then repeats.
      all[SIGNATURE_HEADER] = await this.signingToken(as, asked);
      response = await this.app.inject({ method, url, headers: all, ...(payload === undefined ? {} : { payload }) });
    }
    if (response.statusCode >= 300) throw new Error(`demo: ${method} ${url} as ${as ?? 'nobody'} answered ${response.statusCode}: ${response.body}`);
    return response.body ? JSON.parse(response.body) : null;
  }

  private readonly recoveryCodes = new Map<string, string[]>();

  /** A signing token for `as`, enrolling their second factor first when their role requires one. */
  private async signingToken(as: string, asked: { act: string; recordId: string }): Promise<string> {
    const request = (code?: string) => this.app.inject({
      method: 'POST', url: '/api/signing/tokens',
      headers: { authorization: `Bearer ${this.tokens.get(as)}`, 'content-type': 'application/json' },
      payload: { act: asked.act, recordId: asked.recordId, password: DEMO_PASSWORD, ...(code ? { code } : {}) },
    });
    let answer = await request(this.recoveryCodes.get(as)?.pop());
    if (answer.statusCode === 403 && answer.body.includes('mfa_enrolment_required')) {
      const begun = (await this.call('POST', '/api/auth/mfa/enrolment', as, {})) as { secret: string };
      const confirmed = (await this.call('POST', '/api/auth/mfa/enrolment/confirm', as, { code: totpCode(begun.secret, Date.now()) })) as { recoveryCodes: string[] };
      this.recoveryCodes.set(as, [...confirmed.recoveryCodes]);
      answer = await request(this.recoveryCodes.get(as)!.pop());
    }
    if (answer.statusCode !== 201) throw new Error(`demo: signing as ${as} answered ${answer.statusCode}: ${answer.body}`);
    return (JSON.parse(answer.body) as { token: string }).token;
  }

  async graphql(as: string, query: string, variables: Record<string, unknown>): Promise<Record<string, unknown>> {
    const answer = (await this.call('POST', '/api/graphql', as, { query, variables })) as { data?: Record<string, unknown>; errors?: { message: string }[] };
    if (answer.errors?.length) throw new Error(`demo: GraphQL as ${as}: ${answer.errors.map((e) => e.message).join('; ')}`);
    return answer.data ?? {};
  }

  message(as: string, caseId: string, subject: string, body: string, to: Record<string, boolean>): Promise<unknown> {
    return this.graphql(as, 'mutation DemoMessage($message: CaseMessageInput!) { createCaseMessage(input: { caseMessage: $message }) { caseMessage { id } } }', {
      message: { caseId, subject, body, sentAt: new Date().toISOString(), ...to },
    });
  }

  async openTask(caseId: string, key: string, pool: pg.Pool): Promise<string> {
    const { rows } = await pool.query<{ id: string }>('select id from app_public.workflow_tasks where case_id = $1 and task_definition_key = $2 and end_time is null', [caseId, key]);
    if (!rows[0]) throw new Error(`demo: no open ${key} task in case ${caseId}`);
    return rows[0].id;
  }

  async submit(as: string, taskId: string, variables: Record<string, { value: unknown; type: string }>): Promise<void> {
    await this.call('POST', `/api/workflow/rest/task/${taskId}/submit-form`, as, { variables });
  }

  /** Writes the interview report of the case's booking as `as` and signs it (REST, as the report screen does). */
  async signReport(as: string, caseId: string, pool: pg.Pool, values: Record<string, unknown>): Promise<void> {
    const { rows } = await pool.query<{ id: string }>(
      'select id from app_public.interview_bookings where case_id = $1 and not canceled order by created_at desc limit 1',
      [caseId],
    );
    if (!rows[0]) throw new Error(`demo: no booking in case ${caseId}`);
    const saved = (await this.call('POST', '/api/interview_reports', as, { booking_id: rows[0].id, ...values }, { prefer: 'resolution=merge-duplicates, return=representation' })) as { id: string }[];
    await this.call('POST', `/api/interview_reports/${saved[0]!.id}/finalize`, as, {});
  }

  async phq9(as: string, caseId: string, time: string, answers: number[]): Promise<void> {
    const items = Object.fromEntries(answers.map((value, i) => [`item${i + 1}`, value]));
    await this.call('POST', '/api/phq9', as, { case_id: caseId, time_of_measurement: time, ...items }, { prefer: 'resolution=merge-duplicates, return=representation' });
  }
}

/**
 * The demo's signed interview report: PTSD after a criterion-A trauma a year before, every
 * suicidality item asked (none present), AUDIT and DAST answered below their cut-offs; accepted
 * for PTSD treatment. It passes every hard rule of the report (src/domain/interview-report).
 */
export const DEMO_ACCEPTED_REPORT: Record<string, unknown> = {
  patient_reachable: true,
  age: 34,
  sex: 'FEMALE',
  ...Object.fromEntries([1, 2, 3, 4, 5, 6].map((n) => [`suicidality_c${n}`, false])),
  suicidality_serious_attempt_3y: false,
  trauma_criterion_a: true,
  worst_event_on: new Date(Date.now() - 400 * 86_400_000).toISOString().slice(0, 10),
  ...Object.fromEntries([14, 19, 21, 22, 28, 29, 34, 36, 39, 40].map((n) => [`ptsd_g${n}`, true])),
  ...Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`audit${i + 1}`, i < 8 ? 0 : '0'])),
  ...Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`dast${i + 1}`, i === 2])),
  primary_problem: 'ptsd',
  status: 'accepted',
  accepted_reason: 'ptsd',
};

/**
 * What a clinic looks at in treatment (issue 27 item 1), each through the door its screen uses:
 * a letter template (the coordinator's editor), a letter from it (the therapist, sent), the
 * first worksheet of the patient's arm (sent by the patient) with the therapist's feedback, and a
 * suicide-risk call. The signed report already held the interview (an invoice item), and the
 * shipped crisis contacts (0121) are the crisis help the patient sees.
 */
async function seedTreatmentContent(demo: DemoSession, pool: pg.Pool, caseId: string, patient: string): Promise<void> {
  const UPSERT = { prefer: 'resolution=merge-duplicates, return=representation' };
  const template = (await demo.graphql(
    'demo-coordinator',
    'mutation DemoTemplate($t: ContentTemplateInput!) { createContentTemplate(input: { contentTemplate: $t }) { contentTemplate { id } } }',
    { t: { type: 'LETTER', code: 'demoWeekOne', languageCode: 'en', title: 'After the first week', subject: 'Your first week, {{patient_alias}}', content: 'Dear {{patient_alias}},\n\nthank you for your first week of work. On {{date}} we look back at it together.\n\n{{therapist_alias}}' } },
  )).createContentTemplate as { contentTemplate: { id: string } };
  const letterId = randomUUID();
  const [draft] = (await demo.call('POST', '/api/letters', 'demo-therapist', { id: letterId, case_id: caseId, template_id: template.contentTemplate.id }, UPSERT)) as { body: string; subject: string }[];
  await demo.call('POST', '/api/letters', 'demo-therapist', { id: letterId, case_id: caseId, template_id: template.contentTemplate.id, body: draft!.body, subject: draft!.subject, published_at: new Date().toISOString() }, UPSERT);

  const { rows } = await pool.query<{ worksheet: string }>(
    `select w.worksheet from app_public.arm_worksheets w join app_public.treatment_assignments a on a.treatment = w.arm where a.case_id = $1 order by w.week limit 1`,
    [caseId],
  );
  const sheet = rows[0]?.worksheet;
  if (sheet && isWorksheetCode(sheet)) {
    const definition = WORKSHEETS[sheet];
    const entry: Record<string, unknown> = { id: randomUUID(), case_id: caseId, published_at: new Date().toISOString() };
    for (const field of definition.fields) if (field.kind === 'text') entry[field.name] = DEMO_SHEET_TEXT;
    await demo.call('POST', `/api/${sheet}`, patient, entry, UPSERT);
    await demo.call('POST', '/api/worksheet_feedback', 'demo-therapist', {
      id: randomUUID(), case_id: caseId, worksheet: sheet, worksheet_id: entry.id, published_at: new Date().toISOString(),
      body: 'Thank you, this is a good start. Next week, try to write down one situation each day.',
    }, UPSERT);
  }
  await demo.graphql(
    'demo-therapist',
    'mutation DemoCall($c: CaseSuicideCallInput!) { createCaseSuicideCall(input: { caseSuicideCall: $c }) { caseSuicideCall { id } } }',
    { c: { caseId, patientReached: true, riskOfSuicide: 'low', suicideScore: 1, detailedDescription: 'Called after a difficult week; passive thoughts, no plan, agreed to write to the team if it gets worse.' } },
  );
}

const DEMO_SHEET_TEXT = 'At the family dinner on Friday I thought everyone was judging me.';

/** The demo trial's arms: two treatments in equal parts. */
export const DEMO_ARMS = ['cbt', 'ipt'] as const;

/**
 * Configures the trial's allocation as the demo coordinator would on the case list (permuted
 * blocks of varying size, two arms 1:1, stratified by gender), unless one is configured: an
 * allocation is set once and never changed.
 */
async function ensureAllocation(demo: DemoSession): Promise<void> {
  const current = (await demo.call('GET', '/api/trial/allocation', 'demo-coordinator')) as { allocation: unknown };
  if (current.allocation) return;
  await demo.call('POST', '/api/trial/allocation', 'demo-coordinator', {
    method: 'blocks',
    arms: DEMO_ARMS.map((code) => ({ code, ratio: 1 })),
    factors: ['gender'],
  });
}

async function hasTrial(pool: pg.Pool, caseId: string): Promise<boolean> {
  const { rows } = await pool.query(`select 1 from app_public.workflow_instances where case_id = $1 and business_key = 'trial'`, [caseId]);
  return rows.length > 0;
}

/**
 * Starts the trial for the demo patients that have none yet and moves each to its stage of
 * DEMO_STAGES: patient 1 is screening (the questionnaires are due), patient 2 booked an
 * interview (the interviewer's task waits), patient 3 was interviewed, randomised and is in
 * treatment (questionnaires before treatment due, answers and scores to see). Every case gets
 * messages between its team and the patient; free interview slots stay open for booking.
 * Runs only on freshly created patients, so a second seed changes nothing.
 */
export async function seedDemoActivity(app: DemoApp, pool: pg.Pool, seeded: readonly SeededAccount[]): Promise<string[]> {
  const demo = new DemoSession(app);
  const done: string[] = [];
  const patients = seeded.filter((s) => s.flags.includes('patient') && s.caseId && s.created);
  const interviewerId = seeded.find((s) => s.username === 'demo-interviewer')?.id;
  if (patients.length > 0) await ensureAllocation(demo);
  for (const [index, patient] of patients.entries()) {
    const caseId = patient.caseId!;
    if (await hasTrial(pool, caseId)) continue;
    const stage = DEMO_STAGES[index % DEMO_STAGES.length]!;
    await pool.query(`select app_hidden.request_workflow_start($1, 'trial', 'trial')`, [caseId]);
    await app.tick();

    await demo.message('demo-therapist', caseId, 'Welcome', 'Welcome to Sanad. Write to us whenever you like; we answer within two working days.', { toPatients: true });
    await demo.message(patient.username, caseId, 'Question', 'Thank you. When will the interview take place?', { toTherapists: true, toSupporters: true });
    await demo.message('demo-supporter', caseId, 'Technical help', 'If the questionnaires do not open on your phone, tell me and I will help.', { toPatients: true });
    await demo.message('demo-counselor', caseId, 'Note for the team', 'I spoke with the patient by phone; no risk noticed.', { toTherapists: true, toSupervisors: true, toInterviewers: true, toSupporters: true });

    if (stage !== 'screening') {
      await demo.phq9(patient.username, caseId, 'screening', [2, 2, 1, 2, 1, 1, 2, 1, 0]);
      // The remaining screening questionnaires would follow; the demo reports them done.
      await pool.query(`select app_hidden.notify_workflow($1, 'screeningCompleted', $2)`, [
        caseId,
        JSON.stringify({ excluded: { value: false, type: 'Boolean' }, exclusionReasons: { value: '', type: 'String' } }),
      ]);
      await app.tick();
      const startsAt = new Date(Math.ceil((Date.now() + (index + 1) * 24 * HOUR) / HOUR) * HOUR);
      const created = await demo.graphql(
        'demo-interviewer',
        'mutation DemoOffer($startsAt: Datetime!, $endsAt: Datetime!) { createOffer(input: { startsAt: $startsAt, endsAt: $endsAt }) { interviewOffer { id } } }',
        { startsAt: startsAt.toISOString(), endsAt: new Date(startsAt.getTime() + HOUR).toISOString() },
      );
      const offerId = (created.createOffer as { interviewOffer: { id: string } }).interviewOffer.id;
      await demo.graphql(patient.username, 'mutation DemoBook($offerId: UUID!, $caseId: UUID!) { bookInterview(input: { offerId: $offerId, caseId: $caseId }) { interviewBooking { id } } }', { offerId, caseId });
      await app.tick();
    }
    if (stage === 'treatment') {
      // The interview took place: the demo moves the booked slot into the past (time travel, the
      // only shortcut), then the interviewer writes and signs the report, which records the
      // outcome and moves the trial (the one door for the outcome, issue 27).
      await pool.query(
        `update app_public.interview_offers o set time_slot = tstzrange(now() - interval '2 hours', now() - interval '1 hour')
          where o.id = (select b.offer_id from app_public.interview_bookings b where b.case_id = $1 and not b.canceled order by b.created_at desc limit 1)`,
        [caseId],
      );
      await demo.signReport('demo-interviewer', caseId, pool, DEMO_ACCEPTED_REPORT);
      await app.tick();
      // The case page's "Randomize" is the trial's randomization step: the arm is drawn from the
      // concealed allocation (ensureAllocation), the task closes and the stage moves.
      await demo.call('POST', `/api/trial/cases/${caseId}/randomize`, 'demo-coordinator');
      await app.tick();
      await demo.phq9(patient.username, caseId, 'pre', [3, 2, 2, 3, 1, 2, 2, 1, 1]);
      await demo.message('demo-therapist', caseId, 'Your first session', 'Your treatment starts now. Please answer the questionnaires before treatment first.', { toPatients: true });
      await seedTreatmentContent(demo, pool, caseId, patient.username);
    }
    done.push(`${patient.username}: trial at ${stage}`);
  }
  // Free slots for the booking screen and the interview calendar.
  if (done.length > 0 && interviewerId) {
    for (const days of [5, 6, 8]) {
      const startsAt = new Date(Math.ceil((Date.now() + days * 24 * HOUR) / HOUR) * HOUR);
      await demo.graphql(
        'demo-interviewer',
        'mutation DemoOffer($startsAt: Datetime!, $endsAt: Datetime!) { createOffer(input: { startsAt: $startsAt, endsAt: $endsAt }) { interviewOffer { id } } }',
        { startsAt: startsAt.toISOString(), endsAt: new Date(startsAt.getTime() + HOUR).toISOString() },
      );
    }
  }
  return done;
}
