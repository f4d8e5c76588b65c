-- Why: several features must tell the workflow engine that something happened in a case (an
-- interview was booked or cancelled, the screening was completed, a patient was excluded). A
-- database trigger or server routine writes the event into this outbox in the same transaction
-- as the change itself, so the event exists exactly when the change committed; the workflow host
-- (src/server/workflow) claims rows with FOR UPDATE SKIP LOCKED and correlates each as a BPMN
-- message to the case's waiting processes (Camunda semantics of `all: true`: a message that
-- finds no waiting process is consumed without error). See docs/DECISIONS.md "Workflow outbox".

create table app_private.workflow_outbox (
  id bigint generated always as identity primary key,
  case_id uuid not null references app_public.cases (id) on delete cascade,
  message_name text not null
    constraint workflow_outbox_message_name_format check (message_name ~ '^[A-Za-z][A-Za-z0-9_.:-]{0,99}$'),
  -- Camunda-typed process variables, {"name": {"value": …, "type": "String"}}.
  variables jsonb not null default '{}'::jsonb
    constraint workflow_outbox_variables_object check (jsonb_typeof(variables) = 'object'),
  created_at timestamptz not null default now(),
  run_after timestamptz not null default now(),
  attempts integer not null default 0,
  last_error text
);
create index workflow_outbox_run_idx on app_private.workflow_outbox (run_after);
alter table app_private.workflow_outbox enable row level security;
comment on table app_private.workflow_outbox is
  'Events for the workflow engine, written in the transaction of the change they report.';

-- Called by security-definer triggers and server routines only: request roles cannot enqueue
-- messages for a case directly (no grant), so nobody can push another case's process along.
create function app_hidden.notify_workflow(case_id uuid, message_name text, variables jsonb default '{}'::jsonb)
  returns void
  language sql volatile security definer
  set search_path = pg_catalog
as $$
  insert into app_private.workflow_outbox (case_id, message_name, variables)
  values (notify_workflow.case_id, notify_workflow.message_name, coalesce(notify_workflow.variables, '{}'::jsonb));
$$;
comment on function app_hidden.notify_workflow(uuid, text, jsonb) is
  'Queues a BPMN message for the processes of a case; see app_private.workflow_outbox.';
