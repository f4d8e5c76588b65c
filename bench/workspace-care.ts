/**
 * The care records of the workspace seed (workspace-seed.ts): what PagedCases shows beside each
 * case (task summaries, next waiting date, latest PHQ-9 item 9, open risk signals, treatment).
 * Without them those columns cost their floor, an empty index probe, and the bench flatters the
 * lists. Set-based SQL in the seed's owner transaction, after the cases and members; rows as the
 * workflow engine, the questionnaire routes, raise_safety_signal and randomize_case write them.
 *
 * Proportions (by stage, the case's position in the trial of workflows/trial.bpmn):
 *   - every case runs one "trial" process instance (the deployed trial.bpmn), active until the
 *     case is finished or anonymized;
 *   - open user tasks by stage, each with its own chance: registration/screening the screening
 *     questionnaires (patients, 90 %); interview booking (patients, 50 %) and the interview's
 *     outcome (interviewers, 80 %); waiting the pre questionnaires (patients, 70 %) and the draw
 *     (coordinators, 30 %); therapy the treatment sessions (patients, 90 %), a worksheet
 *     (patients, 60 %) and closing the treatment (therapists, 95 %); post_assessment the post
 *     questionnaires (patients, 90 %); follow_up the follow-up questionnaires (patients, 50 %).
 *     Due between 7 days ago and 21 days ahead, so about a quarter are overdue. Every task of an
 *     earlier stage is there too, completed (the history a case gathers);
 *   - timers (the "next waiting date"): a reminder at the due date of each open patient task not
 *     yet overdue, and the wait until the next follow-up (1–120 days ahead) for follow_up cases
 *     without an open questionnaire; all in the future, so the bench server's scheduler has
 *     nothing to fire while it measures. About half of the active cases have one;
 *   - PHQ-9 records at the times of measurement the case has passed (screening from the
 *     screening stage on, pre from waiting, post from post_assessment, fu1 and fu2 after), each
 *     present with 70–90 %: 0–5 a case, 2.4 on average. Items 1–8 uniform 0–3; item 9 is 0 in
 *     88 %, 1 in 9 %, 2 in 2.5 %, 3 in 0.5 %; total, band, PHQ-2 and flags as the scorer computes;
 *   - a risk signal for every record with item 9 ≥ 1 (what the phq9 trigger raises), resolved by
 *     the therapist a few days later except 8 % that stay open (about 3 % of cases), each open
 *     one with its open safety task for the therapists (a "safety" process instance);
 *   - a treatment assignment (cbt or ipt, permuted blocks, unstratified) for half of the waiting
 *     cases and 95 % of the cases from therapy on (workspace-seed.ts marks 7 % of those as dropouts).
 * The members (1–2 therapists, a supervisor, an interviewer from the interview on, sometimes a
 * supporter or counselor) are workspace-seed.ts's.
 *
 * Not written: the engines' private state (app_private.workflow_engine_states) and the queued
 * process starts the triggers would add (treatment modules, safety processes): nothing in the
 * bench advances these processes, and the scheduler must not start 7,000 of them mid-run.
 */
import path from 'node:path';
import type { Sql } from '../src/server/db/transaction';
import { deploy, readWorkflowFiles } from '../src/server/workflow/definitions';

const WORKFLOWS_DIR = path.resolve(import.meta.dirname, '../workflows');

/**
 * The triggers of these tables the load switches off (and on again): audit rows, and the two
 * that queue process starts (a PHQ-9 record's safety process, an assignment's treatment modules),
 * and the one-door check of an assignment (0150), since the seeded cases are past that step.
 */
export const CARE_BULK_LOAD_TRIGGERS: [table: string, trigger: string][] = [
  ['app_public.workflow_instances', '_900_audit'],
  ['app_public.workflow_tasks', '_900_audit'],
  ['app_public.phq9', '_500_safety_signal'],
  ['app_public.phq9', '_900_audit'],
  ['app_public.safety_signals', '_900_audit'],
  // Synthetic history: the assignments of cases long past their randomization step (0150).
  ['app_public.treatment_assignments', '_050_in_step'],
  ['app_public.treatment_assignments', '_500_treatment_modules'],
  ['app_public.treatment_assignments', '_900_audit'],
];

