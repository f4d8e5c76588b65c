-- Why: every questionnaire write whose flags hold a safety flag (PHQ-9 item 9 above 0, BDI-II
-- item 9) calls app_hidden.raise_safety_signal from the trigger of 0050, also when the record
-- already raised its signal, which is most of them: a patient saves the same questionnaire again
-- and again while filling it in, and each whole-record POST rewrites the flags. The signal is
-- raised once per record (safety_signals_once_per_record), so those calls insert nothing, but
-- each first asked safety_responsible_group (a SQL function with settings: parsed and planned on
-- every call, ~0.1 ms) for the group of a signal it would not write. Measured on the
-- questionnaire bench (issue "Speed at clinic scale", questionnaire writes): 0.15 of the 1.8 ms
-- of PostgreSQL CPU of a POST /api/phq9.
--
-- Now a record whose signal exists returns at once, as it did after the insert did nothing; the
-- group is asked only for a signal about to be written. Two writers racing for a new record's
-- first signal both pass the check and meet at the insert's `on conflict do nothing`, as before:
-- one writes it and starts the safety process, the other returns null. Same arguments, answers,
-- grants and effects as 0050.
create or replace function app_hidden.raise_safety_signal(case_id uuid, source text, source_record_id uuid, details jsonb)
  returns uuid
  language plpgsql
  security definer
  set search_path = pg_catalog
as $$
declare
  signal_id uuid;
  group_name text;
begin
  if exists (select 1 from app_public.safety_signals s
              where s.source = raise_safety_signal.source
                and s.source_record_id = raise_safety_signal.source_record_id) then
    return null;
  end if;
  group_name := app_hidden.safety_responsible_group(raise_safety_signal.case_id);
  insert into app_public.safety_signals (case_id, source, source_record_id, details, responsible_group)
  values (raise_safety_signal.case_id, raise_safety_signal.source, raise_safety_signal.source_record_id,
          coalesce(raise_safety_signal.details, '{}'::jsonb), group_name)
  on conflict on constraint safety_signals_once_per_record do nothing
  returning id into signal_id;
  if signal_id is null then
    return null;
  end if;
  perform app_hidden.start_safety_process(raise_safety_signal.case_id, 'signal', signal_id,
    jsonb_build_object('signalId', signal_id, 'signalSource', raise_safety_signal.source, 'safetyGroup', group_name));
  return signal_id;
end;
$$;
