-- Why: treatment modules (issue 14 item 2). The treatment phase gives the patient worksheets as
--     tasks, which ones and when per treatment arm, from the server's configuration
--     (TREATMENT_MODULES, docs/WORKFLOW.md "Treatment modules"). The database only knows when a
--     case's treatment starts: the moment its treatment assignment is drawn. Then it queues the
--     `treatment-modules` process (workflows/treatment-modules.bpmn) with the arm; the process's
--     first service task reads the configuration and queues one instance per assigned worksheet,
--     whose patient task the `worksheet_sent` message of that worksheet completes (0070).
--     Patients never complete these tasks by hand: sending the worksheet is the way.
-- See docs/DECISIONS.md "2026-11 Treatment modules".

create function app_hidden.tg_treatment_modules_start() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
begin
  perform app_hidden.request_workflow_start(new.case_id, 'treatment-modules', null,
    jsonb_build_object('treatment', new.treatment,
      'treatmentStart', to_char(new.assigned_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')));
  return null;
end;
$$;
comment on function app_hidden.tg_treatment_modules_start() is
  'Queues the treatment-modules process of a case when its treatment is assigned (the start of its treatment).';

create trigger _500_treatment_modules after insert on app_public.treatment_assignments
  for each row execute function app_hidden.tg_treatment_modules_start();

-- Only a coordinator completes a worksheet task by hand (e.g. a worksheet done on paper);
-- for the patient, sending the worksheet completes it.
insert into app_private.workflow_calls (process_key, action, name, roles, variables, note) values
  ('treatment-modules', 'complete-task', 'worksheetTask', '{coordinator}', null,
   'This task is done when the patient sends the worksheet.');