/** The tables this file fills, for the seed's vacuum and analyze. */
export const CARE_TABLES = ['app_public.workflow_instances', 'app_public.workflow_tasks', 'app_public.workflow_jobs', 'app_public.phq9',
  'app_public.safety_signals', 'app_public.treatment_assignments'];

/** Stages in trial order (workspace-seed.ts STAGES); a case has passed every stage before its own. */
const STAGE_ORDER = ['registration', 'screening', 'interview', 'waiting', 'therapy', 'post_assessment', 'follow_up', 'finished', 'anonymization'];

/** User tasks of trial.bpmn (and the treatment modules' worksheet) open in a stage: key, name, group, chance, reminder timer. */
const OPEN_TASKS: [stage: string, key: string, name: string, group: string, chance: number, reminder: string | null][] = [
  ['registration', 'screeningTask', 'Fill in the screening questionnaires', 'patients', 0.9, 'screeningReminder'],
  ['screening', 'screeningTask', 'Fill in the screening questionnaires', 'patients', 0.9, 'screeningReminder'],
  ['interview', 'bookTask', 'Book an interview', 'patients', 0.5, 'bookReminder'],
  ['interview', 'interviewTask', 'Record the interview outcome', 'interviewers', 0.8, null],
  ['waiting', 'preTask', 'Fill in the questionnaires before treatment', 'patients', 0.7, 'preReminder'],
  ['waiting', 'randomizeTask', 'Randomize the patient', 'coordinators', 0.3, null],
  ['therapy', 'patientTreatmentTask', 'Work through the treatment sessions', 'patients', 0.9, 'treatmentReminder'],
  ['therapy', 'worksheetTask', 'Work on a worksheet', 'patients', 0.6, null],
  ['therapy', 'therapistTreatmentTask', 'Close the treatment', 'therapists', 0.95, null],
  ['post_assessment', 'postTask', 'Fill in the questionnaires after treatment', 'patients', 0.9, 'postReminder'],
  ['follow_up', 'fu1Task', 'Fill in the follow-up questionnaires (1)', 'patients', 0.5, 'fu1Reminder'],
];

/** PHQ-9 times of measurement: the stage from which a case has one, its chance, and when (share of the case's life). */
const PHQ9_TIMES: [time: string, fromStage: string, chance: number, at: number][] = [
  ['screening', 'screening', 0.9, 0.05],
  ['pre', 'waiting', 0.85, 0.25],
  ['post', 'post_assessment', 0.8, 0.6],
  ['fu1', 'follow_up', 0.75, 0.8],
  ['fu2', 'finished', 0.7, 0.95],
];

/** Share of risk signals still open (their safety task not yet completed). */
const OPEN_SIGNAL_SHARE = 0.08;

/**
 * Writes the care records for the cases of ws_cases and ws_members (workspace-seed.ts's
 * temporary tables) with the triggers of CARE_BULK_LOAD_TRIGGERS off.
 */
export async function insertCareRecords(sql: Sql): Promise<void> {
  const versions = await deploy(sql, readWorkflowFiles(WORKFLOWS_DIR));
  const version = (key: string) => versions.find((v) => v.key === key)!.version;
  await sql.query(
    `create temporary table ws_stage_order on commit drop as
       select stage, ord::int from unnest($1::text[]) with ordinality as s(stage, ord)`,
    [STAGE_ORDER],
  );
  await insertTrialInstances(sql, version('trial'));
  await insertTasks(sql);
  await insertTimers(sql);
  await insertPhq9(sql);
  await insertSafetySignals(sql, version('safety'));
  await insertTreatmentAssignments(sql);
}

/** One trial instance a case, from its opening; completed once the case is finished. */
async function insertTrialInstances(sql: Sql, version: number): Promise<void> {
  await sql.query(
    `create temporary table ws_instances on commit drop as
       select c.case_id, gen_random_uuid() as instance_id, c.stage, o.ord, c.created_at,
              c.stage in ('finished', 'anonymization') as done
         from ws_cases c join ws_stage_order o using (stage)`,
  );
  await sql.query(
    `insert into app_public.workflow_instances (id, definition_key, definition_version, business_key, case_id, state,
       start_time, end_time, variables, updated_at)
     select instance_id, 'trial', $1, 'trial', case_id, case when done then 'COMPLETED' else 'ACTIVE' end,
            created_at, case when done then created_at + (now() - created_at) * 0.97 end,
            case when ord >= 4 then jsonb_build_object('outcome', jsonb_build_object('value',
                   case when random() < 0.6 then 'ptsd' else 'depression' end, 'type', 'String')) else '{}'::jsonb end,
            created_at
       from ws_instances`,
    [version],
  );
}

