-- Why: issue 28, item 8. Operators scrape /metrics (src/server/ops/metrics.ts); what lives in
-- the database (the workflow's job and message queues, the mail queues) is read here in one
-- statement per scrape. Counts and ages only: no case, person or text leaves. The server calls
-- it as the owner; request roles have no access.

create function app_private.operations_metrics()
returns table (queue text, waiting bigint, due bigint, failing bigint, failed bigint, oldest_due_seconds double precision)
language sql
stable
set search_path = pg_catalog
as $$
  -- waiting: rows in the queue; due: of them those whose time has come (timer lag is the age of
  -- the oldest due one); failing: tried and failed at least once, still retried; failed: given up.
  select 'workflow_jobs', count(*), count(*) filter (where due_date <= now() and failed_at is null),
         count(*) filter (where attempts > 0 and failed_at is null), count(*) filter (where failed_at is not null),
         coalesce(extract(epoch from now() - min(due_date) filter (where due_date <= now() and failed_at is null)), 0)::double precision
    from app_public.workflow_jobs
  union all
  select 'workflow_outbox', count(*), count(*) filter (where run_after <= now() and failed_at is null),
         count(*) filter (where attempts > 0 and failed_at is null), count(*) filter (where failed_at is not null),
         coalesce(extract(epoch from now() - min(run_after) filter (where run_after <= now() and failed_at is null)), 0)::double precision
    from app_private.workflow_outbox
  union all
  select 'workflow_start_requests', count(*), count(*) filter (where run_after <= now() and failed_at is null),
         count(*) filter (where attempts > 0 and failed_at is null), count(*) filter (where failed_at is not null),
         coalesce(extract(epoch from now() - min(run_after) filter (where run_after <= now() and failed_at is null)), 0)::double precision
    from app_private.workflow_start_requests
  union all
  select 'mail_notifications', count(*), count(*) filter (where run_after <= now()), count(*) filter (where attempts > 0), 0,
         coalesce(extract(epoch from now() - min(run_after) filter (where run_after <= now())), 0)::double precision
    from app_private.notification_queue
  union all
  select 'mail_interviews', count(*), count(*) filter (where run_after <= now()), count(*) filter (where attempts > 0), 0,
         coalesce(extract(epoch from now() - min(run_after) filter (where run_after <= now())), 0)::double precision
    from app_private.interview_mail_queue
  union all
  select 'mail_reports', count(*), count(*) filter (where run_after <= now()), count(*) filter (where attempts > 0), 0,
         coalesce(extract(epoch from now() - min(run_after) filter (where run_after <= now())), 0)::double precision
    from app_private.report_mails
  union all
  select 'mail_workflow', count(*), count(*) filter (where run_after <= now()), count(*) filter (where attempts > 0), 0,
         coalesce(extract(epoch from now() - min(run_after) filter (where run_after <= now())), 0)::double precision
    from app_private.workflow_mails
$$;
revoke all on function app_private.operations_metrics() from public;