/**
 * Open tasks of the case's stage (each by its chance) and the completed tasks of the stages it
 * passed. An open task is due between 7 days ago and 21 days ahead.
 */
async function insertTasks(sql: Sql): Promise<void> {
  await sql.query(
    `create temporary table ws_tasks on commit drop as
     with plan as (
       select p.stage, o.ord, p.key, p.name, p.grp, p.chance, p.reminder
         from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::float8[], $6::text[]) as p(stage, key, name, grp, chance, reminder)
         join ws_stage_order o using (stage)
     )
     select i.case_id, i.instance_id, p.key, p.name, p.grp, p.reminder,
            p.ord = i.ord as open,
            i.created_at + (now() - i.created_at) * (p.ord::float8 / 10) as created,
            case when p.ord = i.ord then now() + make_interval(secs => (random() * 28 - 7) * 86400)
                 else i.created_at + (now() - i.created_at) * ((p.ord + 0.5) / 10) end as due
       from ws_instances i join plan p on p.ord <= i.ord
      where p.ord < i.ord or random() < p.chance`,
    [OPEN_TASKS.map((t) => t[0]), OPEN_TASKS.map((t) => t[1]), OPEN_TASKS.map((t) => t[2]), OPEN_TASKS.map((t) => t[3]),
      OPEN_TASKS.map((t) => t[4]), OPEN_TASKS.map((t) => t[5])],
  );
  await sql.query(
    `insert into app_public.workflow_tasks (process_instance_id, case_id, execution_id, task_definition_key, name,
       candidate_groups, due, created, end_time, delete_reason)
     select instance_id, case_id, gen_random_uuid()::text, key, name, array[grp], due, least(created, due, now()),
            case when not open then due end, case when not open then 'completed' end
       from ws_tasks`,
  );
}

/**
 * Timers: the reminder of each open patient task not yet due, and the wait for the next
 * follow-up of follow_up cases with no open questionnaire. All due in the future.
 */
async function insertTimers(sql: Sql): Promise<void> {
  await sql.query(
    `insert into app_public.workflow_jobs (process_instance_id, case_id, kind, activity_id, activity_name, execution_id, due_date, created)
     select instance_id, case_id, 'timer', reminder, 'Overdue', gen_random_uuid()::text, due, least(created, now())
       from ws_tasks where open and reminder is not null and due > now()
     union all
     select i.instance_id, i.case_id, 'timer', 'fu2Wait', 'Time until follow-up 2', gen_random_uuid()::text,
            now() + make_interval(secs => (1 + random() * 119) * 86400), i.created_at + (now() - i.created_at) * 0.8
       from ws_instances i
      where i.stage = 'follow_up' and not exists (select 1 from ws_tasks t where t.case_id = i.case_id and t.open and t.grp = 'patients')`,
  );
}

/** PHQ-9 records at the times the case passed, scored as src/domain/instruments/definitions/phq9.ts scores. */
async function insertPhq9(sql: Sql): Promise<void> {
  await sql.query(
    `with times as (
       select t.time, o.ord, t.chance, t.at
         from unnest($1::text[], $2::text[], $3::float8[], $4::float8[]) as t(time, from_stage, chance, at)
         join ws_stage_order o on o.stage = t.from_stage
     ),
     drawn as (
       select c.case_id, c.patient_id, t.time, c.created_at + (now() - c.created_at) * t.at as at,
              array(select floor(random() * 4)::int from generate_series(1, 8)) as items,
              random() as r9
         from ws_cases c join ws_stage_order o using (stage) join times t on t.ord <= o.ord
        where random() < t.chance
     ),
     scored as (
       select d.*, case when r9 < 0.88 then 0 when r9 < 0.97 then 1 when r9 < 0.995 then 2 else 3 end as item9
         from drawn d
     ),
     totals as (
       select s.*, (select sum(x) from unnest(s.items) x) + s.item9 as total, s.items[1] + s.items[2] as phq2 from scored s
     )
     insert into app_public.phq9 (case_id, submitter_id, time_of_measurement, item1, item2, item3, item4, item5, item6, item7, item8,
       item9, item10, total, band, subscales, flags, complete, created_at, updated_at)
     select case_id, patient_id, time, items[1], items[2], items[3], items[4], items[5], items[6], items[7], items[8], item9,
            (array['not_difficult', 'somewhat', 'very', 'extremely'])[1 + least(3, total / 7)],
            total,
            case when total >= 20 then 'severe' when total >= 15 then 'moderately_severe' when total >= 10 then 'moderate'
                 when total >= 5 then 'mild' else 'minimal' end,
            jsonb_build_object('phq2', phq2),
            array_remove(array[case when item9 >= 1 then 'suicide_item' end, case when total >= 10 then 'screen_positive' end,
                               case when phq2 >= 3 then 'phq2_positive' end], null),
            true, at, at
       from totals`,
    [PHQ9_TIMES.map((t) => t[0]), PHQ9_TIMES.map((t) => t[1]), PHQ9_TIMES.map((t) => t[2]), PHQ9_TIMES.map((t) => t[3])],
  );
}

/**
 * The signals raise_safety_signal stores for the records flagged suicide_item (to the
 * therapists: every seeded case has one), resolved by the case's therapist within days but for
 * OPEN_SIGNAL_SHARE. An open signal has its safety process and open task, as
 * start_safety_process would have begun them.
 */
async function insertSafetySignals(sql: Sql, safetyVersion: number): Promise<void> {
  await sql.query(
    `create temporary table ws_signals on commit drop as
       select gen_random_uuid() as id, r.case_id, r.id as record_id, r.time_of_measurement, r.item9, r.total, r.flags,
              r.created_at as raised_at, random() < $1 as open, gen_random_uuid() as instance_id
         from app_public.phq9 r where 'suicide_item' = any (r.flags)`,
    [OPEN_SIGNAL_SHARE],
  );
  await sql.query(
    `insert into app_public.safety_signals (id, case_id, source, source_record_id, details, responsible_group, raised_at, resolved_at, resolved_by)
     select s.id, s.case_id, 'phq9', s.record_id,
            jsonb_build_object('flags', array['suicide_item'], 'timeOfMeasurement', s.time_of_measurement, 'item9', s.item9, 'total', s.total),
            'therapists', s.raised_at,
            case when not s.open then least(now(), s.raised_at + make_interval(secs => random() * 5 * 86400)) end,
            case when not s.open then m.therapist end
       from ws_signals s join ws_members m using (case_id)`,
  );
  await sql.query(
    `insert into app_public.workflow_instances (id, definition_key, definition_version, business_key, case_id, state, start_time, variables, updated_at)
     select instance_id, 'safety', $1, null, case_id, 'ACTIVE', raised_at,
            jsonb_build_object('signalId', jsonb_build_object('value', id, 'type', 'String'),
                               'safetyGroup', jsonb_build_object('value', 'therapists', 'type', 'String')),
            raised_at
       from ws_signals where open`,
    [safetyVersion],
  );
  await sql.query(
    `insert into app_public.workflow_tasks (process_instance_id, case_id, execution_id, task_definition_key, name, candidate_groups, due, created)
     select instance_id, case_id, gen_random_uuid()::text, 'safetySignalTask', 'Respond to a risk answer', array['therapists'],
            raised_at + interval '1 day', raised_at
       from ws_signals where open`,
  );
}

/** Randomized cases: half the waiting ones, 95 % from therapy on. */
async function insertTreatmentAssignments(sql: Sql): Promise<void> {
  await sql.query(
    `insert into app_public.treatment_assignments (case_id, treatment, stratum, factor_levels, method, assigned_at, assigned_by)
     select i.case_id, case when random() < 0.5 then 'cbt' else 'ipt' end, '*', '{}'::jsonb, 'blocks',
            i.created_at + (now() - i.created_at) * 0.3,
            (select id from app_public.users where is_coordinator_account order by username limit 1)
       from ws_instances i
      where (i.stage = 'waiting' and random() < 0.5) or (i.ord >= 5 and random() < 0.95)`,
  );
}
